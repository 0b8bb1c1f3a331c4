"""Recall, from the fused block kernel."""

from .. import _blocks as B
from .._registry import Measure, register

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
