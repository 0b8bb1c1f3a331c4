"""Plots of a :class:`~skndcg.evaluation.Comparison`."""

import numpy as np

from ..evaluation import Comparison
from ..utils._args import check_flags
from ..utils._optional import import_optional


def _check(comparison, caller):
    if not isinstance(comparison, Comparison):
        raise TypeError(
            f"{caller} takes the Comparison returned by skndcg.evaluation.compare, "
            f"got {type(comparison).__name__}."
        )


def axes(ax, caller, figsize):
    """``ax``, or the axes of a new figure (matplotlib is imported for ``caller``)."""
    plt = import_optional("matplotlib.pyplot", purpose=caller)
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    elif not isinstance(ax, plt.Axes):
        raise TypeError(
            f"{caller}: ax must be a matplotlib Axes or None, got {ax!r} "
            f"({type(ax).__name__})."
        )
    return ax


def metric_of(comparison, metric, caller):
    if metric is None:
        if len(comparison.metrics) != 1:
            raise ValueError(
                f"{caller}: the comparison has several metrics "
                f"{comparison.metrics}; choose one with metric=."
            )
        return comparison.metrics[0]
    if metric not in comparison.metrics:
        raise ValueError(
            f"{caller}: metric={metric!r} is not one of {comparison.metrics}."
        )
    return metric


def _cutoffs(comparison, metric):
    """``[(k, column)]`` for the columns named ``metric@k``, by k."""
    found = []
    for col in comparison.metrics:
        name, sep, k = str(col).partition("@")
        if sep and name.lower() == metric.lower() and k.isdigit():
            found.append((int(k), col))
    return sorted(found)


def _n_queries(n):
    """The number of queries, or their range when it varies."""
    return f"{int(n.min())}" if n.min() == n.max() else f"{int(n.min())}-{int(n.max())}"


def plot_metric_at_k(comparison, metric="ndcg", *, ax=None):
    """Mean of ``metric@k`` against the cut-off k, one line per model.

    Each line carries its confidence band (the interval of the mean at each
    k, from the comparison's bootstrap).

    Parameters
    ----------
    comparison : Comparison
        Made by :func:`~skndcg.evaluation.compare` with the metrics
        ``metric@1``, ``metric@2``, ... (any set of cut-offs).
    metric : str, default="ndcg"
        Metric family, such as ``"ndcg"``, ``"p"`` or ``"map"``.
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
    >>> from skndcg.evaluation import compare_scores
    >>> from skndcg.plotting import plot_metric_at_k
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(40), 10)
    >>> y = rng.integers(0, 3, 400)
    >>> cmp = compare_scores(y, {"model": y + rng.normal(0, 1, 400),
    ...                          "random": rng.random(400)}, qid,
    ...                      metrics=[f"ndcg@{k}" for k in range(1, 6)],
    ...                      n_resamples=250, random_state=0)
    >>> ax = plot_metric_at_k(cmp)
    >>> ax.get_xlabel()
    'k (cut-off)'
    """
    _check(comparison, "plot_metric_at_k")
    if not isinstance(metric, str):
        raise TypeError(f"plot_metric_at_k: metric must be a str, got {metric!r}.")
    cut = _cutoffs(comparison, metric)
    if not cut:
        raise ValueError(
            f"plot_metric_at_k: the comparison has no '{metric}@k' metric (it has "
            f"{comparison.metrics}); compare with metrics such as "
            f"[f'{metric}@{{k}}' for k in range(1, 11)]."
        )
    ax = axes(ax, "plot_metric_at_k", (7, 4.5))
    frame = comparison.to_frame().set_index(["model", "metric"])
    ks = [k for k, _ in cut]
    for model in comparison.models:
        rows = frame.loc[[(model, col) for _, col in cut]]
        (line,) = ax.plot(
            ks, rows["mean"].to_numpy(), marker="o", ms=3, label=str(model)
        )
        ax.fill_between(
            ks,
            rows["low"].to_numpy(),
            rows["high"].to_numpy(),
            color=line.get_color(),
            alpha=0.2,
            linewidth=0,
        )
    n_text = _n_queries(
        frame.loc[[(comparison.models[0], col) for _, col in cut], "n_queries"]
    )
    ax.set_xlabel("k (cut-off)")
    ax.set_ylabel(f"mean {metric}@k ({100 * comparison.confidence:g}% interval)")
    ax.set_xticks(ks if len(ks) <= 12 else ks[:: int(np.ceil(len(ks) / 12))])
    ax.set_title(f"{metric}@k over {n_text} queries")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax


