"""trec_eval's variants of average precision, gm_map and yaap (their formulas
are in the user guide's trec_eval page).

gm_map's per-query value is the query's average precision (what
``ranking_report`` shows; trec_eval prints none); its summary is the geometric
mean with trec_eval's floor ``MIN_GEO_MEAN``. yaap scores a query with nothing
retrieved too.
"""

import math

import numpy as np

from .._catalogue._registry import Aggregate, declare
from .._jit import jit, n_read

#: trec_eval's floor of a query's AP in the geometric mean (``MIN_GEO_MEAN``).
GM_FLOOR = 1e-5


@jit
def precision_sum(labels, k, rel_threshold):
    # The precision at each relevant row of the top k, added in rank order.
    kk = n_read(labels, k)
    hits = 0.0
    total = 0.0
    for i in range(kk):
        if labels[i] >= rel_threshold:
            hits += 1.0
            total += hits / (i + 1.0)
    return total


@jit
def average_precision(labels, k, n_relevant, rel_threshold):
    if n_relevant == 0.0:
        return 0.0
    return precision_sum(labels, k, rel_threshold) / n_relevant


def _log_floor(values):
    return np.log(np.maximum(values, GM_FLOOR))


GEOMETRIC = Aggregate(
    _log_floor, math.exp, f"geometric mean, each value floored at {GM_FLOOR:g}"
)


def precision_sum_tensor(r, k, dtype):
    """precision_sum on tensors, per query, added in the same (rank) order."""
    on = r.inside(k) & r.row_rel
    hits = r.running(on).to(dtype)
    return r.sum(r.ops.zero_unless(on, hits / (r.row_pos.to(dtype) + 1.0)))


def average_precision_tensor(r, k, opts):
    dtype = opts["dtype"]
    total = precision_sum_tensor(r, k, dtype)
    big_r = r.n_relevant.to(dtype)
    return r.retrieved(r.ops.zero_unless(big_r != 0, total / r.ops.den(big_r))), None


declare(
    "gm_map",
    "Geometric mean of average precision over queries (trec_eval's floor 1e-5).",
    cutoff=False,
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    per_query=average_precision,
    depth="k",
    tensor=average_precision_tensor,
    aggregate=GEOMETRIC,
)


@jit
def yaap(labels, k, n_relevant, rel_threshold):
    total = precision_sum(labels, k, rel_threshold)
    return math.log((1.0 + total) / (1.0 + n_relevant - total))


def yaap_tensor(r, k, opts):
    import torch

    total = precision_sum_tensor(r, k, torch.float64)
    big_r = r.n_relevant.to(torch.float64)
    return r.ops.log((1.0 + total) / (1.0 + big_r - total)).to(opts["dtype"]), None


declare(
    "yaap",
    "Yet another AP: the log-odds log((1 + S) / (1 + R - S)) of AP's sum S "
    "of precisions at the relevant rows.",
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    scores_empty_lists=True,
    per_query=yaap,
    depth="k",
    tensor=yaap_tensor,
)
