"""Tensor versions of the registry's per-query measures (ERR, RBP, R-precision,
bpref, judged@k).

They read the retrieved rows one by one in rank order (``Ranked.row_*``, from
a ranking where every row is its own block: under ``ties="average"`` tied rows
come least relevant first, as :mod:`skndcg.metrics` hands them to these
measures). Each value is built with the engine's operations in the engine's
order: sums are scatter-adds in row order, running products (ERR's chance of
going on) advance one rank at a time over every query at once, and powers
are taken by squaring as numba does, so float64 values agree to the last bit.
"""

from __future__ import annotations

import numpy as np
import torch

from ._ranked import _order, _rank_within, running_sum, segment_sum


def _kk(r, k):
    return r.n_retrieved if k is None else torch.clamp(r.n_retrieved, max=k)


def _retrieved(r, value):
    """A query with nothing retrieved scores 0, as the engine's loop does."""
    return torch.where(r.n_retrieved > 0, value, torch.zeros_like(value))


def _inside(r, k):
    return r.row_pos < _kk(r, k)[r.row_query]


def _power(base: float, exponent, dtype):
    """``base ** exponent`` for an integer tensor, by squaring (numba's way)."""
    e = exponent.clone()
    out = torch.ones(e.shape, dtype=torch.float64, device=e.device)
    a = torch.full_like(out, base)
    while bool((e > 0).any()):
        out = torch.where((e & 1) == 1, out * a, out)
        e = e >> 1
        a = a * a
    return out.to(dtype)


def _weights(p: float, length: int, dtype, device):
    """``p**i`` for ranks ``i < length``, each the previous one times ``p``."""
    w = np.cumprod(np.concatenate([[1.0], np.full(max(length - 1, 0), p)]))
    return torch.as_tensor(w[:length], device=device).to(dtype)


def rbp(r, k, opts):
    dtype, p = opts["dtype"], opts["params"]["p"]
    length = max(r.max_retrieved if k is None else min(k, r.max_retrieved), 1)
    w = _weights(p, length, dtype, r.row_pos.device)
    y = r.row_label
    on = _inside(r, k) & r.row_rel
    pos = torch.clamp(r.row_pos, max=length - 1)
    term = torch.where(on, y * w[pos], torch.zeros_like(y))
    total = segment_sum(term, r.row_query, r.n_queries)
    return _retrieved(r, (1.0 - p) * total), None


def rbp_resid(r, k, opts):
    dtype, p = opts["dtype"], opts["params"]["p"]
    length = max(r.max_retrieved if k is None else min(k, r.max_retrieved), 1)
    w = _weights(p, length, dtype, r.row_pos.device)
    y = r.row_label
    unjudged = r.row_unjudged
    on = _inside(r, k)
    on = on & unjudged if unjudged is not None else torch.zeros_like(on)
    pos = torch.clamp(r.row_pos, max=length - 1)
    term = torch.where(on, w[pos], torch.zeros_like(y))
    total = segment_sum(term, r.row_query, r.n_queries)
    depth = r.n_retrieved if k is None else torch.full_like(r.n_retrieved, k)
    value = (1.0 - p) * total + _power(p, depth, dtype)
    return _retrieved(r, value), None


def trec_rbp(r, k, opts):
    """trec_eval's rbp: grades as gains, scaled by the query's highest grade
    when that is above 1 (see ``skndcg/metrics/_measures/_trec_rbp.py``)."""
    dtype, p = opts["dtype"], opts["params"]["p"]
    length = max(r.max_retrieved if k is None else min(k, r.max_retrieved), 1)
    w = _weights(p, length, dtype, r.row_pos.device)
    labels = torch.nan_to_num(r.all_label.to(torch.float64), nan=0.0)
    top = torch.zeros(r.n_queries, dtype=torch.float64, device=labels.device)
    top = top.scatter_reduce(0, r.all_query, labels, "amax", include_self=True)
    scale = torch.where(top > 1.0, top, torch.ones_like(top)).to(dtype)
    y = r.row_label
    on = _inside(r, k) & (y > 0)
    pos = torch.clamp(r.row_pos, max=length - 1)
    gain = y / scale[r.row_query]
    term = torch.where(on, gain * w[pos], torch.zeros_like(y))
    total = segment_sum(term, r.row_query, r.n_queries)
    return _retrieved(r, (1.0 - p) * total), None


def trec_rbp_resid(r, k, opts):
    """trec_eval's rbp_resid: RBP's residual, 0 without unjudged rows."""
    dtype, p = opts["dtype"], opts["params"]["p"]
    length = r.max_retrieved + 1  # p**n for the n retrieved rows, too
    w = _weights(p, length, dtype, r.row_pos.device)
    y = r.row_label
    if r.row_unjudged is None:
        return torch.zeros(r.n_queries, dtype=dtype, device=y.device), None
    on = r.row_unjudged
    pos = torch.clamp(r.row_pos, max=length - 1)
    total = segment_sum(torch.where(on, w[pos], torch.zeros_like(y)),
                        r.row_query, r.n_queries)  # fmt: skip
    n_unjudged = segment_sum(on.to(torch.int64), r.row_query, r.n_queries)
    value = w[r.n_retrieved] + (1.0 - p) * total
    return torch.where(n_unjudged > 0, value, torch.zeros_like(value)), None


