"""Recall, from the fused block kernel."""

from .._catalogue._registry import Measure, register
from .._core import _blocks as B

register(
    Measure(
        "r",
        "Recall: the share of the relevant rows found in the top k.",
        aliases=("recall",),
        labels="binary",
        block_kind=B.RECALL,
        tensor="skndcg.torch._blocks:recall",
    )
)
