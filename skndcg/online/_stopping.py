"""The stopping rule "the lift stays above a threshold for a given time"."""

from __future__ import annotations

from numbers import Real

import numpy as np
import pandas as pd
from pandas.api.types import is_datetime64_any_dtype, is_numeric_dtype
from sklearn.utils._param_validation import StrOptions, validate_params

from ._ab_result import ABTestResult


def _history_frame(history):
    if isinstance(history, pd.DataFrame):
        if "time" not in history.columns:
            raise ValueError(
                "history must have a 'time' column (the time of each look), got "
                f"columns {list(history.columns)}."
            )
        return history
    frames = []  # a dict, as validate_params checked
    for time, result in history.items():
        if not isinstance(result, ABTestResult):
            raise ValueError(
                "history must map each look's time to the ABTestResult of "
                f"that look, got {type(result).__name__} at {time!r}."
            )
        frames.append(result.to_frame().assign(time=time))
    if not frames:
        raise ValueError("history holds no look.")
    return pd.concat(frames, ignore_index=True)


def _duration(duration, time):
    """``duration`` as a difference of look times (a Timedelta for datetimes),
    non-negative, or a ValueError naming it."""
    dated = is_datetime64_any_dtype(time)
    try:
        if dated:
            value = pd.Timedelta(duration)
            if isinstance(duration, Real):  # a bare number would mean nanoseconds
                raise ValueError
        else:
            if isinstance(duration, bool) or not isinstance(duration, Real):
                raise ValueError
            value = duration
        ok = bool(value >= value * 0)
    except (ValueError, TypeError):
        ok = False
    if not ok:
        what = (
            "a non-negative pandas.Timedelta or a string such as '24h' (the look "
            "times are dates)"
            if dated
            else "a non-negative number (the look times are numbers)"
        )
        raise ValueError(f"duration must be {what}, got {duration!r}.")
    return value


