"""Tensor versions of trec_eval's set and count measures.

``set_p``, ``set_recall``, ``set_map``, ``set_relative_p``, ``set_f``,
``relative_p``, ``rprec_mult``, ``utility``, ``unj`` and ``nonrel_judged``
read counts of each query's top rows: how many are retrieved, relevant,
unjudged or judged not relevant. Each count is a segment sum of flags (exact
integers in any float type), and each value is made from the counts with the
engine's operations in the engine's order (``skndcg/metrics/_measures``), so
float64 values equal the engine's bit for bit.
"""

from __future__ import annotations

import torch

from ._perquery import _inside, _kk, _retrieved
from ._ranked import running_sum, segment_sum


def _hits(r, k, dtype, flag=None):
    """Relevant rows (or rows with ``flag``) among each query's top ``k``."""
    on = _inside(r, k) & (r.row_rel if flag is None else flag)
    return segment_sum(on.to(dtype), r.row_query, r.n_queries)


def _where(cond, value, dtype):
    return torch.where(cond, value, torch.zeros((), dtype=dtype, device=value.device))


def _den(x):
    """``x`` where it is positive, else 1 (the value is masked out there)."""
    return torch.where(x > 0, x, torch.ones_like(x))


def set_p(r, k, opts):
    dtype = opts["dtype"]
    n, h = _kk(r, k).to(dtype), _hits(r, k, dtype)
    return _retrieved(r, _where(n > 0, h / _den(n), dtype)), None


def set_recall(r, k, opts):
    dtype = opts["dtype"]
    big_r, h = r.n_relevant.to(dtype), _hits(r, k, dtype)
    return _retrieved(r, _where(big_r > 0, h / _den(big_r), dtype)), None


def set_map(r, k, opts):
    dtype = opts["dtype"]
    n, big_r, h = _kk(r, k).to(dtype), r.n_relevant.to(dtype), _hits(r, k, dtype)
    value = h * h / _den(n * big_r)
    return _retrieved(r, _where((n > 0) & (big_r > 0), value, dtype)), None


def set_relative_p(r, k, opts):
    dtype = opts["dtype"]
    n, big_r, h = _kk(r, k).to(dtype), r.n_relevant.to(dtype), _hits(r, k, dtype)
    value = h / _den(torch.minimum(n, big_r))
    return _retrieved(r, _where((n > 0) & (big_r > 0), value, dtype)), None


def set_f(r, k, opts):
    dtype, beta = opts["dtype"], float(opts["params"]["beta"])
    n, big_r, h = _kk(r, k).to(dtype), r.n_relevant.to(dtype), _hits(r, k, dtype)
    p = h / _den(n)
    rr = h / _den(big_r)
    value = (beta + 1.0) * p * rr / _den(beta * p + rr)
    return _retrieved(r, _where(h != 0, value, dtype)), None


def relative_p(r, k, opts):
    dtype = opts["dtype"]
    big_r, h = r.n_relevant.to(dtype), _hits(r, k, dtype)
    best = big_r if k is None else torch.clamp(big_r, max=float(k))
    return _retrieved(r, _where(big_r != 0, h / _den(best), dtype)), None


def rprec_mult(r, k, opts):
    dtype, mult = opts["dtype"], float(opts["params"]["mult"])
    # int(mult * R + 0.9), in float64 as the engine computes it.
    cut = (mult * r.n_relevant.to(torch.float64) + 0.9).to(torch.int64)
    on = (r.row_pos < cut[r.row_query]) & r.row_rel
    hits = segment_sum(on.to(torch.int64), r.row_query, r.n_queries)
    value = hits.to(torch.float64) / _den(cut).to(torch.float64)
    value = _where(cut > 0, value, torch.float64).to(dtype)
    return _retrieved(r, value), None


def utility(r, k, opts):
    dtype, prm = opts["dtype"], opts["params"]
    a, b, c, d = (float(prm[n]) for n in
                  ("rel_ret", "nonrel_ret", "rel_missed", "nonrel_missed"))  # fmt: skip
    n_docs = float(prm["n_docs"])
    kk, big_r, h = _kk(r, k).to(dtype), r.n_relevant.to(dtype), _hits(r, k, dtype)
    value = a * h + b * (kk - h) + c * (big_r - h) + d * (n_docs + h - kk - big_r)
    return _retrieved(r, value), None


