"""The DCG family: NDCG, DCG and the ideal DCG, from the fused block kernel."""

from .._catalogue._registry import Measure, register
from .._core import _blocks as B

register(
    Measure(
        "ndcg",
        "Normalised discounted cumulative gain: DCG over the DCG of the ideal order.",
        empty_when="ideal_zero",
        block_kind=B.NDCG,
        tensor="skndcg.torch._blocks:ndcg",
    )
)
register(
    Measure(
        "dcg",
        "Discounted cumulative gain: gains divided by the discount of their rank.",
        empty_when="ideal_zero",
        block_kind=B.DCG,
        tensor="skndcg.torch._blocks:dcg",
    )
)
register(
    Measure(
        "idcg",
        "DCG of the ideal order (every judged row, retrieved or not).",
        empty_when="ideal_zero",
        block_kind=B.IDCG,
        tensor="skndcg.torch._blocks:idcg",
    )
)