@validate_params(
    {
        "history": [dict, pd.DataFrame],
        "threshold": [Real, dict],
        "duration": "no_validation",
        "on": [StrOptions({"low", "lift"})],
        "relative": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def sustained_lift(history, *, threshold, duration, on="low", relative=False):
    """When the lift has stayed above a threshold for a given time: stop.

    The rule of thumb "ship when NDCG is up at least 3% and CTR at least 1%,
    and it has held for 24 hours", on a series of looks at a running A/B test
    (one :func:`ab_test` on the data so far, every day or hour). At each look a
    treatment *meets* the rule when every metric named by ``threshold`` is at
    or above its threshold; it may *stop* once it has met the rule at every
    look for ``duration``. Judging the lower end of the interval (``on="low"``)
    rather than the estimate asks that the lift be credibly above the
    threshold, not just seen above it; with ``ab_test(..., sequential=True)``
    that interval is valid at every look.

    Parameters
    ----------
    history : dict or pandas.DataFrame
        ``{time of the look: ABTestResult}``, or the rows of the results'
        :meth:`~ABTestResult.to_frame` with a ``time`` column (all numbers or
        all dates). Every look at an arm holds one row per metric the rule
        reads, and every look has the same ``control`` (when that column is
        there): otherwise the history is refused, naming the arm, metric and
        time. A look whose value is NaN (a relative lift over a control mean
        of 0, an interval from too few units) does not meet the rule.
    threshold : float or dict
        The smallest acceptable value, for every metric of ``history``, or a
        mapping from metric to its threshold (the metrics the rule reads).
    duration : object
        How long the rule must have held: compared with differences of the
        look times (a ``pandas.Timedelta`` or a string such as ``"24h"`` for
        datetime times, a number for numeric ones). The first look that meets
        the rule counts from its own time, so with daily looks ``"1D"`` needs
        two looks in a row.
    on : {"low", "lift"}, default="low"
        Compare the lower end of the interval, or the estimate.
    relative : bool, default=False
        Read the relative lift (``0.03`` is 3%) instead of the absolute one.

    Returns
    -------
    looks : pandas.DataFrame
        One row per look and treatment arm, in time order: ``time``, ``arm``,
        ``met``, ``since`` (start of the current run of looks that met the
        rule, NaT or NaN when it is not met), ``held`` (``time - since``) and
        ``stop``.

    See Also
    --------
    ab_test : One look.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.online import sustained_lift
    >>> looks = pd.DataFrame({
    ...     "time": pd.date_range("2024-06-01", periods=5, freq="D"),
    ...     "metric": "ndcg@10", "arm": "B",
    ...     "relative_low": [0.01, 0.035, 0.032, 0.04, 0.038]})
    >>> out = sustained_lift(looks, threshold=0.03, duration="1D", relative=True)
    >>> out[["time", "met", "stop"]]
            time    met   stop
    0 2024-06-01  False  False
    1 2024-06-02   True  False
    2 2024-06-03   True   True
    3 2024-06-04   True   True
    4 2024-06-05   True   True
    """
    frame = _history_frame(history)
    column = ("relative_" if relative else "") + ("lift" if on == "lift" else on)
    need = {"metric", "arm", column}
    if not need <= set(frame.columns):
        raise ValueError(
            f"history lacks the column(s) {sorted(need - set(frame.columns))}."
        )
    if not len(frame):
        raise ValueError("history holds no look.")
    for name in ("time", "arm", "metric"):
        if frame[name].isna().any():
            row = int(np.flatnonzero(frame[name].isna().to_numpy())[0])
            raise ValueError(
                f"history's {name} is missing at row {row}; every look needs one."
            )
    time = frame["time"]
    if not (is_numeric_dtype(time) or is_datetime64_any_dtype(time)):
        kinds = sorted({type(t).__name__ for t in time})
        raise ValueError(
            f"history's times must be all numbers or all dates, got {kinds}."
        )
    if "control" in frame.columns and frame["control"].nunique(dropna=False) > 1:
        first = frame.sort_values("time", kind="mergesort").drop_duplicates("control")
        seen = ", ".join(
            f"{c!r} from time {t}"
            for c, t in zip(first["control"], first["time"], strict=True)
        )
        raise ValueError(
            f"history's control changes along the looks ({seen}); a series of "
            "looks must compare the arms with one control."
        )
    metrics = sorted(frame["metric"].unique(), key=str)
    limits = (
        threshold if isinstance(threshold, dict) else dict.fromkeys(metrics, threshold)
    )
    if not limits:
        raise ValueError("threshold is an empty mapping; name at least one metric.")
    for metric, limit in limits.items():
        if (
            isinstance(limit, bool)
            or not isinstance(limit, Real)
            or not np.isfinite(limit)
        ):
            where = (
                f"threshold[{metric!r}]" if isinstance(threshold, dict) else "threshold"
            )
            raise ValueError(f"{where} must be a finite number, got {limit!r}.")
    unknown = [m for m in limits if m not in metrics]
    if unknown:
        raise ValueError(
            f"threshold names metric(s) {unknown} that history does not hold; it "
            f"holds {metrics}."
        )
    counts = (
        frame.groupby(["arm", "time", "metric"], observed=True)
        .size()
        .unstack("metric", fill_value=0)
    )
    many = np.argwhere(counts.to_numpy() > 1)
    if len(many):
        (arm, time), metric = counts.index[many[0][0]], counts.columns[many[0][1]]
        raise ValueError(
            f"history holds {counts.iat[tuple(many[0])]} rows for arm {arm!r}, "
            f"metric {metric!r} at time {time}; expected one row per look, arm "
            "and metric."
        )
    lack = np.argwhere(counts[list(limits)].to_numpy() == 0)
    if len(lack):
        (arm, time), metric = counts.index[lack[0][0]], list(limits)[lack[0][1]]
        raise ValueError(
            f"history holds no row for metric {metric!r} of arm {arm!r} at time "
            f"{time}; every look at an arm needs each metric the threshold names "
            f"({list(limits)})."
        )
    rows = frame[frame["metric"].isin(list(limits))]
    ok = rows[column].to_numpy() >= rows["metric"].map(limits).to_numpy(dtype=float)
    met = (
        rows.assign(_ok=ok)
        .groupby(["arm", "time"], sort=True)["_ok"]
        .all()
        .reset_index(name="met")
    )
    duration = _duration(duration, frame["time"])
    starts = []  # met is sorted by arm, then time
    for _, g in met.groupby("arm", sort=False):
        since = None
        for t, m in zip(g["time"], g["met"], strict=True):
            since = (t if since is None else since) if m else None
            starts.append(since)
    dated = is_datetime64_any_dtype(met["time"])
    since = pd.Series(starts, index=met.index, dtype=object)
    met["since"] = (pd.to_datetime if dated else pd.to_numeric)(since)
    met["held"] = met["time"] - met["since"]
    with np.errstate(invalid="ignore"):
        met["stop"] = (met["held"] >= duration).fillna(False).astype(bool)
    result = met.sort_values(["time", "arm"], kind="mergesort")
    return result[["time", "arm", "met", "since", "held", "stop"]].reset_index(
        drop=True
    )
