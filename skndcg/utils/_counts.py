"""The check of a number of rows (or lines) read at a time, shared by the
readers of :mod:`skndcg.io` and the streamed scoring of
:mod:`skndcg.streaming`."""

from __future__ import annotations

import numpy as np


def check_rows(value, name):
    """Refuse a number of rows (or lines) read at a time other than an int >= 1."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int >= 1, got {value!r}.")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value!r}.")
