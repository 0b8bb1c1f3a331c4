"""What other layers (the online package's resampling and A/B tests) may use of
the evaluation package's internals, named once so that no other package imports
its private modules."""

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
