"""Plots for skndcg objects (matplotlib is imported only when a plot is drawn)."""

from ._compare import plot_comparison, plot_metric_at_k, plot_paired
from ._forest import plot_forest
from ._monitor import plot_metric_over_time
from ._splits import plot_group_time_splits

__all__ = [
    "plot_comparison",
    "plot_forest",
    "plot_group_time_splits",
    "plot_metric_at_k",
    "plot_metric_over_time",
    "plot_paired",
]
