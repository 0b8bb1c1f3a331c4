"""Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, 2009).

A user stops at rank ``r`` with probability ``R_r = (2**g_r - 1) / 2**g_max``
once they get there; ERR is the expected reciprocal of the rank where they stop.
``g_max`` defaults to the largest label in ``y_true``; labels above it count as
``g_max``, below 0 as 0. nERR divides by the ERR of the ideal order.
"""

import math

from .._catalogue._registry import Param, declare
from .._jit import jit, n_read


@jit
def _err(labels, kk, g_max):
    scale = 2.0**g_max
    total = 0.0
    go_on = 1.0
    for i in range(kk):
        g = min(max(labels[i], 0.0), g_max)
        stop = (2.0**g - 1.0) / scale
        total += go_on * stop / (i + 1.0)
        go_on *= 1.0 - stop
    return total


@jit
def err(labels, k, label_max, g_max):
    kk = n_read(labels, k)
    gm = label_max if math.isnan(g_max) else g_max
    return _err(labels, kk, gm)


@jit
def nerr(labels, k, ideal, label_max, g_max):
    best = err(ideal, k, label_max, g_max)
    if best <= 0.0:
        return 0.0
    return err(labels, k, label_max, g_max) / best


def _err_on_tensors(query, pos, label, kk, g_max, n_queries, dtype):
    # ERR of ranked rows on tensors over the top kk: one step per rank, every
    # query at once, as _err.
    import torch

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


def _g_max(opts):
    given = opts["params"].get("g_max")
    return opts["label_max"] if given is None else float(given)


def err_tensor(r, k, opts):
    value = _err_on_tensors(r.row_query, r.row_pos, r.row_label, r.kk(k),
                            _g_max(opts), r.n_queries, opts["dtype"])  # fmt: skip
    return r.retrieved(value), None


def nerr_tensor(r, k, opts):
    import torch

    dtype, gm = opts["dtype"], _g_max(opts)
    value = _err_on_tensors(r.row_query, r.row_pos, r.row_label, r.kk(k), gm,
                            r.n_queries, dtype)  # fmt: skip
    q, pos, labels = r.ideal_rows()
    mk = r.n_rows if k is None else torch.clamp(r.n_rows, max=k)
    best = _err_on_tensors(q, pos, labels, mk, gm, r.n_queries, dtype)
    value = r.ops.zero_unless(best > 0, value / r.ops.den(best))
    return r.retrieved(value), None


_G_MAX = Param(
    "g_max",
    None,
    "Largest grade: stop probability (2**g - 1) / 2**g_max (default: the "
    "largest label in y_true).",
    low=0.0,
    high=53.0,
)
declare(
    "err",
    "Expected reciprocal rank: 1/r for the rank r where a cascade user stops.",
    params=(_G_MAX,),
    needs=("label_max",),
    per_query=err,
    depth="k",
    tensor=err_tensor,
)
declare(
    "nerr",
    "ERR divided by the ERR of the ideal order.",
    params=(_G_MAX,),
    needs=("ideal", "label_max"),
    per_query=nerr,
    depth="k",
    tensor=nerr_tensor,
)
