"""Measures of the judgments themselves: judged@k, and trec_eval's ``unj_k`` and
``num_nonrel_judged_ret`` (unj@k and nonrel_judged, in the user guide's
trec_eval page). ``judged@k`` (ir_measures' ``Judged@k``) is the share of the
top ``k`` that has a relevance judgement; a list shorter than ``k`` is divided
by its length.
"""

from .._catalogue._registry import declare
from .._jit import jit, n_read


@jit
def unj(labels, k):
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    count = 0
    for i in range(kk):
        if labels[i] != labels[i]:  # NaN: unjudged
            count += 1
    den = n if k is None else k
    return count / den if den > 0 else 0.0


@jit
def nonrel_judged(labels, k, rel_threshold):
    kk = n_read(labels, k)
    count = 0.0
    for i in range(kk):
        lab = labels[i]
        if lab == lab and lab < rel_threshold:
            count += 1.0
    return count


def unj_tensor(r, k, opts):
    import torch

    dtype = opts["dtype"]
    if r.row_unjudged is None:
        count = torch.zeros(r.n_queries, dtype=dtype, device=r.row_pos.device)
    else:
        count = r.hits(k, dtype, flag=r.row_unjudged)
    den = r.n_retrieved if k is None else torch.full_like(r.n_retrieved, k)
    value = count.to(torch.float64) / r.ops.den(den).to(torch.float64)
    return r.retrieved(r.ops.zero_unless(den > 0, value).to(dtype)), None


def nonrel_judged_tensor(r, k, opts):
    flag = ~r.row_rel
    if r.row_unjudged is not None:
        flag = flag & ~r.row_unjudged
    return r.retrieved(r.hits(k, opts["dtype"], flag=flag)), None


declare(
    "unj",
    "Unjudged: the share of the top k nobody judged, over k (trec_eval unj).",
    unjudged="use",
    empty_when="never",
    per_query=unj,
    depth="k",
    form="set",
    tensor=unj_tensor,
    higher_is_better=False,
)
declare(
    "nonrel_judged",
    "Retrieved rows judged not relevant, counted (num_nonrel_judged_ret).",
    needs=("rel_threshold",),
    unjudged="use",
    empty_when="never",
    per_query=nonrel_judged,
    depth="k",
    form="set",
    tensor=nonrel_judged_tensor,
    higher_is_better=False,
)


@jit
def judged(labels, k):
    kk = n_read(labels, k)
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


declare(
    "judged",
    "Judged: the share of the top k that is judged (unjudged rows are NaN).",
    unjudged="use",
    empty_when="never",
    per_query=judged,
    depth="k",
    form="set",
    tensor=judged_tensor,
)
