"""Cross-validation splitters for grouped, time-ordered ranking data."""

from ._split import GroupTimeSeriesSplit

__all__ = ["GroupTimeSeriesSplit"]
