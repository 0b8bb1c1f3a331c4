"""Precision, from the fused block kernel."""

from .._catalogue._registry import Measure, register
from .._core import _blocks as B

register(
    Measure(
        "p",
        "Precision: the share of the top k that is relevant.",
        aliases=("precision",),
        labels="binary",
        block_kind=B.PRECISION,
        tensor="skndcg.torch._blocks:precision",
    )
)
