"""judged@k: the share of the top k that has a relevance judgement.

As ir_measures' ``Judged@k``: a list shorter than k is divided by its length.
"""

from .._jit import jit
from .._registry import Measure, register


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


register(
    Measure(
        "judged",
        "Judged: the share of the top k that is judged (unjudged rows are NaN).",
        unjudged="use",
        empty_when="never",
        per_query=judged,
        depth="k",
        form="set",
    )
)
