"""Tensor versions of trec_eval's gain-curve measures: ``g``, ``ndcg_rel`` and
``rndcg`` (``skndcg/metrics/_measures``).

Each query's retrieved labels and its ideal labels (every row's label, best
first) are laid out as a grid, one row per query, and the engine's loop runs
one rank at a time over every query at once: running sums advance in rank
order, and every branch of the engine's loop is a mask. The logarithms are
those of the engine's compiled ``math.log2``: a table for whole ranks, and for
``g``, whose argument is a running difference of gains, one call on a CPU
copy of the arguments. float64 values equal the engine's bit for bit.
"""

from __future__ import annotations

import torch

from ._perquery import _kk, _retrieved
from ._ranked import _rank_within
from ._trec_families import log2_cpu, log2_table

F64 = torch.float64


def _grids(r, k):
    """``(retrieved gains, ideal labels, kk)``: per query and rank, the
    retrieved row's ``max(label, 0)`` and the ideal order's label where it is
    positive (0 elsewhere), and how many ranks are read."""
    dev = r.row_pos.device
    lr = max(r.max_retrieved, 1)
    lab = torch.zeros((r.n_queries, lr), dtype=F64, device=dev)
    lab[r.row_query, r.row_pos] = torch.clamp(r.row_label.to(F64), min=0.0)
    # The ideal order: every row's label, largest first, within each query.
    labels = r.all_label.to(F64)
    by_label = torch.argsort(labels, descending=True, stable=True)
    order = by_label[torch.argsort(r.all_query[by_label], stable=True)]
    query = r.all_query[order]
    pos = _rank_within(query, r.n_queries)
    ideal = torch.zeros((r.n_queries, max(r.max_rows, 1) + 1), dtype=F64, device=dev)
    values = labels[order]
    ideal[query, pos] = torch.where(values > 0, values, torch.zeros_like(values))
    return lab, ideal, _kk(r, k)


def _col(grid, t):
    if t < grid.shape[1]:
        return grid[:, t]
    return torch.zeros(grid.shape[0], dtype=grid.dtype, device=grid.device)


def _zero(like):
    return torch.zeros_like(like)


def g(r, k, opts):
    lab, ideal, kk = _grids(r, k)
    total_ideal = torch.zeros(r.n_queries, dtype=F64, device=lab.device)
    for j in range(ideal.shape[1]):
        total_ideal = total_ideal + ideal[:, j]
    steps = int(kk.max()) if kk.numel() else 0
    cost, gained = _zero(total_ideal), _zero(total_ideal)
    args = torch.ones((r.n_queries, max(steps, 1)), dtype=F64, device=lab.device)
    for t in range(steps):
        on = t < kk
        gi = _col(lab, t)
        gained = torch.where(on, gained + gi, gained)
        cost = torch.where(on, cost + torch.clamp(_col(ideal, t), min=1.0), cost)
        args[:, t] = torch.where(on, 2.0 + cost - gained, 1.0)
    logs = log2_cpu(args)
    out = _zero(total_ideal)
    for t in range(steps):
        gi = _col(lab, t)
        use = (t < kk) & (gi != 0)
        out = torch.where(use, out + gi / logs[:, t], out)
    safe = torch.where(total_ideal > 0, total_ideal, torch.ones_like(total_ideal))
    value = torch.where(total_ideal > 0, out / safe, _zero(out))
    return _retrieved(r, value.to(opts["dtype"])), None


def ndcg_rel(r, k, opts):
    lab, ideal, kk = _grids(r, k)
    dev = lab.device
    log2 = log2_table(ideal.shape[1] + lab.shape[1], dev)
    m = (ideal > 0).sum(1)
    idcg_full = torch.zeros(r.n_queries, dtype=F64, device=dev)
    for j in range(ideal.shape[1]):
        idcg_full = torch.where(j < m, idcg_full + ideal[:, j] / log2[j], idcg_full)
    dcg, idcg, total = _zero(idcg_full), _zero(idcg_full), _zero(idcg_full)
    found = torch.zeros(r.n_queries, dtype=torch.int64, device=dev)
    steps = int(kk.max()) if kk.numel() else 0
    for t in range(steps):
        on = t < kk
        gi = _col(lab, t)
        dcg = torch.where(on & (gi != 0), dcg + gi / log2[t], dcg)
        idcg = torch.where(on & (t < m), idcg + _col(ideal, t) / log2[t], idcg)
        hit = on & (gi > 0)
        safe = torch.where(idcg > 0, idcg, torch.ones_like(idcg))
        total = torch.where(hit, total + dcg / safe, total)
        found = found + hit.to(torch.int64)
    full = torch.where(idcg_full > 0, idcg_full, torch.ones_like(idcg_full))
    total = total + (m - found).to(F64) * dcg / full
    value = torch.where(m > 0, total / torch.clamp(m, min=1).to(F64), _zero(total))
    return _retrieved(r, value.to(opts["dtype"])), None


def rndcg(r, k, opts):
    lab, ideal, kk = _grids(r, k)
    dev = lab.device
    p = (ideal > 0).sum(1)
    steps = max(int(kk.max()) if kk.numel() else 0, ideal.shape[1]) + 2
    log2 = log2_table(steps + 1, dev)
    first = ideal[:, 0]
    old = torch.where(p > 0, first, _zero(first))
    current = old.clone()
    dcg, idcg, total = _zero(first), _zero(first), _zero(first)
    count = torch.zeros(r.n_queries, dtype=torch.int64, device=dev)
    # The engine's three loops as modes: 1 ranks and the ideal together, 2 the
    # rest of the ranks, 3 the rest of the ideal order; 4 done.
    mode = torch.ones(r.n_queries, dtype=torch.int64, device=dev)

    def flush(cond, total, count):
        safe = torch.where(idcg > 0, idcg, torch.ones_like(idcg))
        add = cond & (idcg > 0)
        return (torch.where(add, total + dcg / safe, total),
                count + add.to(torch.int64))  # fmt: skip

    for t in range(steps):
        inside = t < kk
        end1 = (mode == 1) & ~(inside & (current > 0))
        mode = torch.where(end1, torch.where(inside, 2, 3), mode)
        end2 = (mode == 2) & ~inside
        total, count = flush(end2, total, count)
        mode = torch.where(end2, 3, mode)
        mode = torch.where((mode == 3) & ~(current > 0), 4, mode)
        m1, m2, m3 = mode == 1, mode == 2, mode == 3
        cur = torch.where(t < p, _col(ideal, t), _zero(first))
        change = (m1 | m3) & (cur != old)
        total, count = flush(change, total, count)
        old = torch.where(change, cur, old)
        gi = _col(lab, t)
        dcg = torch.where((m1 | m2) & (gi != 0), dcg + gi / log2[t], dcg)
        idcg = torch.where((m1 | m3) & (cur > 0), idcg + cur / log2[t], idcg)
        current = torch.where(m1 | m3, cur, current)
    value = torch.where(count > 0, total / torch.clamp(count, min=1).to(F64),
                        _zero(total))  # fmt: skip
    value = torch.where(r.n_relevant != 0, value, _zero(value))
    return _retrieved(r, value.to(opts["dtype"])), None


FAMILIES = {"g": g, "ndcg_rel": ndcg_rel, "rndcg": rndcg}
