"""Uncertainty and comparison of ranking metrics over queries.

- :func:`compare` and :func:`compare_scores`: several models on the same
  queries, with bootstrap intervals, paired tests and corrections for
  multiple comparisons, returned as a :class:`Comparison`.
- :func:`cross_val_ranking_report`: out-of-fold per-query values from any
  estimator and cross-validation splitter, ready for :func:`compare`.
- :func:`full_catalogue_report`: every user ranked against every eligible item,
  per-user values for :func:`compare`.
- :func:`sampled_metric_estimates`: metrics on sampled candidates, raw and
  corrected (Krichene & Rendle, 2020).
- :func:`bootstrap_ci`: percentile interval of a model's mean over queries.
- :func:`estimate_position_bias`: examination propensity per position from a
  click log, usable as ``discount=``.
- :func:`metric_over_time`: metrics per time window against a baseline, with
  alerts on significant drops; :func:`explain_change`: a change of a mean
  split into segment mix and within-segment change; :func:`compare_over_time`:
  rankers on the same logged requests (shadow traffic), compared per window.
- :func:`paired_bootstrap`: interval and p-value of the difference between two
  models scored on the same queries.
- :func:`prediction_powered_report`: metrics from a model's labels (an LLM
  judge) corrected by a human sample, with :func:`judge_agreement`,
  :func:`prediction_powered_queries` and :func:`choose_queries_to_judge`.

Per-query values come from :func:`skndcg.metrics.ranking_report`.
"""

from ._compare._api import compare, compare_scores
from ._compare._result import Comparison
from ._compare._segment_rules import (
    cold_item_segments,
    frequency_segments,
    history_segments,
)
from ._compare._segmented_result import SegmentedComparison
from ._monitor._explain import explain_change
from ._monitor._over_time import metric_over_time
from ._monitor._shadow import compare_over_time
from ._position._bias import PositionBias, estimate_position_bias
from ._ppi._comparison import PredictionPoweredComparison
from ._ppi._judge import (
    choose_queries_to_judge,
    judge_agreement,
    prediction_powered_queries,
)
from ._ppi._report import prediction_powered_report
from ._protocols._cross_val import cross_val_ranking_report
from ._protocols._full_catalogue import full_catalogue_report
from ._protocols._sampled import sampled_metric_estimates
from ._stats._bootstrap import (
    BootstrapCI,
    PairedBootstrap,
    bootstrap_ci,
    paired_bootstrap,
)
from ._stats._planning import minimum_detectable_effect, required_queries
from ._stats._small_sample import SmallSampleWarning

__all__ = [
    "BootstrapCI",
    "Comparison",
    "PairedBootstrap",
    "PositionBias",
    "PredictionPoweredComparison",
    "SegmentedComparison",
    "SmallSampleWarning",
    "bootstrap_ci",
    "choose_queries_to_judge",
    "cold_item_segments",
    "compare",
    "compare_over_time",
    "compare_scores",
    "cross_val_ranking_report",
    "estimate_position_bias",
    "explain_change",
    "frequency_segments",
    "full_catalogue_report",
    "history_segments",
    "judge_agreement",
    "metric_over_time",
    "minimum_detectable_effect",
    "paired_bootstrap",
    "prediction_powered_queries",
    "prediction_powered_report",
    "required_queries",
    "sampled_metric_estimates",
]
