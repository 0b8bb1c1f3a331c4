"""trec_eval 10.0's ``rbp`` and ``rbp_resid`` (``m_rbp.c``, ``m_rbp_resid.c``).

They differ from skndcg's ``rbp`` and ``rbp_resid`` (Moffat & Zobel's, as ranx
computes them) in three ways, all trec_eval's:

- **Gains.** Every grade is a gain, whatever the relevance level (``-l``): the
  row at rank ``i`` adds ``max(label, 0) * p**(i - 1)``. When the query's
  highest judgment ``L`` (over all its judged documents, retrieved or not) is
  above 1, the gains are first scaled into [0, 1] by dividing them by ``L``.
  ``m_rbp.c`` finds the range to scale with from two variables it never sets,
  so its value depends on what the measure computed before it left in memory.
  skndcg takes them as "no bound yet" (the range of the gains), which is what
  trec_eval 10.0 built with its own ``make`` prints for ``-m rbp`` alone and
  for ``-m all_trec``; other measure sets (``-m ndcg -m rbp``) or optimised
  builds can print other values.
- **Default persistence** ``p = 0.9``, where skndcg's and ranx's is 0.8.
- **The residual is 0 without unjudged rows.** With some, it is
  ``p**n + (1 - p) * sum_{unjudged i} p**(i - 1)`` over the ``n`` retrieved
  rows; a query with none prints 0 (skndcg's ``rbp_resid`` prints ``p**n``).
"""

from .._catalogue._registry import Measure, Param, register
from .._jit import jit
from ._rbp import rank_weights


@jit
def trec_rbp(labels, k, ideal, p):
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    top = ideal[0] if ideal.shape[0] > 0 else 0.0  # the query's highest grade
    total = 0.0
    w = 1.0
    for i in range(kk):
        x = labels[i]
        if x > 0.0:  # NaN (unjudged) and negative grades gain nothing
            gain = x / top if top > 1.0 else x
            total += gain * w
        w *= p
    return (1.0 - p) * total


@jit
def trec_rbp_resid(labels, k, p):
    n = labels.shape[0]
    total = 0.0
    w = 1.0
    unjudged = 0
    for i in range(n):
        if labels[i] != labels[i]:  # NaN: unjudged
            unjudged += 1
            total += w
        w *= p
    if unjudged == 0:
        return 0.0
    return w + (1.0 - p) * total


def trec_rbp_tensor(r, k, opts):
    import torch

    dtype, p = opts["dtype"], opts["params"]["p"]
    w, pos = rank_weights(r, k, p, dtype)
    labels = torch.nan_to_num(r.all_label.to(torch.float64), nan=0.0)
    top = torch.zeros(r.n_queries, dtype=torch.float64, device=labels.device)
    top = top.scatter_reduce(0, r.all_query, labels, "amax", include_self=True)
    scale = torch.where(top > 1.0, top, torch.ones_like(top)).to(dtype)
    y = r.row_label
    on = r.inside(k) & (y > 0)
    gain = y / scale[r.row_query]
    total = r.sum(torch.where(on, gain * w[pos], torch.zeros_like(y)))
    return r.retrieved((1.0 - p) * total), None


def trec_rbp_resid_tensor(r, k, opts):
    import torch

    dtype, p = opts["dtype"], opts["params"]["p"]
    y = r.row_label
    if r.row_unjudged is None:
        return torch.zeros(r.n_queries, dtype=dtype, device=y.device), None
    w = r.ops.weights(p, r.max_retrieved + 1, dtype, r.row_pos.device)
    on = r.row_unjudged
    pos = torch.clamp(r.row_pos, max=r.max_retrieved)
    total = r.sum(torch.where(on, w[pos], torch.zeros_like(y)))
    value = w[r.n_retrieved] + (1.0 - p) * total
    return torch.where(
        r.sum(on.to(torch.int64)) > 0, value, torch.zeros_like(value)
    ), None


_P = Param(
    "p", 0.9, "Persistence: the chance of going on to the next rank.", 0.0, 1.0,
    open_low=True, open_high=True,
)  # fmt: skip
register(
    Measure(
        "trec_rbp",
        "trec_eval's rbp: RBP of every grade, scaled into [0, 1] by the query's "
        "highest grade when that is above 1.",
        params=(_P,),
        needs=("ideal",),
        empty_when="never",
        per_query=trec_rbp,
        depth="k",
        form="sum",
        tensor=trec_rbp_tensor,
    )
)
register(
    Measure(
        "trec_rbp_resid",
        "trec_eval's rbp_resid: RBP's residual over the retrieved rows, 0 when "
        "none is unjudged.",
        params=(_P,),
        cutoff=False,
        unjudged="use",
        empty_when="never",
        per_query=trec_rbp_resid,
        tensor=trec_rbp_resid_tensor,
        higher_is_better=False,
    )
)
