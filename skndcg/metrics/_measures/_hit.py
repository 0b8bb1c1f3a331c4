"""Hit rate, from the fused block kernel."""

from .. import _blocks as B
from .._registry import Measure, register

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
