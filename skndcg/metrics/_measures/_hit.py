"""Hit rate, from the fused block kernel."""

from .._catalogue._registry import Measure, register
from .._core import _blocks as B

register(
    Measure(
        "hit",
        "Hit rate: 1 when a relevant row is in the top k, else 0.",
        aliases=("hit_rate", "hitrate"),
        labels="binary",
        block_kind=B.HIT,
        tensor="skndcg.torch._blocks:hit_rate",
    )
)
