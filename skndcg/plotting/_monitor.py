"""Plot of :func:`~skndcg.evaluation.metric_over_time`'s result."""

from ._compare import axes

_NEEDED = ("window", "metric", "value", "low", "high", "baseline", "alert")


def plot_metric_over_time(result, *, metric=None, ax=None):
    """A measure per time window with its band, the baseline and the alerts.

    Parameters
    ----------
    result : pandas.DataFrame
        Returned by :func:`~skndcg.evaluation.metric_over_time`.
    metric : str, default=None
        Measure to draw; may be left out when the result holds one measure.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure is created when ``None``.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The value as a line with its interval as a band, the baseline as a
        dashed line and the flagged windows as red markers.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from skndcg.evaluation import metric_over_time
    >>> from skndcg.plotting import plot_metric_over_time
    >>> out = metric_over_time([1, 0, 1, 0, 0, 1], [2, 1, 2, 1, 2, 1],
    ...                        [1, 1, 2, 2, 3, 3],
    ...                        ["2024-01-01"] * 4 + ["2024-01-02"] * 2,
    ...                        freq="1D", metrics="mrr")
    >>> ax = plot_metric_over_time(out)
    >>> ax.get_ylabel()
    'mrr'
    """
    missing = [c for c in _NEEDED if c not in getattr(result, "columns", ())]
    if missing:
        raise TypeError(
            "plot_metric_over_time takes the DataFrame returned by "
            f"skndcg.evaluation.metric_over_time; missing columns {missing}."
        )
    names = list(dict.fromkeys(result["metric"]))
    if metric is None:
        if len(names) != 1:
            raise ValueError(
                f"the result holds several measures {names}; pass metric= to "
                "choose one."
            )
        metric = names[0]
    elif metric not in names:
        raise ValueError(f"metric={metric!r} is not in the result; it has {names}.")
    ax = axes(ax, "plot_metric_over_time", (9, 3.5))
    rows = result[result["metric"] == metric]
    x = rows["window"].to_numpy()
    ax.fill_between(
        x,
        rows["low"].to_numpy(dtype=float),
        rows["high"].to_numpy(dtype=float),
        alpha=0.25,
        label="interval",
    )
    value = rows["value"].to_numpy(dtype=float)
    ax.plot(x, value, "-o", ms=3, label=metric)
    ax.plot(x, rows["baseline"].to_numpy(dtype=float), "k--", lw=1, label="baseline")
    flagged = rows["alert"].to_numpy(dtype=bool)
    if flagged.any():
        ax.plot(x[flagged], value[flagged], "rv", ms=9, label="alert")
    ax.set(xlabel="window", ylabel=metric)
    ax.legend(loc="best")
    ax.figure.autofmt_xdate()
    return ax
