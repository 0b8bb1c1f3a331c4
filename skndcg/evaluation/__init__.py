"""Uncertainty of ranking metrics: bootstrap intervals over queries.

- :func:`bootstrap_ci`: percentile interval of a model's mean over queries.
- :func:`paired_bootstrap`: interval and p-value of the difference between two
  models scored on the same queries.

Per-query values come from :func:`skndcg.metrics.ranking_report`.
"""

from ._bootstrap import BootstrapCI, PairedBootstrap, bootstrap_ci, paired_bootstrap

__all__ = [
    "BootstrapCI",
    "PairedBootstrap",
    "bootstrap_ci",
    "paired_bootstrap",
]
