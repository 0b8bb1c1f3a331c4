"""Average precision (MAP), from the fused block kernel."""

from .._catalogue._registry import Measure, register
from .._core import _blocks as B

register(
    Measure(
        "map",
        "Average precision: mean of the precision at each relevant row.",
        aliases=("ap",),
        labels="binary",
        block_kind=B.AP,
        tensor="skndcg.torch._blocks:average_precision",
    )
)
