"""Relative precision at k, trec_eval's ``relative_P_k`` (see the user guide's
trec_eval page); 0 when the query has nothing relevant."""

from .._catalogue._registry import declare
from .._jit import jit
from ._set import counts


@jit
def relative_p(labels, k, n_relevant, rel_threshold):
    if n_relevant == 0.0:
        return 0.0
    _, hits = counts(labels, k, rel_threshold)
    best = n_relevant if k is None else min(n_relevant, float(k))
    return hits / best


def relative_p_tensor(r, k, opts):
    import torch

    dtype = opts["dtype"]
    big_r, h = r.n_relevant.to(dtype), r.hits(k, dtype)
    best = big_r if k is None else torch.clamp(big_r, max=float(k))
    return r.retrieved(r.ops.zero_unless(big_r != 0, h / r.ops.den(best))), None


declare(
    "relative_p",
    "Relative precision: relevant rows in the top k over min(R, k).",
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    per_query=relative_p,
    depth="k",
    form="set",
    tensor=relative_p_tensor,
)
