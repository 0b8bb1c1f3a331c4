"""R-precision: precision at R, the number of relevant rows of the query."""

from .._catalogue._registry import Measure, register
from .._jit import jit


@jit
def rprec(labels, k, n_relevant, rel_threshold):
    r = int(n_relevant)
    if r == 0:
        return 0.0
    hits = 0
    for i in range(min(r, labels.shape[0])):
        if labels[i] >= rel_threshold:
            hits += 1
    return hits / r


def rprec_tensor(r, k, opts):
    import torch

    dtype = opts["dtype"]
    n_rel = r.n_relevant
    on = (r.row_pos < n_rel[r.row_query]) & r.row_rel
    hits = r.sum(on.to(torch.int64))
    value = r.ops.zero_unless(n_rel > 0, hits.to(dtype) / r.ops.den(n_rel).to(dtype))
    return r.retrieved(value.to(dtype)), None


register(
    Measure(
        "rprec",
        "R-precision: the share of the top R that is relevant (R relevant rows).",
        aliases=("r_precision",),
        cutoff=False,
        labels="binary",
        needs=("n_relevant", "rel_threshold"),
        per_query=rprec,
        form="sum",
        tensor=rprec_tensor,
    )
)
