"""Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, 2009).

A user stops at rank ``r`` with probability ``R_r = (2**g_r - 1) / 2**g_max``
once they get there; ERR is the expected reciprocal of the rank where they stop.
``g_max`` defaults to the largest label in ``y_true``; labels above it count as
``g_max``, below 0 as 0. nERR divides by the ERR of the ideal order.
"""

import math

from .._jit import jit
from .._registry import Measure, Param, register


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
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    gm = label_max if math.isnan(g_max) else g_max
    return _err(labels, kk, gm)


@jit
def nerr(labels, k, ideal, label_max, g_max):
    gm = label_max if math.isnan(g_max) else g_max
    best = _err(ideal, ideal.shape[0] if k is None else min(k, ideal.shape[0]), gm)
    if best <= 0.0:
        return 0.0
    n = labels.shape[0]
    return _err(labels, n if k is None else min(k, n), gm) / best


_G_MAX = Param(
    "g_max",
    None,
    "Largest grade: stop probability (2**g - 1) / 2**g_max (default: the "
    "largest label in y_true).",
    low=0.0,
    high=53.0,
)
register(
    Measure(
        "err",
        "Expected reciprocal rank: 1/r for the rank r where a cascade user stops.",
        params=(_G_MAX,),
        needs=("label_max",),
        per_query=err,
        depth="k",
    )
)
register(
    Measure(
        "nerr",
        "ERR divided by the ERR of the ideal order.",
        params=(_G_MAX,),
        needs=("ideal", "label_max"),
        per_query=nerr,
        depth="k",
    )
)
