"""Shadow traffic: two rankers on the same logged requests, per time window."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._compare._api import compare, model_reports
from .._compare._inputs import metric_names
from .._stats._resampling import check_choice
from ._windows import TIME_UNITS, as_times, check_columns, check_freq


def _columns(data, y_true, scores, qid, time):
    if data is None:
        if not isinstance(scores, Mapping):
            raise ValueError(
                "scores must map each model's name to its scores, got "
                f"{type(scores).__name__}."
            )
        return y_true, dict(scores), qid, time
    named = dict(scores) if isinstance(scores, Mapping) else {c: c for c in scores}
    columns = [("y_true", y_true), ("qid", qid), ("time", time)]
    check_columns(data, columns + [(f"scores[{k!r}]", c) for k, c in named.items()])
    return (
        data[y_true].to_numpy(),
        {k: data[c].to_numpy() for k, c in named.items()},
        data[qid].to_numpy(),
        data[time],
    )


def compare_over_time(
    y_true,
    scores,
    qid,
    time,
    *,
    freq,
    baseline,
    metrics=("ndcg@10",),
    data=None,
    test="paired_bootstrap",
    correction="holm",
    confidence=0.95,
    n_resamples=2000,
    random_state=None,
    min_queries=10,
    time_unit=None,
    time_format=None,
    **options,
):
    """Rankers scored on the same logged requests, compared per time window.

    Shadow traffic: the live ranker serves, a candidate scores the same
    requests without being shown, and both rankings are judged with the same
    labels. Each query belongs to the window (of length ``freq``, aligned on
    the epoch) holding its earliest row, as in :func:`metric_over_time`;
    within each window the per-query values of the models are compared by
    :func:`compare` (paired: the same queries), which gives the difference,
    its interval and its p-value, corrected over every window, comparison
    and metric.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or str
        Labels, or with ``data`` the name of its column.
    scores : mapping or list
        ``{model name: scores}`` (arrays of shape (n_samples,), or with
        ``data`` column names), or with ``data`` a list of score columns, each
        named after its column.
    qid, time : array-like of shape (n_samples,) or str
        Query ids and time stamps (datetimes, strings pandas reads as
        datetimes, or numbers with ``time_unit``), or column names with
        ``data``.
    freq : str or pandas.Timedelta
        Window length, a fixed one: ``"5min"``, ``"1h"``, ``"1D"``.
    baseline : object
        The model every other one is compared with (the live one).
    metrics : str or sequence of str, default=("ndcg@10",)
        Measure names, as in :func:`~skndcg.metrics.ranking_report`.
    data : pandas.DataFrame, default=None
        A table holding the named columns.
    test, correction, confidence, n_resamples, random_state, min_queries : \
object
        As in :func:`compare` (``n_resamples`` is lower by default, as there
        are many windows). The correction runs over every (window, model,
        metric).
    time_unit, time_format : str, default=None
        As in :func:`metric_over_time`: the unit of numeric times (``"s"``,
        ``"ms"``, ``"us"``, ``"ns"`` since 1970-01-01 UTC; never guessed),
        and the format of string times (by default their day/month order is
        read from the column).
    **options
        Every other keyword of :func:`~skndcg.metrics.ranking_report`
        (``convention``, ``gain``, ``empty``, ...).

    Returns
    -------
    result : pandas.DataFrame
        One row per window, model and metric, in time order: ``window`` (its
        start) and the columns of ``compare(...).to_frame(pairs=True)``:
        ``model``, ``other``, ``metric``, ``n_queries``, ``diff`` (model minus
        the baseline), ``diff_low``, ``diff_high``, their corrected versions,
        ``lift`` and its interval, ``p_value``, ``p_adjusted``,
        ``significant``, ``wins``, ``ties``, ``losses``.

    See Also
    --------
    metric_over_time : One ranker's metric per window, against its past.
    compare : The comparison behind each window.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skndcg.evaluation import compare_over_time
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(400), 5)
    >>> y = rng.integers(0, 3, qid.size)
    >>> time = pd.Timestamp("2024-06-01") + pd.to_timedelta(qid // 200, "h")
    >>> scores = {"live": y + rng.normal(0, 1.0, qid.size),
    ...           "candidate": y + rng.normal(0, 0.5, qid.size)}
    >>> out = compare_over_time(y, scores, qid, time, freq="1h",
    ...                         baseline="live", random_state=0)
    >>> out[["window", "model", "n_queries", "significant"]]
                   window      model  n_queries  significant
    0 2024-06-01 00:00:00  candidate        200         True
    1 2024-06-01 01:00:00  candidate        198         True
    """
    y_true, scores, qid, time = _columns(data, y_true, scores, qid, time)
    if time_unit is not None:
        check_choice("time_unit", time_unit, TIME_UNITS)
    if baseline not in scores:
        raise ValueError(
            f"baseline={baseline!r} is not one of the models {list(scores)}."
        )
    if len(scores) < 2:
        raise ValueError("scores must hold at least two models to compare.")
    step = check_freq(freq)
    names = metric_names(metrics)
    q = np.asarray(qid)
    reports = model_reports(y_true, scores, q, metrics=names, **options)
    times = as_times(time, q.shape[0], unit=time_unit, fmt=time_format)
    windows = times.groupby(pd.Series(q)).min().dt.floor(step)
    # Integer window codes: segment labels compare fast; mapped back below.
    codes, starts = pd.factorize(windows, sort=True)
    windows = pd.Series(codes, index=windows.index)
    cmp = compare(
        reports,
        baseline=baseline,
        metrics=names,
        test=test,
        correction=correction,
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=random_state,
        min_queries=min_queries,
        by=windows.to_dict(),
    )
    out = cmp.to_frame(pairs=True).rename(columns={"segment": "window"})
    out["window"] = starts[out["window"].to_numpy(dtype=np.int64)]
    return out.sort_values(["window", "model", "metric"], kind="mergesort").reset_index(
        drop=True
    )
