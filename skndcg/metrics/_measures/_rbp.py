"""Rank-biased precision (Moffat & Zobel, 2008) and its residual.

RBP is ``(1 - p) * sum_i r_i * p**(i - 1)`` over the ranked rows, with ``r_i``
the label of a relevant row (``label >= rel_threshold``) and 0 otherwise, as ranx
computes it; with binary labels this is the paper's definition. The residual
is the weight RBP leaves undecided: the ranks holding unjudged rows and every
rank below the depth evaluated, ``(1 - p) * sum_{unjudged i} p**(i - 1) + p**d``
(the uncertainty of a binary RBP).

``trec_rbp`` and ``trec_rbp_resid`` are trec_eval 10.0's ``rbp`` and
``rbp_resid`` (``m_rbp.c``, ``m_rbp_resid.c``); how they differ from these (gains,
default ``p``, residual) is in the user guide's trec_eval page, "RBP and relstring".
"""

import math
from dataclasses import replace

from .._catalogue._registry import Param, declare
from .._jit import jit, n_read


@jit
def rbp(labels, k, rel_threshold, p):
    kk = n_read(labels, k)
    total = 0.0
    w = 1.0
    for i in range(kk):
        if labels[i] >= rel_threshold:
            total += labels[i] * w
        w *= p
    return (1.0 - p) * total


@jit
def _int_power(base, n):
    # base**n for an integer n >= 0 as numba's compiled ** computes it (by
    # squaring), so that the kernel run as Python gives the same bits.
    if n > 0x10000:
        return math.pow(base, float(n))
    out = 1.0
    while n != 0:
        if n & 1:
            out *= base
        n >>= 1
        base *= base
    return out


@jit
def rbp_resid(labels, k, p):
    kk = n_read(labels, k)
    total = 0.0
    w = 1.0
    for i in range(kk):
        if labels[i] != labels[i]:  # NaN: unjudged
            total += w
        w *= p
    # The ranks below the depth: p**kk of the weight, or below the list when
    # the cut-off goes deeper than the ranking.
    depth = kk if k is None else k
    return (1.0 - p) * total + _int_power(p, depth)


def rank_weights(r, k, p, dtype):
    # p**(rank - 1) of the ranks read, and each ranked row's index into them.
    import torch

    length = max(r.max_retrieved if k is None else min(k, r.max_retrieved), 1)
    w = r.ops.weights(p, length, dtype, r.row_pos.device)
    return w, torch.clamp(r.row_pos, max=length - 1)


def rbp_tensor(r, k, opts):
    import torch

    p = opts["params"]["p"]
    w, pos = rank_weights(r, k, p, opts["dtype"])
    y = r.row_label
    on = r.inside(k) & r.row_rel
    total = r.sum(torch.where(on, y * w[pos], torch.zeros_like(y)))
    return r.retrieved((1.0 - p) * total), None


def rbp_resid_tensor(r, k, opts):
    import torch

    dtype, p = opts["dtype"], opts["params"]["p"]
    w, pos = rank_weights(r, k, p, dtype)
    on = r.inside(k)
    on = on & r.row_unjudged if r.row_unjudged is not None else torch.zeros_like(on)
    total = r.sum(torch.where(on, w[pos], torch.zeros_like(r.row_label)))
    depth = r.n_retrieved if k is None else torch.full_like(r.n_retrieved, k)
    return r.retrieved((1.0 - p) * total + r.ops.power(p, depth, dtype)), None


_P = Param(
    "p", 0.8, "Persistence: the chance of going on to the next rank.", 0.0, 1.0,
    open_low=True, open_high=True,
)  # fmt: skip
declare(
    "rbp",
    "Rank-biased precision: gains weighted by p**(rank - 1), times 1 - p.",
    params=(_P,),
    needs=("rel_threshold",),
    empty_when="never",
    per_query=rbp,
    depth="k",
    form="sum",
    tensor=rbp_tensor,
)
declare(
    "rbp_resid",
    "RBP's residual: the weight of unjudged ranks and of the ranks below.",
    params=(_P,),
    unjudged="use",
    empty_when="never",
    per_query=rbp_resid,
    depth="k",
    form="sum",
    tensor=rbp_resid_tensor,
    higher_is_better=False,
)


@jit
def trec_rbp(labels, k, ideal, p):
    kk = n_read(labels, k)
    top = ideal[0] if ideal.shape[0] > 0 else 0.0  # the query's highest grade
    total = 0.0
    w = 1.0
    for i in range(kk):
        x = labels[i]
        if x > 0.0:  # NaN (unjudged) and negative grades gain nothing
            gain = x / top if top > 1.0 else x
            total += gain * w
        w *= p
    return (1.0 - p) * total


@jit
def trec_rbp_resid(labels, k, p):
    n = labels.shape[0]
    total = 0.0
    w = 1.0
    unjudged = 0
    for i in range(n):
        if labels[i] != labels[i]:  # NaN: unjudged
            unjudged += 1
            total += w
        w *= p
    if unjudged == 0:
        return 0.0
    return w + (1.0 - p) * total


def trec_rbp_tensor(r, k, opts):
    import torch

    dtype, p = opts["dtype"], opts["params"]["p"]
    w, pos = rank_weights(r, k, p, dtype)
    labels = torch.nan_to_num(r.all_label.to(torch.float64), nan=0.0)
    top = torch.zeros(r.n_queries, dtype=torch.float64, device=labels.device)
    top = top.scatter_reduce(0, r.all_query, labels, "amax", include_self=True)
    scale = torch.where(top > 1.0, top, torch.ones_like(top)).to(dtype)
    y = r.row_label
    on = r.inside(k) & (y > 0)
    gain = y / scale[r.row_query]
    total = r.sum(torch.where(on, gain * w[pos], torch.zeros_like(y)))
    return r.retrieved((1.0 - p) * total), None


def trec_rbp_resid_tensor(r, k, opts):
    import torch

    dtype, p = opts["dtype"], opts["params"]["p"]
    y = r.row_label
    if r.row_unjudged is None:
        return torch.zeros(r.n_queries, dtype=dtype, device=y.device), None
    w = r.ops.weights(p, r.max_retrieved + 1, dtype, r.row_pos.device)
    on = r.row_unjudged
    pos = torch.clamp(r.row_pos, max=r.max_retrieved)
    total = r.sum(torch.where(on, w[pos], torch.zeros_like(y)))
    value = w[r.n_retrieved] + (1.0 - p) * total
    return torch.where(
        r.sum(on.to(torch.int64)) > 0, value, torch.zeros_like(value)
    ), None


_TREC_P = replace(_P, default=0.9)
declare(
    "trec_rbp",
    "trec_eval's rbp: RBP of every grade, scaled into [0, 1] by the query's "
    "highest grade when that is above 1.",
    params=(_TREC_P,),
    needs=("ideal",),
    empty_when="never",
    per_query=trec_rbp,
    depth="k",
    form="sum",
    tensor=trec_rbp_tensor,
)
declare(
    "trec_rbp_resid",
    "trec_eval's rbp_resid: RBP's residual over the retrieved rows, 0 when "
    "none is unjudged.",
    params=(_TREC_P,),
    cutoff=False,
    unjudged="use",
    empty_when="never",
    per_query=trec_rbp_resid,
    tensor=trec_rbp_resid_tensor,
    higher_is_better=False,
)
