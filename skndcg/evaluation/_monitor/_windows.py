"""Time stamps and window lengths of metric_over_time and compare_over_time."""

from __future__ import annotations

import numpy as np
import pandas as pd


def check_freq(freq):
    """A fixed window length as a Timedelta, or a clear error."""
    try:
        step = pd.Timedelta(pd.tseries.frequencies.to_offset(freq))
    except (ValueError, TypeError):
        raise ValueError(
            f"freq={freq!r} is not a fixed window length; expected one such as "
            "'5min', '1h' or '1D' (calendar lengths like 'MS' vary)."
        ) from None
    if step <= pd.Timedelta(0):
        raise ValueError(f"freq={freq!r} must be a positive length.")
    return step


def check_columns(data, named):
    """Raise unless every ``(argument, column)`` of ``named`` names a column of
    ``data``."""
    for name, col in named:
        if not isinstance(col, str) or col not in data.columns:
            raise ValueError(
                f"with data=, {name} must name one of its columns "
                f"{list(data.columns)}, got {col!r}."
            )


#: Units a number of a time column may be read in: time since the epoch.
TIME_UNITS = ("s", "ms", "us", "ns")


# A date written day and month first, in either order: 02/01/2024, 2.1.24 10:00.
_DAY_MONTH = r"^\s*(\d{1,2})[/.-](\d{1,2})[/.-]\d"


def as_times(time, n, name="time", unit=None, fmt=None, column=None):
    """Datetimes from datetimes or strings (in the format ``fmt``, when
    given); numbers only with their ``unit`` (time since 1970-01-01 UTC),
    which is never guessed, nor is the order of a date's day and month: that
    order is read from ``column`` (default ``time`` itself), such as the
    :func:`day_first_witnesses` of a whole column ``time`` is a part of."""
    t = pd.Series(np.asarray(time) if not isinstance(time, pd.Series) else time)
    if len(t) != n:
        raise ValueError(
            f"{name} must hold one value per row ({n} values), got {len(t)}."
        )
    numeric = pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t)
    if numeric and fmt is not None:
        raise ValueError(
            f"time_format= reads strings, but {name} holds numbers; pass "
            "time_unit= alone."
        )
    if unit is not None and not numeric:
        raise ValueError(
            f"time_unit={unit!r} reads numbers, but {name} holds {t.iloc[0]!r}, "
            "not a number; without time_unit= strings are read as datetimes "
            "(time_format= says how)."
        )
    if numeric:
        if unit is None:
            raise ValueError(
                f"{name} holds numbers ({t.dtype}), not datetimes: read as a "
                "time since 1970-01-01 UTC they need their unit, pass "
                f"time_unit='s' (or one of {list(TIME_UNITS[1:])}), or convert "
                "the column to datetimes first."
            )
        out = pd.to_datetime(t, unit=unit)
    else:
        witnesses = t if column is None else column
        options = {"format": fmt} if fmt is not None else _day_first(witnesses, name)
        try:  # (as instants: a column may hold two UTC offsets, across a DST change)
            out = pd.to_datetime(t, utc=True, **options)
        except (ValueError, TypeError) as exc:
            # pandas' advice ("passing `format`") names an option we lack.
            why = str(exc).split(" You might want to try")[0]
            raise ValueError(
                f"{name} must hold datetimes (or strings pandas can read as "
                f"datetimes, or numbers with time_unit=): {why}"
            ) from None
    if out.isna().any():
        raise ValueError(
            f"{name} has {int(out.isna().sum())} missing value(s), first at row "
            f"{int(np.flatnonzero(out.isna().to_numpy())[0])}."
        )
    if out.dt.tz is not None:
        out = out.dt.tz_convert("UTC").dt.tz_localize(None)
    return out.reset_index(drop=True)


def holds_text(t):
    """Whether ``t`` (a Series, or a Dask frame's meta of one) holds strings."""
    return t.dtype.kind in "OSU" or pd.api.types.is_string_dtype(t)


def day_first_witnesses(t):
    """The few strings of ``t`` that tell :func:`_day_first` what all of ``t``
    tells: its first date written day and month first, and those with the
    largest first and second fields (so parts of a column can be read alike)."""
    if not holds_text(t):
        return t.iloc[:0]
    fields = t.astype(str).str.extract(_DAY_MONTH).reset_index(drop=True).dropna()
    if fields.empty:
        return t.iloc[:0]
    return t.iloc[[fields.index[0], *fields.astype(int).idxmax()]]


def _day_first(t, name):
    """``{"dayfirst": ...}`` for strings written day and month first, as the
    column tells; pandas would guess month first. Refused when no value (or
    every order) tells."""
    if not holds_text(t):
        return {}
    text = pd.Series(t.dropna().unique()).astype(str)
    fields = text.str.extract(_DAY_MONTH).dropna()
    if fields.empty:
        return {}
    first, second = fields.astype(int).max()
    if (first > 12) == (second > 12):
        example = text[fields.index[0]]
        why = (
            "mixes day-first and month-first dates"
            if first > 12
            else "holds dates whose day and month cannot be told apart"
        )
        raise ValueError(
            f"{name} {why}, such as {example!r}; say which with time_format= "
            "(such as '%d/%m/%Y %H:%M', day first, or '%m/%d/%Y %H:%M'), or "
            "write the times in ISO 8601 ('2024-01-02 10:00')."
        )
    return {"dayfirst": bool(first > 12)}
