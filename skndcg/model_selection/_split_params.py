"""Validation and parsing of GroupTimeSeriesSplit parameters (a size parameter's
type states its unit)."""

from __future__ import annotations

import datetime
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

BALANCE_OPTIONS = ("groups", "rows", "time")
ON_OVERLAP_OPTIONS = ("purge", "raise")


@dataclass(frozen=True)
class Size:
    """A parsed size parameter.

    ``kind`` is one of ``"groups"`` (int), ``"fraction"`` (float),
    ``"duration"`` (``value`` in nanoseconds) or ``"freq"`` (``value`` is the
    frequency as given). ``raw`` is the user's value, kept for messages.
    """

    kind: str
    value: object
    raw: object

    @property
    def is_time(self):
        return self.kind in ("duration", "freq")


def store_arguments(obj, arguments):
    """Store every argument of an ``__init__`` (its ``locals()``) under its name."""
    for name, value in arguments.items():
        if name != "self":
            setattr(obj, name, value)


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(
        value, bool | np.bool_
    )


def _duration_ns(value):
    """Nanoseconds of a duration object or string, or ``None`` if it is not one."""
    if isinstance(value, str):
        try:
            delta = pd.Timedelta(value)
        except (ValueError, TypeError):
            return None
    elif isinstance(value, pd.Timedelta | datetime.timedelta | np.timedelta64):
        delta = pd.Timedelta(value)
    else:
        return None
    if pd.isna(delta):
        return None
    return int(delta.value)


def _is_period_freq(value):
    if not isinstance(value, str | pd.DateOffset):
        return False
    try:
        pd.Period("2000-01-01", freq=value)
    except (ValueError, TypeError, AttributeError):
        return False
    return True


def parse_count(name, value, *, allow_none=False):
    """Parse ``n_splits`` / ``min_train_size``: an int >= 1 (or ``None``)."""
    if value is None and allow_none:
        return None
    if _is_int(value) and value >= 1:
        return int(value)
    what = "an int >= 1 or None" if allow_none else "an int >= 1 (number of groups)"
    raise ValueError(f"{name} must be {what}, got {value!r}")


def parse_test_size(test_size):
    """Parse ``test_size`` into a :class:`Size` (or ``None``)."""
    if test_size is None:
        return None
    if _is_int(test_size):
        if test_size >= 1:
            return Size("groups", int(test_size), test_size)
        raise ValueError(
            f"test_size must be an int >= 1 (number of groups), a float in (0, 1), "
            f"a duration such as '90D' or a frequency such as 'W-MON', "
            f"got {test_size!r}"
        )
    if isinstance(test_size, numbers.Real) and not isinstance(test_size, bool):
        if 0.0 < float(test_size) < 1.0:
            return Size("fraction", float(test_size), test_size)
        raise ValueError(
            f"test_size as a float must be a fraction in (0, 1), got {test_size!r}"
        )
    ns = _duration_ns(test_size)
    if ns is not None:
        if ns <= 0:
            raise ValueError(
                f"test_size must be a positive duration, got {test_size!r}"
            )
        return Size("duration", ns, test_size)
    if _is_period_freq(test_size):
        return Size("freq", test_size, test_size)
    if isinstance(test_size, str):
        raise ValueError(
            f"test_size={test_size!r} is neither a duration (pd.Timedelta) nor a "
            f"pandas period frequency"
        )
    raise ValueError(
        f"test_size must be None, an int >= 1 (number of groups), a float in "
        f"(0, 1), a duration such as '90D' or a frequency such as 'W-MON', "
        f"got {test_size!r}"
    )


def parse_groups_or_duration(name, value, *, minimum, allow_none=False):
    """Parse ``gap`` / ``max_train_size``: an int >= minimum or a duration."""
    if value is None and allow_none:
        return None
    if _is_int(value) and value >= minimum:
        return Size("groups", int(value), value)
    ns = _duration_ns(value)
    if ns is not None and (ns > 0 or (ns == 0 and minimum == 0)):
        return Size("duration", ns, value)
    none = "None, " if allow_none else ""
    raise ValueError(
        f"{name} must be {none}an int >= {minimum} (number of groups) or a "
        f"{'non-negative' if minimum == 0 else 'positive'} duration such as "
        f"'1D', got {value!r}"
    )


def parse_choice(name, value, options):
    """Check that ``value`` is one of ``options``."""
    if isinstance(value, str) and value in options:
        return value
    listed = ", ".join(repr(o) for o in options)
    raise ValueError(f"{name} must be one of {listed}, got {value!r}")


def parse_column(name, value):
    """A column name is ``None``, a str or an int."""
    if value is None or isinstance(value, str) or _is_int(value):
        return value
    raise ValueError(
        f"{name} must be None or a column name (str or int), got {value!r}"
    )


@dataclass(frozen=True)
class Params:
    """All parameters of a GroupTimeSeriesSplit, validated and parsed."""

    n_splits: int | None
    test_size: Size | None
    gap: Size
    max_train_size: Size | None
    min_train_size: int
    balance: str
    on_overlap: str
    group_col: object
    time_col: object

    @property
    def time_params(self):
        """``(name, Size)`` of every parameter that needs datetime time."""
        pairs = [(n, getattr(self, n)) for n in ("test_size", "gap", "max_train_size")]
        return [(n, size) for n, size in pairs if size is not None and size.is_time]


def parse_params(cv):
    """Validate every parameter of ``cv`` and return a :class:`Params`."""
    n_splits = parse_count("n_splits", cv.n_splits, allow_none=True)
    test_size = parse_test_size(cv.test_size)
    gap = parse_groups_or_duration("gap", cv.gap, minimum=0)
    max_train_size = parse_groups_or_duration(
        "max_train_size", cv.max_train_size, minimum=1, allow_none=True
    )
    min_train_size = parse_count("min_train_size", cv.min_train_size)
    balance = parse_choice("balance", cv.balance, BALANCE_OPTIONS)
    on_overlap = parse_choice("on_overlap", cv.on_overlap, ON_OVERLAP_OPTIONS)
    if n_splits is None and test_size is None:
        raise ValueError(
            "n_splits=None requires test_size (int, duration or frequency)"
        )
    if balance != "groups" and test_size is not None and test_size.kind != "fraction":
        raise ValueError(
            f"balance={balance!r} only applies when test_size is None or a float; "
            f"got test_size={test_size.raw!r}, whose type sets the unit"
        )
    return Params(
        n_splits=n_splits,
        test_size=test_size,
        gap=gap,
        max_train_size=max_train_size,
        min_train_size=min_train_size,
        balance=balance,
        on_overlap=on_overlap,
        group_col=parse_column("group_col", cv.group_col),
        time_col=parse_column("time_col", cv.time_col),
    )
