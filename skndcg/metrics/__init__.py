"""Grouped ranking metrics on flat ``(y_true, y_score, qid)`` arrays.

Every function takes one row per (query, candidate): a relevance label, a score and
a query id of any hashable dtype, with queries of any sizes in any row order.
"""

from ._api._binary import (
    grouped_hit_rate_score,
    grouped_map_score,
    grouped_mrr_score,
    grouped_precision_score,
    grouped_recall_score,
)
from ._api._ranking import grouped_dcg_score, grouped_ndcg_score, grouped_ranking_scores
from ._api._report import ranking_report
from ._conventions import PRESETS as _PRESETS
from ._conventions import TREC_RUN_CONVENTION, get_convention

#: Names accepted by ``convention=``.
CONVENTIONS = tuple(sorted(_PRESETS))

# These load on first use, so that scoring alone starts fast: the scorers are
# built on scikit-learn, the beyond-accuracy metrics and recipes on pandas.
_LAZY = {
    "make_ndcg_scorer": "_api._scorer",
    "make_ranking_scorer": "_api._scorer",
    "catalog_coverage_score": "_beyond._coverage",
    "define_measure": "_catalogue._define",
    "undefine_measure": "_catalogue._define",
    "intra_list_diversity_score": "_beyond._coverage",
    "average_popularity_score": "_beyond._popularity",
    "calibration_score": "_beyond._calibration",
    "distributional_coverage_score": "_beyond._exposure",
    "exposure_entropy_score": "_beyond._exposure",
    "exposure_gini_score": "_beyond._exposure",
    "long_tail_recall_score": "_beyond._popularity",
    "novelty_score": "_beyond._popularity",
    "serendipity_score": "_beyond._popularity",
    "log_frequency_weights": "_api._recipes",
    "minmax_labels_per_query": "_api._recipes",
    "sqrt_gain": "_api._recipes",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_LAZY})


__all__ = [
    "CONVENTIONS",
    "TREC_RUN_CONVENTION",
    "average_popularity_score",
    "calibration_score",
    "catalog_coverage_score",
    "define_measure",
    "distributional_coverage_score",
    "exposure_entropy_score",
    "exposure_gini_score",
    "get_convention",
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
    "long_tail_recall_score",
    "make_ndcg_scorer",
    "make_ranking_scorer",
    "minmax_labels_per_query",
    "novelty_score",
    "ranking_report",
    "serendipity_score",
    "sqrt_gain",
    "undefine_measure",
]
