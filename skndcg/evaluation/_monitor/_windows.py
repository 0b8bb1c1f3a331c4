"""Windows, intervals, baselines and alerts of metric_over_time."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from .._stats._significance import adjust_p_values

_WEEK = pd.Timedelta("7D")
#: The columns of a window's row (``p_adjusted`` and ``alert`` come after).
_COLUMNS = [
    "window",
    "metric",
    "n_queries",
    "value",
    "low",
    "high",
    "baseline",
    "baseline_n_queries",
    "change",
    "p_value",
]


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


def windowed(
    per_query,
    names,
    *,
    freq,
    baseline,
    baseline_windows,
    confidence,
    alpha,
    correction,
    threshold,
    empty_windows,
):
    """The result table from per-query values and each query's window start."""
    step = check_freq(freq)
    if baseline == "week" and _WEEK % step != pd.Timedelta(0):
        raise ValueError(
            f"baseline='week' needs windows that tile a week, got freq={freq!r}."
        )
    start = per_query["_start"].dt.floor(step)
    first, last = start.min(), start.max()
    windows = pd.date_range(first, last, freq=step)
    present = set(start.unique())
    missing = [w for w in windows if w not in present]
    if missing and empty_windows == "error":
        raise ValueError(
            f"{len(missing)} window(s) of freq={freq!r} between {first} and {last} "
            f"have no queries, the first at {missing[0]}. Check the log for a "
            "gap, or pass empty_windows='keep' to get rows with n_queries=0."
        )
    z = stats.norm.ppf(0.5 + confidence / 2)
    index = {w: i for i, w in enumerate(windows)}
    pos = start.map(index).to_numpy()
    # Each window's rows as a slice of one stable sort by window.
    order = np.argsort(pos, kind="stable")
    cuts = np.searchsorted(pos[order], np.arange(1, len(windows)))
    groups = {}
    for name in names:
        vals = per_query[name].to_numpy(dtype=np.float64)[order]
        groups[name] = [g[~np.isnan(g)] for g in np.split(vals, cuts)]
    lag = _WEEK if baseline == "week" else step
    every = int(lag // step)  # the baseline's windows lie every `every` windows back
    # The stable baselines' candidates: per measure and per window slot (index
    # modulo `every`), the earlier windows that hold queries and did not drop,
    # oldest first; a window that dropped is held out of later baselines.
    kept = {name: [[] for _ in range(every)] for name in names}
    rows = []
    for i, w in enumerate(windows):
        for name in names:
            if baseline == "previous":
                back = [index.get(w - lag * j) for j in range(1, baseline_windows + 1)]
                back = [j for j in back if j is not None]
            else:
                back = kept[name][i % every][: -baseline_windows - 1 : -1]
            base = np.concatenate([groups[name][j] for j in back] or [[]])
            row = _row(w, name, groups[name][i], base, z)
            change, p = row[-2], row[-1]
            if groups[name][i].size and not (p < alpha and change <= -threshold):
                kept[name][i % every].append(i)
            rows.append(row)
    out = pd.DataFrame(rows, columns=_COLUMNS)
    out["p_adjusted"] = adjust_p_values(
        out["p_value"].to_numpy(), None if correction == "none" else correction
    )
    out["alert"] = (out["p_adjusted"] < alpha) & (out["change"] <= -threshold)
    return out


def _row(window, name, cur, base, z):
    n, nb = cur.size, base.size
    value = cur.mean() if n else np.nan
    half = z * cur.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
    ref = base.mean() if nb else np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        change = value / ref - 1.0 if nb and ref != 0 else np.nan
    p = np.nan
    if n > 1 and nb > 1:
        if cur.var() == 0 and base.var() == 0:
            p = 0.0 if value < ref else 1.0
        else:
            with warnings.catch_warnings():
                # scipy warns when the values are nearly equal; p is still right
                warnings.simplefilter("ignore", RuntimeWarning)
                test = stats.ttest_ind(cur, base, equal_var=False, alternative="less")
                p = float(test.pvalue)
    return [window, name, n, value, value - half, value + half, ref, nb, change, p]
