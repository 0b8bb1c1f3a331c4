"""Inferred AP (Yilmaz & Aslam, 2006), as trec_eval 10.0 computes it.

For judgments made on a random sample of a pool. A retrieved row is not in the
pool (NaN label: nobody judged it), in the pool but not judged (-1: a negative
judgment under trec_eval's label rule), judged not relevant, or judged
relevant. Each judged relevant row adds its expected precision (the formula is
in the user guide's trec_eval page); the sum is divided by the number of judged
relevant rows.
"""

from .._catalogue._registry import declare
from .._jit import jit, n_read

EPSILON = 0.00001


@jit
def infap(labels, k, n_relevant, rel_threshold):
    kk = n_read(labels, k)
    rel = 0
    nonrel = 0
    unjudged = 0
    total = 0.0
    for j in range(kk):
        lab = labels[j]
        if lab != lab:  # NaN: not in the pool
            continue
        if lab < 0.0:  # in the pool, not judged
            unjudged += 1
            continue
        if lab < rel_threshold:
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            total += 1.0
        else:
            fj = float(j)
            pooled = (rel - 1 + nonrel + unjudged) / fj
            share = (rel - 1 + EPSILON) / (rel - 1 + nonrel + 2 * EPSILON)
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * pooled * share
    if n_relevant > 0.0:
        return total / n_relevant
    return total


def infap_tensor(r, k, opts):
    import torch

    f64 = torch.float64
    on = r.inside(k)
    unjudged = torch.zeros_like(on) if r.row_unjudged is None else r.row_unjudged
    pooled = torch.zeros_like(on) if r.row_pooled is None else r.row_pooled
    judged = on & ~unjudged
    rel = judged & r.row_rel
    nonrel = judged & ~r.row_rel
    pool = on & pooled
    rel_above = r.running(rel) - rel.to(torch.int64)
    nonrel_above = r.running(nonrel) - nonrel.to(torch.int64)
    pool_above = r.running(pool) - pool.to(torch.int64)
    fj = r.row_pos.to(f64)
    eps = 0.00001
    frac = (rel_above + nonrel_above + pool_above).to(f64) / r.ops.den(fj)
    share = (rel_above.to(f64) + eps) / ((rel_above + nonrel_above).to(f64) + 2 * eps)
    term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * frac * share
    term = torch.where(r.row_pos == 0, torch.ones_like(term), term)
    total = r.sum(r.ops.zero_unless(rel, term))
    big_r = r.n_relevant.to(f64)
    value = torch.where(big_r > 0, total / r.ops.den(big_r), total)
    return r.retrieved(value.to(opts["dtype"])), None


declare(
    "infap",
    "Inferred AP: AP estimated from judgments of a random sample of a pool.",
    aliases=("inf_ap",),
    cutoff=False,
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    unjudged="pool",
    per_query=infap,
    depth="k",
    tensor=infap_tensor,
)
