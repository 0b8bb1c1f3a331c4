"""Checks and units shared by everything that reads an interaction log (user,
item, time in Unix seconds)."""

import numpy as np
import pandas as pd

from ._values import py

#: Seconds in a day.
DAY = 86_400
#: Unix seconds of 5138-11-16: numeric times at or above it are not seconds.
MILLISECONDS_FROM = 100_000_000_000


def check_frame(log, name, columns):
    """Refuse anything but a DataFrame holding ``columns`` without missing values."""
    if not isinstance(log, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas DataFrame with columns {list(columns)}, got "
            f"{type(log).__name__}."
        )
    missing = [c for c in columns if c not in log.columns]
    if missing:
        raise ValueError(
            f"{name} is missing the column(s) {missing}; expected at least "
            f"{list(columns)}, got {list(log.columns)}."
        )
    for col in columns:
        missing = log[col].isna().to_numpy()
        if missing.any():
            raise ValueError(
                f"{name}[{col!r}] has {int(missing.sum())} missing values (first "
                f"at row {int(np.flatnonzero(missing)[0])})."
            )


def check_seconds(values, name):
    """Refuse numeric timestamps that are not finite or look like milliseconds
    (:data:`MILLISECONDS_FROM`, which any date after 1973-03-03 in milliseconds
    passes) where seconds are due; datetime values pass unchanged."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "iuf" or arr.size == 0:
        return
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(
            f"{name} holds {bad.size} value(s) that are not finite (first: "
            f"{py(arr.flat[bad[0]])!r} at position {bad[0]}); Unix timestamps in "
            "seconds must be finite numbers."
        )
    top = float(np.max(np.abs(arr)))
    if top >= MILLISECONDS_FROM:
        raise ValueError(
            f"{name} holds Unix timestamps in seconds, but its largest value "
            f"{arr.flat[int(np.argmax(np.abs(arr)))]!r} is in the range of "
            "milliseconds (>= 1e11 s would be after the year 5138); divide the "
            "column by 1000 (or pass datetime64 values)."
        )


def check_no_duplicates(log, name, columns):
    """Refuse a log where one (user, item, time) appears on several rows."""
    dup = log.duplicated(subset=list(columns), keep=False).to_numpy()
    if dup.any():
        first = log.loc[dup, list(columns)].iloc[0].tolist()
        raise ValueError(
            f"{name} has {int(dup.sum())} rows that repeat a "
            f"({', '.join(columns)}) triple, for example {first}; one "
            "interaction must be one row (aggregate or drop the duplicates "
            "first, e.g. log.drop_duplicates(subset=[...]))."
        )


def unique_ids(frame, name, column):
    """``np.unique(frame[column], return_inverse=True)``; ids of mixed kinds
    (``1`` and ``"a"``), which have no order, named."""
    values = frame[column].to_numpy()
    try:
        return np.unique(values, return_inverse=True)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in values})
        raise TypeError(
            f"{name}[{column!r}] mixes ids of the kinds {', '.join(kinds)}; ids "
            "must be of one kind (cast the column, e.g. .astype(str))."
        ) from None


def codes(values, uniques):
    """Positions of ``values`` in the sorted ``uniques`` and a mask of the known."""
    values = np.asarray(values)
    if uniques.size == 0:
        return np.zeros(values.size, dtype=np.int64), np.zeros(values.size, bool)
    pos = np.minimum(np.searchsorted(uniques, values), uniques.size - 1)
    return pos.astype(np.int64), uniques[pos] == values


def periods(ts, window):
    """Period ordinal of each time (Unix seconds), the sorted distinct ordinals
    and their starts (datetime64[s]): a time is in the period of its whole
    second, as periods start on whole seconds."""
    stamps = pd.to_datetime(np.floor(ts).astype(np.int64), unit="s")
    ordinal = np.asarray(stamps.to_period(window).asi8, dtype=np.int64)
    uniq = np.unique(ordinal)
    starts = pd.PeriodIndex.from_ordinals(uniq, freq=window).start_time
    return ordinal, uniq, starts.as_unit("s").to_numpy()
