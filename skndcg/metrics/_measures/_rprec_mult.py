"""Precision at multiples of R, and the 11-point interpolated precision, as
trec_eval 10.0 computes them.

``rprec_mult(mult=x)`` is trec_eval's ``Rprec_mult_x``: the precision at rank
``c = int(x * R + 0.9)`` (``R`` relevant rows in the query), counting a list
shorter than ``c`` as filled with non-relevant rows; 0 when ``c`` is 0.
``rprec_mult(mult=1)`` is R-precision.

``iprec_11pt`` is trec_eval's ``11pt_avg``: the mean of ``iprec`` at the recall
levels 0, 0.1, ..., 1 (see ``_iprec.py``).
"""

from .._catalogue._registry import Param, declare
from .._jit import jit
from ._iprec import iprec, iprec_at
from ._set import counts


@jit
def rprec_mult(labels, k, n_relevant, rel_threshold, mult):
    cut = int(mult * n_relevant + 0.9)
    if cut <= 0:
        return 0.0
    _, hits = counts(labels, cut, rel_threshold)
    return hits / cut


@jit
def iprec_11pt(labels, k, n_relevant, rel_threshold):
    total = 0.0
    for j in range(11):
        total += iprec(labels, k, n_relevant, rel_threshold, j / 10.0)
    return total / 11.0


def rprec_mult_tensor(r, k, opts):
    import torch

    mult = float(opts["params"]["mult"])
    # int(mult * R + 0.9), in float64 as the engine computes it.
    cut = (mult * r.n_relevant.to(torch.float64) + 0.9).to(torch.int64)
    on = (r.row_pos < cut[r.row_query]) & r.row_rel
    hits = r.sum(on.to(torch.int64))
    value = hits.to(torch.float64) / r.ops.den(cut).to(torch.float64)
    return r.retrieved(r.ops.zero_unless(cut > 0, value).to(opts["dtype"])), None


def iprec_11pt_tensor(r, k, opts):
    import torch

    total = torch.zeros(r.n_queries, dtype=torch.float64, device=r.row_pos.device)
    for j in range(11):
        total = total + iprec_at(r, j / 10.0)
    return r.retrieved((total / 11.0).to(opts["dtype"])), None


declare(
    "rprec_mult",
    "Precision at a multiple of R, the number of relevant rows.",
    params=(Param("mult", 1.0, "The multiple of R.", 0.0, open_low=True),),
    cutoff=False,
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    per_query=rprec_mult,
    form="sum",
    tensor=rprec_mult_tensor,
)
declare(
    "iprec_11pt",
    "Interpolated precision averaged over the recall levels 0, 0.1, ..., 1.",
    aliases=("pt11_avg",),
    cutoff=False,
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    per_query=iprec_11pt,
    tensor=iprec_11pt_tensor,
)
