"""Grouped ranking metrics on flat ``(y_true, y_score, qid)`` arrays.

Every function takes one row per (query, candidate): a relevance label, a score and
a query id of any hashable dtype, with queries of any sizes in any row order.
"""

from ._beyond import catalog_coverage_score, intra_list_diversity_score
from ._binary import (
    grouped_hit_rate_score,
    grouped_map_score,
    grouped_mrr_score,
    grouped_precision_score,
    grouped_recall_score,
)
from ._conventions import PRESETS as _PRESETS
from ._ranking import grouped_dcg_score, grouped_ndcg_score, grouped_ranking_scores
from ._recipes import log_frequency_weights, minmax_labels_per_query, sqrt_gain
from ._report import ranking_report

#: Names accepted by ``convention=``.
CONVENTIONS = tuple(sorted(_PRESETS))

# The scorers are built on scikit-learn, whose import costs most of this
# package's start-up; they load on first use, so scoring alone starts fast.
_SCORERS = ("make_ndcg_scorer", "make_ranking_scorer")


def __getattr__(name):
    if name in _SCORERS:
        from . import _scorer

        return getattr(_scorer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_SCORERS})


__all__ = [
    "CONVENTIONS",
    "catalog_coverage_score",
    "grouped_dcg_score",
    "grouped_hit_rate_score",
    "grouped_map_score",
    "grouped_mrr_score",
    "grouped_ndcg_score",
    "grouped_precision_score",
    "grouped_ranking_scores",
    "grouped_recall_score",
    "intra_list_diversity_score",
    "log_frequency_weights",
    "make_ndcg_scorer",
    "make_ranking_scorer",
    "minmax_labels_per_query",
    "ranking_report",
    "sqrt_gain",
]
