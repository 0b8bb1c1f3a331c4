"""Plot the folds of a GroupTimeSeriesSplit on a time axis."""

import numpy as np
import pandas as pd

from ..model_selection import GroupTimeSeriesSplit
from ..utils._optional import import_optional
from ._compare import axes

STATUS_COLORS = {
    "unused": "#d9d9d9",
    "train": "#1f77b4",
    "gap": "#9467bd",
    "purged": "#d62728",
    "test": "#ff7f0e",
}
_STATUS_CODE = {name: code for code, name in enumerate(STATUS_COLORS)}


def _to_axis(values, fmt, mdates):
    if not fmt.is_datetime:
        return np.asarray(values, dtype=float)
    index = pd.DatetimeIndex(np.asarray(values).astype("datetime64[ns]"))
    if fmt.tz is not None:
        index = index.tz_localize("UTC").tz_convert(fmt.tz).tz_localize(None)
    return mdates.date2num(index.to_numpy())


def plot_group_time_splits(cv, X, groups=None, time=None, ax=None):
    """Draw the folds of a :class:`~skndcg.model_selection.GroupTimeSeriesSplit`.

    Every fold is one row; within it each group is a segment from its first
    to its last row in time, coloured by its role in that fold: train, test,
    gap (dropped by ``gap``), purged (spans the cutoff) or unused (later
    than the test block, or outside a rolling window). A black tick marks
    each fold's cutoff. The x axis is time, not row position, so unsorted
    or interleaved data is drawn faithfully.

    Parameters
    ----------
    cv : GroupTimeSeriesSplit
        The splitter to draw.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Data as passed to ``cv.split``.
    groups : array-like of shape (n_samples,), default=None
        Group labels, unless ``cv.group_col`` names a column of ``X``.
    time : array-like of shape (n_samples,), default=None
        Time of every row, unless ``cv.time_col`` names a column of ``X``.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure is created when ``None``.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The axes drawn on.

    References
    ----------
    .. [1] M. López de Prado, "Advances in Financial Machine Learning", Wiley, 2018,
       chapter 7 (purged cross-validation and embargo).
    .. [2] scikit-learn issue #14257, "GroupTimeSeriesSplit", 2019.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skndcg.model_selection import GroupTimeSeriesSplit
    >>> from skndcg.plotting import plot_group_time_splits
    >>> groups = np.repeat(np.arange(12), 3)
    >>> time = np.arange(36) + 0.5 * groups
    >>> ax = plot_group_time_splits(GroupTimeSeriesSplit(3), np.zeros((36, 1)),
    ...                             groups=groups, time=time)
    >>> [label.get_text() for label in ax.get_yticklabels()]
    ['fold 0', 'fold 1', 'fold 2']
    """
    mcoll, mdates, mlines = (
        import_optional(f"matplotlib.{name}", purpose="plot_group_time_splits")
        for name in ("collections", "dates", "lines")
    )
    if not isinstance(cv, GroupTimeSeriesSplit):
        raise TypeError(
            "plot_group_time_splits draws a GroupTimeSeriesSplit, got "
            f"{type(cv).__name__}."
        )
    _, table, folds, fmt = cv._plan(X, groups, time)
    ax = axes(ax, "plot_group_time_splits", (9, 1 + 0.7 * len(folds)))
    start = _to_axis(table.start, fmt, mdates)
    end = _to_axis(table.end, fmt, mdates)
    n_groups = start.size
    spread = np.linspace(-0.35, 0.35, n_groups) if n_groups > 1 else np.zeros(1)
    colors = np.array(list(STATUS_COLORS.values()))
    for k, fold in enumerate(folds):
        y = k + spread
        status = np.zeros(n_groups, dtype=np.intp)
        for name in ("train", "gap", "purged"):
            status[getattr(fold, name)] = _STATUS_CODE[name]
        status[fold.test_lo : fold.test_hi] = _STATUS_CODE["test"]
        color = colors[status]
        segments = np.stack([np.column_stack([start, y]), np.column_stack([end, y])], 1)
        ax.add_collection(mcoll.LineCollection(segments, colors=color, linewidths=1.5))
        ax.scatter(start, y, c=color, s=4, marker="|", linewidths=1)
        cut = _to_axis(np.array([fold.cutoff]), fmt, mdates)[0]
        ax.plot([cut, cut], [k - 0.45, k + 0.45], color="black", linewidth=1.2)
    ax.set_yticks(np.arange(len(folds)), [f"fold {k}" for k in range(len(folds))])
    ax.set_ylim(len(folds) - 0.5, -0.5)
    ax.autoscale(axis="x")
    if fmt.is_datetime:
        ax.xaxis_date()
    ax.set_xlabel("time" if fmt.tz is None else f"time ({fmt.tz})")
    handles = [
        mlines.Line2D([], [], color=c, linewidth=3, label=name)
        for name, c in STATUS_COLORS.items()
    ]
    handles.append(mlines.Line2D([], [], color="black", label="cutoff"))
    ax.legend(
        handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False
    )
    ax.set_title(type(cv).__name__)
    return ax
