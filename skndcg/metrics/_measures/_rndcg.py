"""Rndcg, trec_eval's NDCG averaged at the R levels (an experimental measure).

The ideal order's gain changes at a few depths: after the rows of the highest
grade, after those of the next one, ..., and where the positive gains end. At
each such depth (counted over the ranking's depth, then past it), Rndcg takes
the NDCG of the list down to just above it, plus the NDCG of the whole ranking
when the ideal gains end before it does; the measure is the mean of those
values. 0 for a query with nothing relevant at the relevance level.
"""

import math

from .._catalogue._registry import declare
from .._jit import jit, n_read


@jit
def rndcg(labels, k, ideal, n_relevant):
    if n_relevant == 0.0:
        return 0.0
    kk = n_read(labels, k)
    p = 0
    for j in range(ideal.shape[0]):
        if ideal[j] > 0.0:
            p += 1
    old = ideal[0] if p > 0 else 0.0
    current = old
    dcg = 0.0
    idcg = 0.0
    total = 0.0
    count = 0
    i = 0
    while i < kk and current > 0.0:
        cur = ideal[i] if i < p else 0.0
        if cur != old:
            if idcg > 0.0:
                total += dcg / idcg
                count += 1
            old = cur
        gi = max(labels[i], 0.0)
        if gi != 0.0:
            dcg += gi / math.log2(i + 2.0)
        if cur > 0.0:
            idcg += cur / math.log2(i + 2.0)
        current = cur
        i += 1
    if i < kk:
        while i < kk:
            gi = max(labels[i], 0.0)
            if gi != 0.0:
                dcg += gi / math.log2(i + 2.0)
            i += 1
        if idcg > 0.0:
            total += dcg / idcg
            count += 1
    while current > 0.0:
        cur = ideal[i] if i < p else 0.0
        if cur != old:
            if idcg > 0.0:
                total += dcg / idcg
                count += 1
            old = cur
        if cur > 0.0:
            idcg += cur / math.log2(i + 2.0)
        current = cur
        i += 1
    return total / count if count > 0 else 0.0


def rndcg_tensor(r, k, opts):
    # The three loops above as modes, one rank at a time over every query: 1
    # ranks and the ideal together, 2 the rest of the ranks, 3 the rest of the
    # ideal order; 4 done.
    import torch

    lab, ideal, kk = r.ops.grids(r, k)
    dev, col = lab.device, r.ops.column
    p = (ideal > 0).sum(1)
    steps = max(int(kk.max()) if kk.numel() else 0, ideal.shape[1]) + 2
    log2 = r.ops.log2_table(steps + 1, dev)
    zero = torch.zeros_like(ideal[:, 0])
    old = torch.where(p > 0, ideal[:, 0], zero)
    current = old.clone()
    dcg, idcg, total = zero, zero, zero
    count = torch.zeros(r.n_queries, dtype=torch.int64, device=dev)
    mode = torch.ones(r.n_queries, dtype=torch.int64, device=dev)

    def flush(cond, total, count):
        add = cond & (idcg > 0)
        return (torch.where(add, total + dcg / r.ops.den(idcg), total),
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
        cur = torch.where(t < p, col(ideal, t), zero)
        change = (m1 | m3) & (cur != old)
        total, count = flush(change, total, count)
        old = torch.where(change, cur, old)
        gi = col(lab, t)
        dcg = torch.where((m1 | m2) & (gi != 0), dcg + gi / log2[t], dcg)
        idcg = torch.where((m1 | m3) & (cur > 0), idcg + cur / log2[t], idcg)
        current = torch.where(m1 | m3, cur, current)
    value = r.ops.zero_unless(count > 0, total / r.ops.den(count).to(torch.float64))
    value = r.ops.zero_unless(r.n_relevant != 0, value)
    return r.retrieved(value.to(opts["dtype"])), None


declare(
    "rndcg",
    "NDCG averaged at the depths where the ideal order's gain changes.",
    needs=("ideal", "n_relevant"),
    per_query=rndcg,
    depth="k",
    tensor=rndcg_tensor,
)