def unj(r, k, opts):
    dtype = opts["dtype"]
    if r.row_unjudged is None:
        count = torch.zeros(r.n_queries, dtype=dtype, device=r.row_pos.device)
    else:
        count = _hits(r, k, dtype, flag=r.row_unjudged)
    den = r.n_retrieved if k is None else torch.full_like(r.n_retrieved, k)
    value = count.to(torch.float64) / _den(den).to(torch.float64)
    return _retrieved(r, _where(den > 0, value, torch.float64).to(dtype)), None


def average_precision(r, k, opts):
    """AP as gm_map's kernel adds it: precision at each relevant row, in rank
    order, over R (every row its own block: ties come least relevant first)."""
    dtype = opts["dtype"]
    on = _inside(r, k) & r.row_rel
    hits = _running(on, r).to(dtype)
    term = _where(on, hits / (r.row_pos.to(dtype) + 1.0), dtype)
    total = segment_sum(term, r.row_query, r.n_queries)
    big_r = r.n_relevant.to(dtype)
    return _retrieved(r, _where(big_r != 0, total / _den(big_r), dtype)), None


def yaap(r, k, opts):
    """log((1 + S) / (1 + R - S)), S AP's sum of precisions; a query with
    nothing retrieved is scored too (S = 0), as the engine does."""
    on = _inside(r, k) & r.row_rel
    hits = _running(on, r).to(torch.float64)
    term = _where(on, hits / (r.row_pos.to(torch.float64) + 1.0), torch.float64)
    total = segment_sum(term, r.row_query, r.n_queries)
    big_r = r.n_relevant.to(torch.float64)
    return log_cpu((1.0 + total) / (1.0 + big_r - total)).to(opts["dtype"]), None


_LOGS = {}


def _compiled(name):
    """``math.<name>`` over a float64 array, compiled by numba as the engine's
    kernels are (built on first use)."""
    if name not in _LOGS:
        import math

        import numpy as np
        from numba import njit

        fn = getattr(math, name)

        @njit
        def apply(x):
            out = np.empty_like(x)
            for i in range(x.shape[0]):
                out[i] = fn(x[i])
            return out

        _LOGS[name] = apply
    return _LOGS[name]


def _on_cpu(values, name):
    flat = values.detach().to("cpu", torch.float64).contiguous().view(-1).numpy()
    out = _compiled(name)(flat)
    return torch.as_tensor(out, device=values.device).view(values.shape)


def log2_cpu(values):
    """``math.log2`` of each value, by the engine's compiled code, on a CPU copy
    (torch's own ``log2`` may differ from it in the last bit)."""
    return _on_cpu(values, "log2")


def log_cpu(values):
    """``math.log`` of each value, as :func:`log2_cpu`."""
    return _on_cpu(values, "log")


def log2_table(n, device):
    """``math.log2(2.0 + i)`` for ``i = 0..n``, as the engine computes them."""
    return log2_cpu(torch.arange(n + 1, dtype=torch.float64, device=device) + 2.0)


def _running(flag, r):
    """Per row, the rows with ``flag`` up to and including it, in its query."""
    return running_sum(flag.to(torch.int64), r.row_query, r.n_queries)


def bin_g(r, k, opts):
    """1 / log2(2 + non-relevant rows above) per relevant row of the top k."""
    dtype = opts["dtype"]
    on = _inside(r, k) & r.row_rel
    above = r.row_pos - (_running(on, r) - on.to(torch.int64))
    table = log2_table(max(r.max_retrieved, 1), r.row_pos.device)
    term = 1.0 / table[torch.clamp(above, min=0)]
    term = torch.where(on, term, torch.zeros_like(term))
    total = segment_sum(term, r.row_query, r.n_queries)
    big_r = r.n_relevant.to(torch.float64)
    value = torch.where(big_r != 0, total / _den(big_r), torch.zeros_like(total))
    return _retrieved(r, value.to(dtype)), None


