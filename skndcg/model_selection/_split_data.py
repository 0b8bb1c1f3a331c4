"""Resolve and validate the groups and time a GroupTimeSeriesSplit works on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..utils._query_ids import is_polars_df, n_rows_of

#: The default group column, when ``group_col=None``: the query-id column name
#: QueryRanker and the scorers use by default.
DEFAULT_GROUP_COL = "qid"

NO_TIME = "no time given; row order is used as time"

GROUPS_MISSING = (
    "GroupTimeSeriesSplit requires groups: pass groups= to "
    "split/cross_validate/GridSearchCV.fit, set group_col, or give X a 'qid' "
    "column. With metadata routing on, a routed qid can serve as the groups: "
    "cv.set_split_request(groups='qid') and pass only qid=..."
)


@dataclass(frozen=True)
class SplitData:
    """Rows reduced to what the splitter needs.

    ``codes[i]`` is the rank of row i's group label among the sorted distinct
    labels ``labels``. ``t`` holds int64 nanoseconds since the epoch (UTC) for
    datetime time, otherwise the numeric time (row position for row order).
    """

    n_rows: int
    codes: np.ndarray
    labels: np.ndarray
    t: np.ndarray
    is_datetime: bool
    tz: object
    time_source: str


def _is_polars(obj):
    return type(obj).__module__.split(".")[0] == "polars"


def _column(X, col, param):
    columns = getattr(X, "columns", None)
    if columns is None:
        raise ValueError(
            f"{param}={col!r} not found in X: X is a {type(X).__name__}, not a "
            f"pandas or polars DataFrame"
        )
    if col not in list(columns):
        raise ValueError(f"{param}={col!r} not found in X (columns: {list(columns)})")
    return X[col]


def _has_column(X, col):
    columns = getattr(X, "columns", None)
    return col is not None and columns is not None and col in list(columns)


def _check_length(name, values, n_rows):
    try:
        n = n_rows_of(values)
    except TypeError:  # a scalar
        raise TypeError(
            f"{name} must hold one value per row of X, got {values!r}"
        ) from None
    if n != n_rows:
        raise ValueError(f"{name} has {n} rows but X has {n_rows}")


def _raise_missing(name, missing):
    where = np.flatnonzero(missing)
    if where.size:
        raise ValueError(
            f"{name} has {where.size} missing values (first at row {where[0]}); "
            f"drop or impute them"
        )


def _encode_groups(groups):
    """Row codes into the sorted distinct labels; reject missing labels."""
    if _is_polars(groups):
        _raise_missing("groups", groups.is_null().to_numpy())
        groups = groups.to_numpy()
    if not isinstance(groups, pd.Series | pd.Index | pd.Categorical):
        shape = np.shape(groups)
        if len(shape) != 1:
            raise ValueError(f"groups must be 1-dimensional, got shape {shape}")
        if not isinstance(groups, np.ndarray):
            # keeps mixed labels such as [1, "1"] apart (numpy would make both "1")
            groups = pd.Series(list(groups), dtype=object)
    codes, uniques = pd.factorize(groups, use_na_sentinel=True)
    _raise_missing("groups", codes < 0)
    uniques = np.asarray(uniques)
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError as exc:
        kinds = sorted({type(u).__name__ for u in uniques.tolist()})
        raise TypeError(
            "group labels must be mutually comparable (e.g. all str or all int), "
            f"got a mix of {', '.join(kinds)}"
        ) from exc
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size, dtype=np.intp)
    return rank[codes], uniques[order]


#: Nanoseconds in a day: datetimes all within it of the epoch are suspect.
_DAY_NS = 86_400 * 10**9


def check_epoch_day(t):
    """Refuse datetimes that all lie within the first day of 1970.

    ``pd.to_datetime(seconds)`` without ``unit=`` reads nanoseconds, so real
    Unix seconds or milliseconds land there; such a log is refused, not split.
    """
    if t.size > 1 and t.min() != t.max() and np.all(np.abs(t) < _DAY_NS):
        first, last = (pd.Timestamp(int(v), unit="ns") for v in (t.min(), t.max()))
        raise ValueError(
            f"time lies entirely within the first day of 1970 ({first} to "
            f"{last}): these look like Unix seconds or milliseconds read as "
            "nanoseconds; convert with pd.to_datetime(ts, unit='s') or unit='ms'"
        )


def _datetime_ns(values):
    index = pd.DatetimeIndex(values)
    _raise_missing("time", np.asarray(index.isna()))
    try:
        t = index.as_unit("ns").asi8.astype(np.int64, copy=False)
    except pd.errors.OutOfBoundsDatetime as exc:
        raise ValueError(
            f"time runs from {index.min()} to {index.max()}, outside the "
            "datetimes of 1677 to 2262 the splitter can order"
        ) from exc
    check_epoch_day(t)
    return t, index.tz


def _numeric(values):
    arr = np.asarray(values)
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(
            f"time holds {arr.max()}, beyond the signed 64-bit integers; "
            "shift or rescale it"
        )
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    arr = arr.astype(np.float64)
    _raise_missing("time", np.isnan(arr))
    if not np.all(np.isfinite(arr)):
        n_inf = int(np.sum(~np.isfinite(arr)))
        raise ValueError(f"time has {n_inf} infinite values; time must be finite")
    return arr


def _type_error(dtype_name):
    return TypeError(
        f"time must be numeric or datetime64, got {dtype_name}; convert with "
        f"pd.to_datetime(...)"
    )


def _encode_time(time):
    """Return ``(t, is_datetime, tz, dtype_name)`` for a time array-like."""
    if _is_polars(time):
        dtype = time.dtype
        _raise_missing("time", time.is_null().to_numpy())
        if dtype.is_temporal() and str(dtype).startswith(("Datetime", "Date")):
            tz = getattr(dtype, "time_zone", None)
            t = time.dt.epoch("ns").to_numpy().astype(np.int64)
            check_epoch_day(t)
            return t, True, tz, str(dtype)
        if dtype.is_numeric():
            return _numeric(time.to_numpy()), False, None, str(dtype)
        raise _type_error(str(dtype))
    if isinstance(time, pd.Series | pd.Index):
        dtype = time.dtype
        if pd.api.types.is_datetime64_any_dtype(dtype):
            t, tz = _datetime_ns(time)
            return t, True, tz, str(dtype)
        if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(
            dtype
        ):
            raise _type_error(str(dtype))
        _raise_missing("time", np.asarray(time.isna()))
        kind = getattr(dtype, "numpy_dtype", dtype)  # Int64 -> int64, UInt64 -> uint64
        return _numeric(time.to_numpy(dtype=kind)), False, None, str(dtype)
    arr = np.asarray(time)
    if arr.ndim != 1:
        raise ValueError(
            f"time must be 1-dimensional, got an array of shape {arr.shape}"
        )
    if arr.dtype.kind == "M":
        t, tz = _datetime_ns(arr)
        return t, True, tz, str(arr.dtype)
    if arr.dtype.kind in "iuf":
        return _numeric(arr), False, None, str(arr.dtype)
    raise _type_error(str(arr.dtype))


def resolve(X, groups, time, params):
    """Find, check and encode groups and time for ``X`` (never modifies inputs)."""
    if X is None:
        raise ValueError("X is required to split; got X=None")
    n_rows = n_rows_of(X)
    group_col, time_col = params.group_col, params.time_col
    if groups is not None:
        if _has_column(X, group_col):
            raise ValueError(
                f"groups given both as metadata and via group_col={group_col!r}; "
                f"pass only one"
            )
    elif group_col is not None:
        groups = _column(X, group_col, "group_col")
    elif _has_column(X, DEFAULT_GROUP_COL):
        groups = X[DEFAULT_GROUP_COL]
    else:
        raise ValueError(GROUPS_MISSING)
    _check_length("groups", groups, n_rows)
    codes, labels = _encode_groups(groups)

    if time is not None:
        if _has_column(X, time_col):
            raise ValueError(
                f"time given both as metadata and via time_col={time_col!r}; "
                f"pass only one"
            )
        source = "metadata"
    elif time_col is not None:
        time, source = _column(X, time_col, "time_col"), "column"
    else:
        time, source = np.arange(n_rows, dtype=np.int64), NO_TIME
    _check_length("time", time, n_rows)
    t, is_dt, tz, dtype_name = _encode_time(time)

    for name, size in params.time_params:
        if not is_dt:
            what = "a duration" if size.kind == "duration" else "a calendar frequency"
            got = (
                f"{NO_TIME}; pass time= or set time_col"
                if source == NO_TIME
                else f"time is numeric ({dtype_name}); pass datetime64 time, e.g. "
                f"pd.to_datetime(ts, unit={_unit_of(t)!r})"
            )
            raise TypeError(f"{name}={size.raw!r} is {what} but {got}")
    return SplitData(n_rows, codes, labels, t, is_dt, tz, source)


def _unit_of(t):
    """The Unix unit numeric times are most likely in, by their magnitude."""
    top = float(np.max(np.abs(t))) if np.size(t) else 0.0
    if top >= 1e17:
        return "ns"
    if top >= 1e14:
        return "us"
    return "ms" if top >= 1e11 else "s"


def rows_out_of_time_order(X):
    """Evidence that the rows of ``X`` are not in time order, or ``None``."""
    if is_polars_df(X):
        for name, dtype in X.schema.items():
            if dtype.is_temporal() and not X[name].is_sorted():
                return f"its datetime column {name!r} is not sorted"
        return None
    if not isinstance(X, pd.DataFrame):
        return None
    for name, dtype in X.dtypes.items():
        if (
            pd.api.types.is_datetime64_any_dtype(dtype)
            and not X[name].is_monotonic_increasing
        ):
            return f"its datetime column {name!r} is not sorted"
    index = X.index
    if not (index.is_monotonic_increasing or index.is_monotonic_decreasing):
        return "its index is not in order (shuffled rows?)"
    return None
