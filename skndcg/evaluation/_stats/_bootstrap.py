"""Bootstrap confidence intervals over queries, single and paired."""

from __future__ import annotations

import warnings
from numbers import Real
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ...utils._constraints import Count
from ...utils._docstrings import with_references
from ...utils._seeds import integer_draw
from ._resampling import (
    align_on,
    blocks,
    check_length,
    check_resamples,
    percentile_interval,
)
from ._significance import bootstrap_p_value
from ._small_sample import SmallSampleWarning, n_queries_text

_CHUNK_CELLS = 2_000_000  # resampled values held in memory at once
_MIN_QUERIES = 10  # as compare's default min_queries


_REFERENCES = """
    References
    ----------
    .. [1] B. Efron and R. Tibshirani, "An Introduction to the Bootstrap", Chapman &
       Hall, 1993.
    .. [2] T. Sakai, "Evaluating evaluation metrics based on the bootstrap",
       SIGIR 2006.
"""


class BootstrapCI(NamedTuple):
    """Mean over queries and its percentile bootstrap interval.

    Returned by :func:`bootstrap_ci`.

    Parameters
    ----------
    estimate : float
        Mean of the per-query values.
    low : float
        Lower bound of the interval.
    high : float
        Upper bound of the interval.

    Examples
    --------
    >>> from skndcg.evaluation import bootstrap_ci
    >>> ci = bootstrap_ci([0.1, 0.3, 0.5, 0.7, 0.9] * 2, random_state=0)
    >>> ci.low < ci.estimate < ci.high
    True
    >>> estimate, low, high = ci
    """

    estimate: float
    low: float
    high: float


class PairedBootstrap(NamedTuple):
    """Mean per-query difference, its bootstrap interval and a p-value.

    Returned by :func:`paired_bootstrap`.

    Parameters
    ----------
    difference : float
        Mean over queries of the first model's value minus the second's.
    low : float
        Lower bound of the interval of the difference.
    high : float
        Upper bound of the interval of the difference.
    p_value : float
        Two-sided bootstrap p-value of "no difference".

    Examples
    --------
    >>> from skndcg.evaluation import paired_bootstrap
    >>> result = paired_bootstrap([0.9, 0.8, 0.7, 0.9, 0.6] * 2,
    ...                           [0.5, 0.4, 0.6, 0.3, 0.5] * 2, random_state=0)
    >>> result.difference > 0, result.low > 0
    (True, True)
    """

    difference: float
    low: float
    high: float
    p_value: float


def _floats(values, name):
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must hold numbers, one per query, got {type(values).__name__} "
            f"{values!r:.80}."
        ) from None


def _as_values(values, name):
    arr = _floats(values, name)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be one-dimensional (one value per query), got shape "
            f"{arr.shape}."
        )
    if np.isinf(arr).any():
        raise ValueError(f"{name} contains infinite values.")
    return arr


def _as_weights(sample_weight, n, index):
    if sample_weight is None:
        return None
    sample_weight = align_on(sample_weight, index, "sample_weight", "the values")
    must = f"sample_weight must hold one weight per query ({n} values)"
    w = check_length(_floats(sample_weight, "sample_weight"), n, must)
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and >= 0.")
    return w


def _mean_and_resamples(
    values, w, nan, nan_policy, what, n_resamples, random_state, p_value=False
):
    """The (weighted) mean of the values that are not NaN and their resampled
    means (NaN and no resample when none is left, so every number is NaN);
    warns on fewer than ten queries."""
    if nan.any() and nan_policy == "raise":
        raise ValueError(
            f"{what} contains {int(nan.sum())} NaN value(s) (for example queries "
            "skipped by the metric); pass nan_policy='omit' to leave them out."
        )
    values = values[~nan]
    w = None if w is None else w[~nan]
    n = values.size
    if n == 0:
        return np.nan, np.empty(0)
    if n < _MIN_QUERIES:
        too = "too narrow" + (" and its p-value too small" if p_value else "")
        warnings.warn(
            f"{n_queries_text(n)} (fewer than {_MIN_QUERIES}): a bootstrap over so "
            f"few queries undercovers, its interval is {too} (with one query every "
            "resample is that query); score more queries, or use compare(..., "
            "test='randomization'), exact at any size.",
            SmallSampleWarning,
            stacklevel=4,  # the caller of the public function, past its validation
        )
    if w is None:
        estimate = float(values.mean())
    elif w.sum() <= 0:
        raise ValueError(
            "sample_weight sums to zero over the queries left; at least one query "
            "needs a positive weight."
        )
    else:
        estimate = float(np.dot(w, values) / w.sum())
    return estimate, _resampled_means(values, n_resamples, random_state, w)


