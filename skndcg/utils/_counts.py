"""Checks of whole-number arguments: a number of rows read at a time (the
readers of :mod:`skndcg.io` and the streamed scoring of
:mod:`skndcg.streaming`) and any count with a least value."""

from numbers import Integral

import numpy as np


def check_rows(value, name):
    """Refuse a number of rows (or lines) read at a time other than an int >= 1."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int >= 1, got {value!r}.")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value!r}.")


def check_integer(name, value, low):
    """``value`` as an int; raise unless it is an integer (not a bool) >= ``low``."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    return int(value)
