"""Rank-biased precision (Moffat & Zobel, 2008) and its residual.

RBP is ``(1 - p) * sum_i r_i * p**(i - 1)`` over the ranked rows, with ``r_i``
the label of a relevant row (``label >= rel_threshold``) and 0 otherwise, as ranx
computes it; with binary labels this is the paper's definition. The residual
is the weight RBP leaves undecided: the ranks holding unjudged rows and every
rank below the depth evaluated, ``(1 - p) * sum_{unjudged i} p**(i - 1) + p**d``
(the uncertainty of a binary RBP).
"""

from .._jit import jit
from .._registry import Measure, Param, register


@jit
def rbp(labels, k, rel_threshold, p):
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    total = 0.0
    w = 1.0
    for i in range(kk):
        if labels[i] >= rel_threshold:
            total += labels[i] * w
        w *= p
    return (1.0 - p) * total


@jit
def rbp_resid(labels, k, p):
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    total = 0.0
    w = 1.0
    for i in range(kk):
        if labels[i] != labels[i]:  # NaN: unjudged
            total += w
        w *= p
    # The ranks below the depth: p**kk of the weight, or below the list when
    # the cut-off goes deeper than the ranking.
    depth = kk if k is None else k
    return (1.0 - p) * total + p**depth


_P = Param(
    "p", 0.8, "Persistence: the chance of going on to the next rank.", 0.0, 1.0,
    open_low=True, open_high=True,
)  # fmt: skip
register(
    Measure(
        "rbp",
        "Rank-biased precision: gains weighted by p**(rank - 1), times 1 - p.",
        params=(_P,),
        needs=("rel_threshold",),
        empty_when="never",
        per_query=rbp,
        depth="k",
        form="sum",
    )
)
register(
    Measure(
        "rbp_resid",
        "RBP's residual: the weight of unjudged ranks and of the ranks below.",
        params=(_P,),
        unjudged="use",
        empty_when="never",
        per_query=rbp_resid,
        depth="k",
        form="sum",
        higher_is_better=False,
    )
)
