"""Ranking metrics tracked over time, with a baseline and alerts on drops."""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ...metrics import ranking_report
from ...utils._constraints import Count
from .._compare._inputs import metric_names
from .._stats._significance import adjust_p_values
from ._windows import (
    TIME_UNITS,
    as_times,
    check_columns,
    check_freq,
    day_first_witnesses,
    holds_text,
)

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


@validate_params(
    {
        "y_true": ["array-like", str],
        "y_score": ["array-like", str],
        "qid": ["array-like", str],
        "time": ["array-like", str],
        "freq": [str, pd.Timedelta],
        "metrics": [str, list, tuple],
        "baseline": [StrOptions({"trailing", "week", "previous"})],
        "baseline_windows": [Count(1)],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "correction": [StrOptions({"holm", "bonferroni", "fdr_bh", "none"})],
        "threshold": [Interval(Real, 0, None, closed="left")],
        "empty_windows": [StrOptions({"error", "keep"})],
        "data": "no_validation",
        "time_unit": [StrOptions(set(TIME_UNITS)), None],
        "time_format": [str, None],
    },
    prefer_skip_nested_validation=True,
)
def metric_over_time(
    y_true,
    y_score,
    qid,
    time,
    *,
    freq,
    metrics=("ndcg@10",),
    baseline="trailing",
    baseline_windows=1,
    confidence=0.95,
    alpha=0.05,
    correction="holm",
    threshold=0.05,
    empty_windows="error",
    data=None,
    time_unit=None,
    time_format=None,
    **options,
):
    """Ranking metrics per time window, compared with a baseline, with alerts.

    Each query belongs to the window (of length ``freq``, aligned on the
    epoch, so ``"1D"`` windows start at midnight UTC) that holds its earliest
    row; rows need not be sorted by time. Per window and measure the result
    holds the mean over the window's queries (as
    :func:`~skndcg.metrics.grouped_ranking_scores` would give on them) with a
    normal interval over queries, the baseline's mean, their relative change
    and a one-sided Welch t-test of "this window is lower than the baseline".
    A window is flagged (``alert``) when that drop is significant at ``alpha``
    after correcting over every test of the call, AND the relative drop is at
    least ``threshold``.

    Parameters
    ----------
    y_true, y_score, qid, time : array-like of shape (n_samples,) or str
        Labels, scores, query ids and time stamps (datetimes, strings pandas
        reads as datetimes, or numbers with ``time_unit``). With ``data``, the
        names of its columns. Dates written day and month first (``02/01/2024``)
        are read in the order the column tells (a value above 12) and refused
        when none does: ``time_format`` says which.
    freq : str or pandas.Timedelta
        Window length, a fixed one: ``"5min"``, ``"1h"``, ``"1D"``.
    metrics : str or sequence of str, default=("ndcg@10",)
        Measure names, as in :func:`~skndcg.metrics.ranking_report`.
    baseline : {"trailing", "week", "previous"}, default="trailing"
        ``"trailing"``: the ``baseline_windows`` latest earlier windows that
        hold queries and were not held out; ``"week"``: the same window 1, 2,
        ... weeks earlier (same weekday and time of day), for seasonal
        traffic, likewise skipping windows held out; ``"previous"``: the
        ``baseline_windows`` windows just before, whatever they held. A
        window is held out of later baselines, measure by measure, when it
        drops by at least ``threshold`` and its own test is significant at
        ``alpha`` before the correction (which needs every window, so it
        cannot be known when the window closes). The first two are a stable
        reference: a sustained drop stays flagged until the level comes back,
        where with ``"previous"`` the degraded window becomes the next one's
        baseline and only the first window of the drop alerts.
    baseline_windows : int >= 1, default=1
        How many windows (or weeks) the baseline pools (their queries
        together).
    confidence : float in (0, 1), default=0.95
        Coverage of the ``low``/``high`` interval of each window's mean.
    alpha : float in (0, 1), default=0.05
        Significance level of the alerts, after correction.
    correction : {"holm", "bonferroni", "fdr_bh", "none"}, default="holm"
        Multiple-comparison correction over all windows and measures.
    threshold : float >= 0, default=0.05
        Smallest relative drop (``1 - value / baseline``) that alerts.
    empty_windows : {"error", "keep"}, default="error"
        A window between the first and the last one with no query at all is an
        error naming it; ``"keep"`` gives it a row with ``n_queries=0``, NaN
        values and no alert instead.
    data : pandas.DataFrame or dask.dataframe.DataFrame, default=None
        A table holding the columns named by ``y_true``, ``y_score``, ``qid``
        and ``time``. A Dask frame (larger than memory) is scored by
        :func:`skndcg.dask.ranking_report`; only one row per query (and
        partition) is collected.
    time_unit : {"s", "ms", "us", "ns"}, default=None
        The unit of numeric time stamps, read as a time since 1970-01-01 UTC.
        Numbers without it are refused (a float column of hours would
        otherwise make windows in 1970), and so are strings with it.
    time_format : str, default=None
        The :func:`~datetime.datetime.strptime` format of string time stamps
        (``"%d/%m/%Y %H:%M"``), as :func:`pandas.to_datetime` takes it.
    **options
        Every other keyword of :func:`~skndcg.metrics.ranking_report`
        (``convention``, ``gain``, ``empty``, ``nan_score``, ...), except
        ``sample_weight`` and ``queries``.

    Returns
    -------
    result : pandas.DataFrame
        One row per window and measure: ``window`` (its start), ``metric``,
        ``n_queries`` (scored queries), ``value``, ``low``, ``high``,
        ``baseline`` (mean over the baseline's queries), ``baseline_n_queries``,
        ``change`` (relative), ``p_value``, ``p_adjusted`` and ``alert``.
        Values are NaN where undefined (no baseline yet, fewer than two queries,
        a window whose queries were all skipped); such rows never alert.

    See Also
    --------
    skndcg.plotting.plot_metric_over_time : Draw the result.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.evaluation import metric_over_time
    >>> log = pd.DataFrame({
    ...     "qid": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "label": [1, 0, 1, 0, 1, 0, 0, 1],
    ...     "score": [0.9, 0.1, 0.8, 0.2, 0.7, 0.3, 0.6, 0.4],
    ...     "time": pd.to_datetime(["2024-01-01 00:01"] * 4
    ...                            + ["2024-01-01 00:07"] * 4)})
    >>> out = metric_over_time("label", "score", "qid", "time", data=log,
    ...                        freq="5min", metrics="mrr")
    >>> out[["window", "n_queries", "value", "baseline", "change"]]
                   window  n_queries  value  baseline  change
    0 2024-01-01 00:00:00          2   1.00       NaN     NaN
    1 2024-01-01 00:05:00          2   0.75       1.0   -0.25
    """
    for key in ("sample_weight", "queries"):
        if key in options:
            raise TypeError(f"metric_over_time does not take {key}=.")
    names = metric_names(metrics)
    step = check_freq(freq)
    if data is not None:
        cols = {"y_true": y_true, "y_score": y_score, "qid": qid, "time": time}
        check_columns(data, cols.items())
    if data is not None and hasattr(data, "map_partitions"):
        from ...dask import ranking_report as dask_report

        columns = dict(qid_col=qid, label_col=y_true, score_col=y_score)
        report = dask_report(data, metrics=names, **columns, **options).compute()
        # Each partition's times are parsed (the order of day and month as the
        # whole column tells) before its queries' earliest are taken.
        column = None
        if holds_text(data._meta[time]):  # (only strings leave that order to read)
            column = data[time].map_partitions(day_first_witnesses).compute()

        def earliest(part, partition_info=None):
            where = f" (partition {partition_info['number']})" if partition_info else ""
            name = f"time column {time!r}{where}"
            at = as_times(part[time], len(part), name, time_unit, time_format, column)
            return at.groupby(part[qid].to_numpy()).min()

        meta = pd.Series([], dtype="datetime64[ns]", index=data._meta[qid].to_numpy())
        starts = data.map_partitions(earliest, meta=meta).compute()
        starts = starts.groupby(level=0).min()
    else:
        if data is not None:
            y_true, y_score = data[y_true].to_numpy(), data[y_score].to_numpy()
            qid, time = data[qid].to_numpy(), data[time]
        q = np.asarray(qid)
        report = ranking_report(y_true, y_score, q, metrics=names, **options)
        name = f"time column {time.name!r}" if isinstance(time, pd.Series) else "time"
        times = as_times(time, q.shape[0], name, time_unit, time_format)
        starts = times.groupby(pd.Series(q)).min()
    starts = starts.rename("_start")
    per_query = report.merge(starts, left_on="qid", right_index=True, how="left")
    # The windows, each measure's baseline and the alerts.
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
