"""What other layers may use of the evaluation package's internals.

The online package resamples queries and users with the count-matrix bootstrap
of :func:`compare` (counterfactual estimates and interleaving deltas are ratios
of sums over resampling units, as compare's statistics are), and its A/B tests
correct p-values and intervals for several comparisons, pick metric columns,
order arms and word examples in messages as :func:`compare` does. These are
named here, once, so that no other package imports the evaluation package's
private modules.
"""

from ._compare._inputs import (
    check_metric_columns,
    examples_text,
    metric_columns,
    metric_names,
    sorted_unique,
)
from ._stats._resampling import (
    align_on,
    as_generator,
    bootstrap_ratios,
    check_length,
    check_resamples,
    multinomial_counts,
    percentile_interval,
)
from ._stats._significance import adjust_p_values, corrected_confidence

__all__ = [
    "adjust_p_values",
    "align_on",
    "as_generator",
    "bootstrap_ratios",
    "check_length",
    "check_metric_columns",
    "check_resamples",
    "corrected_confidence",
    "examples_text",
    "metric_columns",
    "metric_names",
    "multinomial_counts",
    "percentile_interval",
    "sorted_unique",
]
