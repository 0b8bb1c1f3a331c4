"""Precision, from the fused block kernel."""

from .. import _blocks as B
from .._registry import Measure, register

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