def _resampled_means(values, n_resamples, random_state, weights=None):
    """(Weighted) means of ``n_resamples`` resamples drawn with replacement."""
    draw = integer_draw(random_state)
    n = values.size
    out = np.empty(n_resamples)
    for lo, hi in blocks(n_resamples, n, _CHUNK_CELLS):
        idx = draw(0, n, size=(hi - lo, n))
        if weights is None:
            out[lo:hi] = values[idx].mean(axis=1)
        else:
            w = weights[idx]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[lo:hi] = (w * values[idx]).sum(axis=1) / w.sum(axis=1)
    return out


def _interval(means, confidence):
    # NaN means (resamples drawing only zero weights) are left out; NaN bounds
    # when every resample is such.
    low, high = percentile_interval(means[:, None], confidence)
    return float(low[0]), float(high[0])


_COMMON = {
    "n_resamples": [Count(1)],
    "confidence": [Interval(Real, 0, 1, closed="neither")],
    "nan_policy": [StrOptions({"omit", "raise"})],
    "random_state": ["random_state", np.random.Generator],
    "sample_weight": ["array-like", None],
}


# (The decorators build their dicts with dict(): Sphinx's source reader, behind
# the docs' source pages, cannot read a ``**`` inside a decorator's dict.)
@validate_params(
    dict(_COMMON, values=["array-like"]), prefer_skip_nested_validation=True
)
@with_references(_REFERENCES)
def bootstrap_ci(
    values,
    *,
    n_resamples=1000,
    confidence=0.95,
    nan_policy="omit",
    random_state=None,
    sample_weight=None,
):
    """Percentile bootstrap confidence interval of a mean over queries.

    The queries are resampled with replacement ``n_resamples`` times; the
    interval holds the central ``confidence`` share of the resampled means
    (Efron & Tibshirani, 1993, percentile method). Queries are the unit of
    resampling because they are the independent draws behind a ranking
    metric, which is a mean over queries.

    Parameters
    ----------
    values : array-like of shape (n_queries,)
        One value per query, such as a metric column of
        :func:`~skndcg.metrics.ranking_report`.
    n_resamples : int, default=1000
        Number of bootstrap resamples; at least ``1 + 2 / (1 - confidence)``
        (41 at 95%), so that each tail of the interval holds a resample.
    confidence : float in (0, 1), default=0.95
        Coverage of the interval.
    nan_policy : {"omit", "raise"}, default="omit"
        What to do with NaN values (queries a metric skipped because nothing
        in them is relevant): leave them out, as the grouped metrics do, or
        raise.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the resampling.
    sample_weight : array-like of shape (n_queries,), default=None
        Query weights: the estimate and every resampled mean are weighted
        means, as in the grouped metrics with the same weights (the
        ``weight`` column of a report made with ``sample_weight``). A
        query's weight goes with it into the resamples.

    Returns
    -------
    result : BootstrapCI
        Named tuple ``(estimate, low, high)``: the (weighted) mean of the
        values and the interval bounds. All NaN when no value is left. With
        ``sample_weight``, a resample that draws only zero weights has no
        mean and is left out; ``low`` and ``high`` are NaN when every
        resample is such (few positive weights). Constant
        values give ``low == estimate == high``.

    Warns
    -----
    SmallSampleWarning
        On fewer than 10 queries, where the interval is too narrow.

    See Also
    --------
    paired_bootstrap : Interval of the difference between two models.
    compare : Several models, metrics, tests and corrections at once.

    {references}

    Examples
    --------
    >>> from skndcg.evaluation import bootstrap_ci
    >>> ci = bootstrap_ci([0.2, 0.4, 0.6, 0.8, 1.0] * 2, random_state=0)
    >>> round(ci.estimate, 2)
    0.6
    >>> ci.low < ci.estimate < ci.high
    True
    """
    check_resamples(n_resamples, confidence)
    arr = _as_values(values, "values")
    index = values.index if isinstance(values, pd.Series) else None
    w = _as_weights(sample_weight, arr.size, index)
    estimate, means = _mean_and_resamples(
        arr, w, np.isnan(arr), nan_policy, "values", n_resamples, random_state
    )
    return BootstrapCI(estimate, *_interval(means, confidence))


