"""The families of the fused block kernel (``_core/_blocks.py``): the DCG family,
average precision (MAP), reciprocal rank (MRR), precision, recall and hit rate.

The engine computes them from blocks of tied rows, exactly under
``ties="average"``; their tensor kernels are the functions of
``skndcg.torch._blocks``.
"""

from .._catalogue._registry import declare
from .._core import _blocks as B


def _family(kind: int, name: str, description: str, tensor: str, **fields) -> None:
    declare(
        name,
        description,
        block_kind=kind,
        tensor=f"skndcg.torch._blocks:{tensor}",
        **fields,
    )


_family(
    B.NDCG,
    "ndcg",
    "Normalised discounted cumulative gain: DCG over the DCG of the ideal order.",
    "ndcg",
    empty_when="ideal_zero",
)
_family(
    B.DCG,
    "dcg",
    "Discounted cumulative gain: gains divided by the discount of their rank.",
    "dcg",
    empty_when="ideal_zero",
)
_family(
    B.IDCG,
    "idcg",
    "DCG of the ideal order (every judged row, retrieved or not).",
    "idcg",
    empty_when="ideal_zero",
)
_family(
    B.AP,
    "map",
    "Average precision: mean of the precision at each relevant row.",
    "average_precision",
    aliases=("ap",),
    labels="binary",
)
_family(
    B.RR,
    "mrr",
    "Reciprocal rank of the first relevant row.",
    "reciprocal_rank",
    aliases=("rr",),
    labels="binary",
)
_family(
    B.PRECISION,
    "p",
    "Precision: the share of the top k that is relevant.",
    "precision",
    aliases=("precision",),
    labels="binary",
)
_family(
    B.RECALL,
    "r",
    "Recall: the share of the relevant rows found in the top k.",
    "recall",
    aliases=("recall",),
    labels="binary",
)
_family(
    B.HIT,
    "hit",
    "Hit rate: 1 when a relevant row is in the top k, else 0.",
    "hit_rate",
    aliases=("hit_rate", "hitrate"),
    labels="binary",
)
