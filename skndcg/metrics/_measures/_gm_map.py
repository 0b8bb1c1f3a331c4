"""gm_map: the geometric mean of average precision, as trec_eval computes it.

Each query's value is its average precision (the mean of the precision at each
relevant retrieved row, over the query's ``R`` relevant rows); the summary is
``exp(mean(log(max(AP, 1e-5))))``, trec_eval's ``MIN_GEO_MEAN`` floor keeping a
query with AP 0 from zeroing the mean. trec_eval prints no per-query value for
it; ``ranking_report`` shows the query's AP.
"""

import math

import numpy as np

from .._jit import jit
from .._registry import Aggregate, Measure, register

#: trec_eval's floor of a query's AP in the geometric mean (``MIN_GEO_MEAN``).
GM_FLOOR = 1e-5


@jit
def average_precision(labels, k, n_relevant, rel_threshold):
    if n_relevant == 0.0:
        return 0.0
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    hits = 0.0
    total = 0.0
    for i in range(kk):
        if labels[i] >= rel_threshold:
            hits += 1.0
            total += hits / (i + 1.0)
    return total / n_relevant


def _log_floor(values):
    return np.log(np.maximum(values, GM_FLOOR))


GEOMETRIC = Aggregate(
    _log_floor, math.exp, f"geometric mean, each value floored at {GM_FLOOR:g}"
)

register(
    Measure(
        "gm_map",
        "Geometric mean of average precision over queries (trec_eval's floor 1e-5).",
        cutoff=False,
        labels="binary",
        needs=("n_relevant", "rel_threshold"),
        per_query=average_precision,
        depth="k",
        aggregate=GEOMETRIC,
    )
)
