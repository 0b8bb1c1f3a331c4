"""trec_eval's yaap ("yet another AP", Robertson 2012; ``m_yaap.c``).

With ``S`` the sum of the precisions at the relevant rows of the ranking (AP
times ``R``, the query's relevant rows), ``log((1 + S) / (1 + R - S))``: the
log-odds of a smoothed AP, monotonic with AP on one query but bounded and
nearly symmetric, so that its mean over queries is less driven by the queries
near 0 or 1. A query with nothing retrieved is scored too: ``-log(1 + R)``,
as trec_eval prints it.
"""

import math

from .._catalogue._registry import Measure, register
from .._jit import jit
from ._gm_map import precision_sum, precision_sum_tensor


@jit
def yaap(labels, k, n_relevant, rel_threshold):
    total = precision_sum(labels, k, rel_threshold)
    return math.log((1.0 + total) / (1.0 + n_relevant - total))


def yaap_tensor(r, k, opts):
    import torch

    total = precision_sum_tensor(r, k, torch.float64)
    big_r = r.n_relevant.to(torch.float64)
    return r.ops.log((1.0 + total) / (1.0 + big_r - total)).to(opts["dtype"]), None


register(
    Measure(
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
)
