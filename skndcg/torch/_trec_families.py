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
from ._ranked import segment_sum


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
}
