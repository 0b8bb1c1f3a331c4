"""Uncertainty and comparison of ranking metrics over queries.

- :func:`compare` and :func:`compare_scores`: several models on the same
  queries, with bootstrap intervals, paired tests and corrections for
  multiple comparisons, returned as a :class:`Comparison`.
- :func:`cross_val_ranking_report`: out-of-fold per-query values from any
  estimator and cross-validation splitter, ready for :func:`compare`.
- :func:`bootstrap_ci`: percentile interval of a model's mean over queries.
- :func:`estimate_position_bias`: examination propensity per position from a
  click log, usable as ``discount=``.
- :func:`metric_over_time`: metrics per time window against a baseline, with
  alerts on significant drops.
- :func:`paired_bootstrap`: interval and p-value of the difference between two
  models scored on the same queries.

Per-query values come from :func:`skndcg.metrics.ranking_report`.
"""

from ._bootstrap import BootstrapCI, PairedBootstrap, bootstrap_ci, paired_bootstrap
from ._compare import compare, compare_scores
from ._comparison import Comparison
from ._cross_val import cross_val_ranking_report
from ._monitor import metric_over_time
from ._position_bias import PositionBias, estimate_position_bias

__all__ = [
    "BootstrapCI",
    "Comparison",
    "PairedBootstrap",
    "PositionBias",
    "bootstrap_ci",
    "compare",
    "compare_scores",
    "cross_val_ranking_report",
    "estimate_position_bias",
    "metric_over_time",
    "paired_bootstrap",
]
