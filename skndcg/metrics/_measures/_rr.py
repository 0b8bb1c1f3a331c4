"""Reciprocal rank (MRR), from the fused block kernel."""

from .._catalogue._registry import Measure, register
from .._core import _blocks as B

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