def plot_comparison(comparison, *, metric=None, corrected=True, ax=None):
    """Forest plot: each difference with its interval, a line at zero.

    Parameters
    ----------
    comparison : Comparison
        Made by :func:`~skndcg.evaluation.compare`.
    metric : str, default=None
        Only this metric; ``None`` draws every metric.
    corrected : bool, default=True
        Draw the intervals that go with the corrected p-values
        (:attr:`~skndcg.evaluation.Comparison.confidence_adjusted`) or the
        uncorrected ones.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure is created when ``None``.

    Returns
    -------
    ax : matplotlib.axes.Axes
        Filled markers are significant after the correction, hollow ones not.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skndcg.evaluation import compare_scores
    >>> from skndcg.plotting import plot_comparison
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(40), 10)
    >>> y = rng.integers(0, 3, 400)
    >>> cmp = compare_scores(y, {"random": rng.random(400),
    ...                          "model": y + rng.normal(0, 1, 400)}, qid,
    ...                      baseline="random", n_resamples=200, random_state=0)
    >>> ax = plot_comparison(cmp)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['model - random']
    """
    _check(comparison, "plot_comparison")
    check_flags(corrected=corrected)
    pairs = comparison.to_frame(pairs=True)
    if metric is not None:
        pairs = pairs[
            pairs["metric"] == metric_of(comparison, metric, "plot_comparison")
        ]
    several = pairs["metric"].nunique() > 1
    ax = axes(ax, "plot_comparison", (7, 1.2 + 0.45 * len(pairs)))
    suffix = "_adjusted" if corrected else ""
    low, high = f"diff_low{suffix}", f"diff_high{suffix}"
    y = np.arange(len(pairs))
    diff = pairs["diff"].to_numpy()
    err = np.vstack([diff - pairs[low].to_numpy(), pairs[high].to_numpy() - diff])
    ax.errorbar(diff, y, xerr=err, fmt="none", ecolor="#1f77b4", capsize=3)
    sig = pairs["significant"].to_numpy()
    # Filled: significant after the correction; hollow: not. Legend only for
    # the kinds present.
    kinds = ((sig, "#1f77b4", "significant"), (~sig, "white", "not significant"))
    for kind, fill, label in kinds:
        ax.scatter(
            diff[kind],
            y[kind],
            facecolor=fill,
            edgecolor="#1f77b4",
            zorder=3,
            label=label if kind.any() else None,
        )
    ax.axvline(0.0, color="black", linestyle="--", linewidth=1)
    labels = [
        f"{r.model} - {r.other}" + (f" ({r.metric})" if several else "")
        for r in pairs.itertuples()
    ]
    ax.set_yticks(y, labels)
    ax.set_ylim(len(pairs) - 0.5, -0.5)
    what = "difference in mean" + ("" if several else f" {pairs['metric'].iloc[0]}")
    ax.set_xlabel(what)
    level = comparison.confidence_adjusted if corrected else comparison.confidence
    corr = (
        comparison.correction if corrected and comparison.correction else "uncorrected"
    )
    n_text = _n_queries(pairs["n_queries"])
    ax.set_title(f"{n_text} queries, {100 * level:.3g}% intervals ({corr})")
    ax.legend(loc="best", frameon=False)
    return ax


def plot_paired(comparison, model, other=None, *, metric=None, kind="scatter", ax=None):
    """Per-query values of two models: A against B, or their differences.

    Parameters
    ----------
    comparison : Comparison
        Made by :func:`~skndcg.evaluation.compare`.
    model : object
        Model on the y axis (scatter), or the first term of the difference.
    other : object, default=None
        The other model; the comparison's baseline when ``None``.
    metric : str, default=None
        Metric to draw; may be left out when the comparison has one metric.
    kind : {"scatter", "hist"}, default="scatter"
        One point per query with the line ``y = x``, or a histogram of the
        per-query differences ``model - other`` with lines at zero and at
        the mean difference.
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
    >>> from skndcg.evaluation import compare_scores
    >>> from skndcg.plotting import plot_paired
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(40), 10)
    >>> y = rng.integers(0, 3, 400)
    >>> cmp = compare_scores(y, {"random": rng.random(400),
    ...                          "model": y + rng.normal(0, 1, 400)}, qid,
    ...                      baseline="random", n_resamples=200, random_state=0)
    >>> ax = plot_paired(cmp, "model")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('ndcg@10 of random', 'ndcg@10 of model')
    """
    _check(comparison, "plot_paired")
    if kind not in ("scatter", "hist"):
        raise ValueError(f"kind must be 'scatter' or 'hist', got {kind!r}.")
    other = comparison.baseline if other is None else other
    if other is None:
        raise ValueError("plot_paired: the comparison has no baseline; pass other=.")
    for name in (model, other):
        if name not in comparison.models:
            raise ValueError(
                f"plot_paired: {name!r} is not one of the models {comparison.models}."
            )
    metric = metric_of(comparison, metric, "plot_paired")
    j = comparison.metrics.index(metric)
    a = comparison.values[comparison.models.index(model), :, j]
    b = comparison.values[comparison.models.index(other), :, j]
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok], b[ok]
    d = a - b
    wins, ties, losses = (int(np.sum(d > 0)), int(np.sum(d == 0)), int(np.sum(d < 0)))
    counts = f"{wins} wins, {ties} ties, {losses} losses"
    ax = axes(ax, "plot_paired", (5.5, 5) if kind == "scatter" else (7, 4.5))
    if kind == "scatter":
        ax.scatter(b, a, s=10, alpha=0.5)
        lo = float(min(a.min(), b.min())) if a.size else 0.0
        hi = float(max(a.max(), b.max())) if a.size else 1.0
        ax.plot([lo, hi], [lo, hi], color="black", linestyle="--", linewidth=1)
        ax.set(xlabel=f"{metric} of {other}", ylabel=f"{metric} of {model}")
        ax.set_aspect("equal", adjustable="datalim")
    else:
        ax.hist(
            d, bins=min(50, max(10, int(np.sqrt(d.size)))), color="#1f77b4", alpha=0.8
        )
        ax.axvline(0.0, color="black", linestyle="--", linewidth=1)
        ax.axvline(
            float(d.mean()) if d.size else 0.0,
            color="#d62728",
            linewidth=1.5,
            label=f"mean difference {d.mean():+.4f}",
        )
        ax.set(xlabel=f"{metric}: {model} - {other}, per query", ylabel="queries")
        ax.legend(frameon=False)
    ax.set_title(f"{d.size} queries: {counts}")
    return ax
