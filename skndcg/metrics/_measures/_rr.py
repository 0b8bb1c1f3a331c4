"""Reciprocal rank (MRR), from the fused block kernel."""

from .. import _blocks as B
from .._registry import Measure, register

register(
    Measure(
        "mrr",
        "Reciprocal rank of the first relevant row.",
        aliases=("rr",),
        labels="binary",
        block_kind=B.RR,
        tensor="skndcg.torch._blocks:reciprocal_rank",
    )
)