def _iprec(r, recall, device):
    """Interpolated precision at ``recall`` per query, in float64, as the
    engine's loop from the bottom of the list finds it: the best precision at
    the rank of the ``cut``-th relevant row or below it, ``cut = floor(recall
    * R + 0.5)``; 0 when fewer than ``cut`` relevant rows are retrieved."""
    rel = r.row_rel
    count = _running(rel, r)
    found = segment_sum(rel.to(torch.int64), r.row_query, r.n_queries)
    cut = torch.floor(recall * r.n_relevant.to(torch.float64) + 0.5).to(torch.int64)
    c = torch.clamp(cut, min=1)
    rank = r.row_pos + 1
    hit = rel & (count == c[r.row_query])
    stop = torch.zeros(r.n_queries, dtype=torch.int64, device=device)
    stop = stop.scatter_reduce(0, r.row_query, torch.where(hit, rank, 0), "amax")
    precision = count.to(torch.float64) / rank.to(torch.float64)
    below = rank >= stop[r.row_query]
    best = torch.zeros(r.n_queries, dtype=torch.float64, device=device)
    best = best.scatter_reduce(
        0, r.row_query, torch.where(below, precision, 0.0), "amax"
    )
    n = r.n_retrieved.to(torch.float64)
    best = torch.maximum(best, found.to(torch.float64) / _den(n))
    return torch.where((cut > found) | (found == 0), torch.zeros_like(best), best)


def iprec(r, k, opts):
    value = _iprec(r, float(opts["params"]["recall"]), r.row_pos.device)
    return _retrieved(r, value.to(opts["dtype"])), None


def iprec_11pt(r, k, opts):
    total = torch.zeros(r.n_queries, dtype=torch.float64, device=r.row_pos.device)
    for j in range(11):
        total = total + _iprec(r, j / 10.0, r.row_pos.device)
    return _retrieved(r, (total / 11.0).to(opts["dtype"])), None


def infap(r, k, opts):
    """Inferred AP: each judged relevant row's expected precision from the
    judged and pooled rows above it (see ``skndcg/metrics/_measures/_infap``)."""
    dtype = opts["dtype"]
    f64 = torch.float64
    on = _inside(r, k)
    unjudged = r.row_unjudged
    pooled = r.row_pooled
    if unjudged is None:
        unjudged = torch.zeros_like(on)
    if pooled is None:
        pooled = torch.zeros_like(on)
    judged = on & ~unjudged
    rel = judged & r.row_rel
    nonrel = judged & ~r.row_rel
    pool = on & pooled
    rel_above = _running(rel, r) - rel.to(torch.int64)
    nonrel_above = _running(nonrel, r) - nonrel.to(torch.int64)
    pool_above = _running(pool, r) - pool.to(torch.int64)
    fj = r.row_pos.to(f64)
    eps = 0.00001
    frac = (rel_above + nonrel_above + pool_above).to(f64) / _den(fj)
    share = (rel_above.to(f64) + eps) / ((rel_above + nonrel_above).to(f64) + 2 * eps)
    term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * frac * share
    term = torch.where(r.row_pos == 0, torch.ones_like(term), term)
    term = torch.where(rel, term, torch.zeros_like(term))
    total = segment_sum(term, r.row_query, r.n_queries)
    big_r = r.n_relevant.to(f64)
    value = torch.where(big_r > 0, total / _den(big_r), total)
    return _retrieved(r, value.to(dtype)), None


def nonrel_judged(r, k, opts):
    dtype = opts["dtype"]
    flag = ~r.row_rel
    if r.row_unjudged is not None:
        flag = flag & ~r.row_unjudged
    return _retrieved(r, _hits(r, k, dtype, flag=flag)), None


FAMILIES = {
    "set_p": set_p,
    "set_recall": set_recall,
    "set_map": set_map,
    "set_relative_p": set_relative_p,
    "set_f": set_f,
    "relative_p": relative_p,
    "rprec_mult": rprec_mult,
    "utility": utility,
    "unj": unj,
    "nonrel_judged": nonrel_judged,
    "gm_map": average_precision,
    "bin_g": bin_g,
    "iprec": iprec,
    "iprec_11pt": iprec_11pt,
    "infap": infap,
    "yaap": yaap,
}
