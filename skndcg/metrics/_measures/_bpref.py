"""bpref (Buckley & Voorhees, 2004), as trec_eval computes it.

Each relevant retrieved row scores ``1 - min(n, m) / m``, where ``n`` counts the
judged non-relevant rows ranked above it and ``m = min(R, N)`` (``R`` relevant
and ``N`` judged non-relevant rows of the query, retrieved or not; the row
scores 1 when ``n`` or ``m`` is 0); the sum is divided by ``R``. Unjudged rows
are ignored.

gm_bpref is bpref's geometric mean over queries, floored as gm_map's.
"""

from dataclasses import replace

from .._catalogue._registry import declare, register
from .._jit import jit, n_read
from ._ap_variants import GEOMETRIC


@jit
def bpref(labels, k, n_relevant, n_nonrelevant, rel_threshold):
    if n_relevant == 0.0:
        return 0.0
    kk = n_read(labels, k)
    m = min(n_relevant, n_nonrelevant)
    above = 0.0
    total = 0.0
    for i in range(kk):
        lab = labels[i]
        if lab != lab:  # NaN: unjudged, ignored
            continue
        if lab >= rel_threshold:
            if above > 0.0 and m > 0.0:
                total += 1.0 - min(above, m) / m
            else:
                total += 1.0
        else:
            above += 1.0
    return total / n_relevant


def bpref_tensor(r, k, opts):
    import torch

    dtype = opts["dtype"]
    on = r.inside(k)
    judged_row = on if r.row_unjudged is None else on & ~r.row_unjudged
    rel = judged_row & r.row_rel
    nonrel = (judged_row & ~rel).to(torch.int64)
    # Judged non-relevant rows ranked above each row, within its query.
    above = (r.running(nonrel) - nonrel).to(dtype)
    n_unjudged = 0 if r.n_unjudged is None else r.n_unjudged
    n_nonrel = (r.n_rows - r.n_relevant - n_unjudged).to(dtype)
    n_rel = r.n_relevant.to(dtype)
    m = torch.minimum(n_rel, n_nonrel)[r.row_query]
    term = torch.where(
        (above > 0) & (m > 0), 1.0 - torch.minimum(above, m) / r.ops.den(m), 1.0
    ).to(dtype)
    total = r.sum(torch.where(rel, term, torch.zeros_like(term)))
    value = torch.where(n_rel > 0, total / torch.clamp(n_rel, min=1.0), 0.0)
    return r.retrieved(value.to(dtype)), None


bpref_measure = declare(
    "bpref",
    "Binary preference: relevant rows ranked above judged non-relevant ones.",
    labels="binary",
    needs=("n_relevant", "n_nonrelevant", "rel_threshold"),
    unjudged="use",
    per_query=bpref,
    depth="k",
    tensor=bpref_tensor,
)
register(
    replace(
        bpref_measure,
        name="gm_bpref",
        description="Geometric mean of bpref over queries (trec_eval's floor 1e-5).",
        cutoff=False,
        aggregate=GEOMETRIC,
    )
)
