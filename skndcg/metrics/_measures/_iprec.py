"""Interpolated precision at a recall level, as trec_eval 10.0 computes it.

``iprec(recall=x)`` is trec_eval's ``iprec_at_recall_x``: the largest precision
at or below the rank where the ``c``-th relevant row is found, where
``c = lround(x * R)`` (``R`` relevant rows of the query; halves round away
from zero). It is 0 when the run finds fewer than ``c`` relevant rows.
(trec_eval 9.0.8's ``c`` differs; the user guide's trec_eval page says how.)
"""

import math

import numpy as np

from .._catalogue._registry import Param, declare
from .._jit import jit, numpy_twin


@jit
def iprec(labels, k, n_relevant, rel_threshold, recall):
    n = labels.shape[0]
    found = 0
    for i in range(n):
        if labels[i] >= rel_threshold:
            found += 1
    cut = math.floor(recall * n_relevant + 0.5)
    if cut > found:
        return 0.0
    best = found / n
    so_far = found
    i = n
    while i > 0 and so_far > 0:
        precision = so_far / i
        if precision > best:
            best = precision
        if labels[i - 1] >= rel_threshold:
            if so_far == cut:
                return best
            so_far -= 1
        i -= 1
    return best


@numpy_twin(iprec)
def _iprec_numpy(labels, k, n_relevant, rel_threshold, recall):
    # The loop's best precision, from the bottom of the list up to the row of
    # the cut-th relevant one, in numpy (with a cut of 0, the rows above the
    # first relevant one have precision 0 and change nothing).
    n = labels.shape[0]
    hits = np.cumsum(labels >= rel_threshold)
    found = int(hits[-1]) if n else 0
    cut = math.floor(recall * n_relevant + 0.5)
    if cut > found:
        return 0.0
    if found == 0:
        return found / n
    stop = int(np.searchsorted(hits, cut))
    return float((hits[stop:] / np.arange(stop + 1, n + 1)).max())


def iprec_at(r, recall):
    """On tensors, in float64: interpolated precision at ``recall`` per query,
    as the loop above finds it from the bottom of the list."""
    import torch

    device, rel = r.row_pos.device, r.row_rel
    count = r.running(rel)
    found = r.sum(rel.to(torch.int64))
    cut = torch.floor(recall * r.n_relevant.to(torch.float64) + 0.5).to(torch.int64)
    rank = r.row_pos + 1
    hit = rel & (count == torch.clamp(cut, min=1)[r.row_query])
    stop = torch.zeros(r.n_queries, dtype=torch.int64, device=device)
    stop = stop.scatter_reduce(0, r.row_query, torch.where(hit, rank, 0), "amax")
    precision = count.to(torch.float64) / rank.to(torch.float64)
    below = rank >= stop[r.row_query]
    best = torch.zeros(r.n_queries, dtype=torch.float64, device=device)
    best = best.scatter_reduce(
        0, r.row_query, torch.where(below, precision, 0.0), "amax"
    )
    n = r.n_retrieved.to(torch.float64)
    best = torch.maximum(best, found.to(torch.float64) / r.ops.den(n))
    return torch.where((cut > found) | (found == 0), torch.zeros_like(best), best)


def iprec_tensor(r, k, opts):
    value = iprec_at(r, float(opts["params"]["recall"]))
    return r.retrieved(value.to(opts["dtype"])), None


declare(
    "iprec",
    "Interpolated precision at a recall level: the best precision at or "
    "below the rank reaching it.",
    aliases=("iprec_at_recall",),
    params=(Param("recall", 0.0, "Recall level, from 0 to 1.", 0.0, 1.0),),
    cutoff=False,
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    per_query=iprec,
    tensor=iprec_tensor,
)