@validate_params(
    dict(_COMMON, a=["array-like"], b=["array-like"]),
    prefer_skip_nested_validation=True,
)
@with_references(_REFERENCES)
def paired_bootstrap(
    a,
    b,
    *,
    n_resamples=1000,
    confidence=0.95,
    nan_policy="omit",
    random_state=None,
    sample_weight=None,
):
    """Paired bootstrap of the mean difference between two models' scores.

    Both models are scored on the same queries; the per-query differences
    ``a - b`` are resampled together, which removes the between-query
    variation the two models share and gives a much narrower interval than
    comparing two separate intervals.

    Parameters
    ----------
    a, b : array-like of shape (n_queries,)
        Per-query values of the two models, aligned (same queries in the same
        order, as two :func:`~skndcg.metrics.ranking_report` calls on the
        same ``qid`` return them).
    n_resamples : int, default=1000
        Number of bootstrap resamples; at least ``1 + 2 / (1 - confidence)``
        (41 at 95%), so that each tail of the interval holds a resample.
    confidence : float in (0, 1), default=0.95
        Coverage of the interval.
    nan_policy : {"omit", "raise"}, default="omit"
        Queries where either value is NaN are left out (``"omit"``) or make
        the call raise.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the resampling.
    sample_weight : array-like of shape (n_queries,), default=None
        Query weights of the (weighted) mean difference.

    Returns
    -------
    result : PairedBootstrap
        Named tuple ``(difference, low, high, p_value)``: mean of ``a - b``,
        the percentile interval, and a two-sided bootstrap p-value (twice the
        share of resampled mean differences on the other side of zero,
        counting the observed difference as one of them, so never below
        ``1 / (n_resamples + 1)``, capped at 1) for "no difference". All NaN
        when no query is left; ``low``, ``high`` and ``p_value`` are NaN when
        every resample draws only zero weights, as in :func:`bootstrap_ci`.

    Warns
    -----
    SmallSampleWarning
        On fewer than 10 queries, where the interval is too narrow and the
        p-value too small.

    See Also
    --------
    bootstrap_ci : Interval of one model's mean.
    compare : Several models, metrics, tests and corrections at once.

    {references}

    Examples
    --------
    >>> from skndcg.evaluation import paired_bootstrap
    >>> a = [0.9, 0.7, 0.8, 0.6, 0.9, 0.5, 0.8, 0.7, 0.6, 0.9]
    >>> b = [0.6, 0.5, 0.7, 0.5, 0.6, 0.4, 0.6, 0.6, 0.5, 0.7]
    >>> result = paired_bootstrap(a, b, random_state=0)
    >>> round(result.difference, 3)
    0.17
    >>> result.low > 0, result.p_value < 0.05
    (True, True)
    """
    check_resamples(n_resamples, confidence)
    index = a.index if isinstance(a, pd.Series) else None
    a_arr, b_arr = _as_values(a, "a"), _as_values(align_on(b, index, "b", "a"), "b")
    if a_arr.size != b_arr.size:
        raise ValueError(
            f"a and b must hold one value per query for the same queries, got "
            f"{a_arr.size} and {b_arr.size} values."
        )
    w = _as_weights(sample_weight, a_arr.size, index)
    nan = np.isnan(a_arr) | np.isnan(b_arr)
    observed, means = _mean_and_resamples(
        a_arr - b_arr, w, nan, nan_policy, "a or b", n_resamples, random_state, True
    )
    p_value = float(bootstrap_p_value(means[:, None], np.array([observed]))[0])
    return PairedBootstrap(observed, *_interval(means, confidence), p_value)