def rprec(r, k, opts):
    dtype = opts["dtype"]
    n_rel = r.n_relevant
    on = (r.row_pos < n_rel[r.row_query]) & r.row_rel
    hits = segment_sum(on.to(torch.int64), r.row_query, r.n_queries)
    value = torch.where(
        n_rel > 0, hits.to(dtype) / torch.clamp(n_rel, min=1).to(dtype), 0.0
    )
    return _retrieved(r, value.to(dtype)), None


def judged(r, k, opts):
    dtype = opts["dtype"]
    on = _inside(r, k)
    if r.row_unjudged is not None:
        on = on & ~r.row_unjudged
    count = segment_sum(on.to(torch.int64), r.row_query, r.n_queries)
    kk = _kk(r, k)
    value = torch.where(kk > 0, count.to(dtype) / torch.clamp(kk, min=1).to(dtype), 0.0)
    return _retrieved(r, value.to(dtype)), None


def bpref(r, k, opts):
    dtype = opts["dtype"]
    on = _inside(r, k)
    judged_row = on if r.row_unjudged is None else on & ~r.row_unjudged
    rel = judged_row & r.row_rel
    nonrel = (judged_row & ~rel).to(torch.int64)
    # Judged non-relevant rows ranked above each row, within its query.
    above = (running_sum(nonrel, r.row_query, r.n_queries) - nonrel).to(dtype)
    n_unjudged = 0 if r.n_unjudged is None else r.n_unjudged
    n_nonrel = (r.n_rows - r.n_relevant - n_unjudged).to(dtype)
    n_rel = r.n_relevant.to(dtype)
    m = torch.minimum(n_rel, n_nonrel)[r.row_query]
    safe = torch.where(m > 0, m, torch.ones_like(m))
    term = torch.where(
        (above > 0) & (m > 0), 1.0 - torch.minimum(above, m) / safe, 1.0
    ).to(dtype)
    total = segment_sum(torch.where(rel, term, torch.zeros_like(term)),
                        r.row_query, r.n_queries)  # fmt: skip
    value = torch.where(n_rel > 0, total / torch.clamp(n_rel, min=1.0), 0.0)
    return _retrieved(r, value.to(dtype)), None


def _err_sum(query, pos, label, kk, g_max, n_queries, dtype):
    """ERR of ranked rows (``query``, ``pos``, ``label``) over the top ``kk``:
    one step per rank, every query at once, as the engine's loop."""
    scale = 2.0**g_max
    inside = pos < kk[query]
    if not bool(inside.any()):
        return torch.zeros(n_queries, dtype=dtype, device=label.device)
    query, pos, label = query[inside], pos[inside], label[inside]
    order = torch.sort(pos, stable=True).indices
    query, label = query[order], label[order]
    counts = torch.bincount(pos[order]).tolist()
    g = torch.clamp(torch.clamp(label, min=0.0), max=g_max)
    stop = (torch.pow(2.0, g) - 1.0) / scale
    total = torch.zeros(n_queries, dtype=dtype, device=label.device)
    go_on = torch.ones(n_queries, dtype=dtype, device=label.device)
    lo = 0
    for i, n in enumerate(counts):
        q, st = query[lo : lo + n], stop[lo : lo + n]
        lo += n
        here = go_on[q]
        total.index_add_(0, q, here * st / (i + 1.0))
        go_on[q] = here * (1.0 - st)
    return total


def _g_max(r, opts):
    given = opts["params"].get("g_max")
    return opts["label_max"] if given is None else float(given)


def err(r, k, opts):
    dtype = opts["dtype"]
    value = _err_sum(r.row_query, r.row_pos, r.row_label, _kk(r, k), _g_max(r, opts),
                     r.n_queries, dtype)  # fmt: skip
    return _retrieved(r, value), None


def nerr(r, k, opts):
    dtype = opts["dtype"]
    gm = _g_max(r, opts)
    value = _err_sum(r.row_query, r.row_pos, r.row_label, _kk(r, k), gm,
                     r.n_queries, dtype)  # fmt: skip
    # The ideal order: every judged row of the query, labels descending.
    order, q, _ = _order(r.all_query, r.all_label, None, stable=False)
    ipos = _rank_within(q, r.n_queries)
    mk = r.n_rows if k is None else torch.clamp(r.n_rows, max=k)
    best = _err_sum(q, ipos, r.all_label[order], mk, gm, r.n_queries, dtype)
    positive = best > 0
    safe = torch.where(positive, best, torch.ones_like(best))
    value = torch.where(positive, value / safe, torch.zeros_like(value))
    return _retrieved(r, value), None
