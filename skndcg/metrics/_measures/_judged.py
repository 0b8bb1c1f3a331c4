"""judged@k: the share of the top k that has a relevance judgement.

As ir_measures' ``Judged@k``: a list shorter than k is divided by its length.
"""

from .._catalogue._registry import Measure, register
from .._jit import jit


@jit
def judged(labels, k):
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    if kk == 0:
        return 0.0
    count = 0
    for i in range(kk):
        if labels[i] == labels[i]:  # not NaN: judged
            count += 1
    return count / kk


def judged_tensor(r, k, opts):
    import torch

    dtype = opts["dtype"]
    on = r.inside(k)
    if r.row_unjudged is not None:
        on = on & ~r.row_unjudged
    count = r.sum(on.to(torch.int64))
    kk = r.kk(k)
    value = torch.where(kk > 0, count.to(dtype) / torch.clamp(kk, min=1).to(dtype), 0.0)
    return r.retrieved(value.to(dtype)), None


register(
    Measure(
        "judged",
        "Judged: the share of the top k that is judged (unjudged rows are NaN).",
        unjudged="use",
        empty_when="never",
        per_query=judged,
        depth="k",
        form="set",
        tensor=judged_tensor,
    )
)
