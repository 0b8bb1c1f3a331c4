"""The bootstrap of skndcg.evaluation, as the online estimators use it.

Counterfactual estimates and interleaving deltas are ratios of sums over
resampling units (queries or users), which is what
:func:`skndcg.evaluation.compare` resamples; they share its count-matrix
bootstrap rather than keeping their own.
"""

from ..evaluation._resampling import (
    as_generator,
    bootstrap_ratios,
    multinomial_counts,
    percentile_interval,
)

__all__ = [
    "as_generator",
    "bootstrap_ratios",
    "multinomial_counts",
    "percentile_interval",
]
