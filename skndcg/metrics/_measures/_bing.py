"""binG, trec_eval's binary G (an experimental measure of trec_eval 8.0 on).

Each relevant retrieved row scores ``1 / log2(2 + m)``, with ``m`` the rows
ranked above it that are not relevant (judged or not); the sum is divided by
``R``, the relevant rows of the query. Between MAP and NDCG: a relevant row
loses only for the non-relevant rows above it.
"""

import math

from .._catalogue._registry import Measure, register
from .._jit import jit


@jit
def bin_g(labels, k, n_relevant, rel_threshold):
    if n_relevant == 0.0:
        return 0.0
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    above = 0.0
    total = 0.0
    for i in range(kk):
        if labels[i] >= rel_threshold:
            total += 1.0 / math.log2(2.0 + above)
        else:
            above += 1.0
    return total / n_relevant


def bin_g_tensor(r, k, opts):
    import torch

    on = r.inside(k) & r.row_rel
    above = r.row_pos - (r.running(on) - on.to(torch.int64))
    table = r.ops.log2_table(max(r.max_retrieved, 1), r.row_pos.device)
    term = r.ops.zero_unless(on, 1.0 / table[torch.clamp(above, min=0)])
    total = r.sum(term)
    big_r = r.n_relevant.to(torch.float64)
    value = r.ops.zero_unless(big_r != 0, total / r.ops.den(big_r))
    return r.retrieved(value.to(opts["dtype"])), None


register(
    Measure(
        "bin_g",
        "Binary G: 1 / log2(2 + non-relevant rows above) per relevant row, over R.",
        labels="binary",
        needs=("n_relevant", "rel_threshold"),
        per_query=bin_g,
        depth="k",
        tensor=bin_g_tensor,
    )
)
