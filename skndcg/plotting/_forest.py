"""Forest plot of a comparison by segment."""

import numpy as np

from ..evaluation import Comparison, SegmentedComparison
from ..utils._args import check_flags
from ._compare import axes, metric_of


def plot_forest(comparison, *, metric=None, adjusted=True, ax=None):
    """Forest plot: each (segment, model) difference and its interval.

    One row per segment and model compared with the baseline: the mean
    difference as a point and its interval as a bar, with a line at zero; a
    bar clear of zero is significant. Segments are stacked from top to
    bottom, models within each; the row labels give the number of queries.

    Parameters
    ----------
    comparison : SegmentedComparison or Comparison
        Made by :func:`~skndcg.evaluation.compare` with ``by=`` (a plain
        comparison is drawn as one segment) and a ``baseline``.
    metric : str, default=None
        Metric to draw; needed when the comparison has several.
    adjusted : bool, default=True
        Draw the intervals corrected over every (segment, model, metric)
        (``diff_low_adjusted``, ``diff_high_adjusted``) or the plain ones.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure is created when ``None``.

    Returns
    -------
    ax : matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skndcg.evaluation import compare
    >>> from skndcg.plotting import plot_forest
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(60)
    >>> scores = pd.DataFrame({
    ...     "model": ["old"] * 60 + ["new"] * 60,
    ...     "qid": np.tile(np.arange(60), 2),
    ...     "ndcg@10": np.r_[base, base + rng.normal(0.05, 0.1, 60)],
    ... })
    >>> cmp = compare(scores, baseline="old", by=np.arange(60) % 2,
    ...               n_resamples=300, random_state=0)
    >>> ax = plot_forest(cmp)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['0 | new (n=30)', '1 | new (n=30)']
    """
    if isinstance(comparison, Comparison):
        comparison = SegmentedComparison({"all": comparison})
    if not isinstance(comparison, SegmentedComparison):
        raise TypeError(
            "plot_forest takes the result of skndcg.evaluation.compare (with by= "
            f"for segments), got {type(comparison).__name__}."
        )
    if comparison.baseline is None:
        raise ValueError(
            "plot_forest draws differences from a baseline; compare with baseline=... ."
        )
    check_flags(adjusted=adjusted)
    one = next(iter(comparison.comparisons.values()))
    metric = metric_of(one, metric, "plot_forest")
    rows = comparison.to_frame(pairs=True)
    rows = rows[rows["metric"] == metric].reset_index(drop=True)
    suffix = "_adjusted" if adjusted else ""
    lo, hi = f"diff_low{suffix}", f"diff_high{suffix}"
    ax = axes(ax, "plot_forest", (6.4, 0.45 * len(rows) + 1.2))
    y = np.arange(len(rows))[::-1]
    models = list(dict.fromkeys(rows["model"]))
    colors = {m: f"C{i % 10}" for i, m in enumerate(models)}
    labels = []
    for yi, (_, r) in zip(y, rows.iterrows(), strict=True):
        c = colors[r["model"]]
        if np.isfinite(r[lo]) and np.isfinite(r[hi]):
            ax.plot([r[lo], r[hi]], [yi, yi], color=c, lw=2)
        ax.plot([r["diff"]], [yi], "o", color=c, mfc=c if r["significant"] else "white")
        labels.append(f"{r['segment']} | {r['model']} (n={r['n_queries']})")
    ax.axvline(0.0, color="0.4", lw=1, ls="--")
    ax.set_yticks(y, labels)
    level = comparison.confidence_adjusted if adjusted else comparison.confidence
    ax.set_xlabel(
        f"{metric}: difference from {comparison.baseline} "
        f"({100 * level:.3g}% interval; filled = significant)"
    )
    return ax
