"""Plots for skndcg objects (matplotlib is imported only when a plot is drawn)."""

from ._splits import plot_group_time_splits

__all__ = ["plot_group_time_splits"]
