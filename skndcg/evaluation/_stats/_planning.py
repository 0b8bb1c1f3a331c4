"""How many queries an experiment needs: :func:`required_queries`, and back."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from scipy import stats

from ...utils._counts import check_integer
from ...utils._docstrings import with_references
from ...utils._values import py
from ._resampling import check_choice, check_share

_REFERENCES = """
    References
    ----------
    .. [1] J. Cohen, "Statistical Power Analysis for the Behavioral Sciences",
       2nd ed., Lawrence Erlbaum, 1988 (power of the paired t-test).
    .. [2] T. Sakai, "Topic set size design", Information Retrieval Journal
       19(3), 2016 (the number of topics from a minimum detectable difference
       and a variance estimated on a pilot collection).
"""

_MAX_QUERIES = 10**9


def _check_positive(name, value):
    if isinstance(value, bool) or not isinstance(value, Real) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}.")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}.")
    return float(value)


def pilot_sd(comparison, metric=None, pair=None):
    """Standard deviation of the per-query differences of a pilot comparison,
    weighted and cluster-robust as the comparison was."""
    if hasattr(comparison, "segments"):
        segments = [py(g) for g in comparison.segments]
        raise ValueError(
            "sd is a SegmentedComparison; pass the Comparison of one segment, "
            f"sd=pilot[segment], with segment one of {segments}."
        )
    metrics = list(comparison.metrics)
    if metric is None:
        if len(metrics) != 1:
            raise ValueError(
                f"the pilot comparison has the metrics {metrics}; name one with "
                "metric=."
            )
        metric = metrics[0]
    if metric not in metrics:
        raise ValueError(
            f"metric={metric!r} is not one of the pilot's metrics {metrics}."
        )
    k = metrics.index(metric)
    pairs = list(comparison.pairs)
    if pair is not None:
        if tuple(pair) not in pairs:
            raise ValueError(
                f"pair={pair!r} is not one of the pilot's comparisons {pairs}."
            )
        pairs = [tuple(pair)]
    models = list(comparison.models)
    clusters = comparison.clusters
    sds = []
    for a, b in pairs:
        d = (
            comparison.values[models.index(a), :, k]
            - comparison.values[models.index(b), :, k]
        )
        ok = ~np.isnan(d) & (comparison.weights > 0)
        d, w = d[ok], comparison.weights[ok]
        c = None if clusters is None else clusters[ok]
        units = d.size if c is None else np.unique(c).size
        if units < 2:
            unit = "cluster" if clusters is not None else "query"
            raise ValueError(
                f"the pilot has {units} {unit} for {a!r} - {b!r} on {metric!r}; "
                "the standard deviation needs at least two."
            )
        # sqrt(n) times the weighted (cluster-robust) standard error of the mean.
        r = w * (d - np.dot(w, d) / w.sum())
        if c is not None:
            r = np.bincount(np.unique(c, return_inverse=True)[1], weights=r)
        var = np.sum(r**2) / w.sum() ** 2 * units / (units - 1)
        sds.append(float(np.sqrt(d.size * var)))
    # Several comparisons: plan for the most variable one.
    return max(sds)


def _settings(sd, alpha, power, n_comparisons, alternative, metric, pair):
    """The checked ``sd``, level of each comparison, power and number of sides."""
    if hasattr(sd, "pairs"):
        sd = pilot_sd(sd, metric, pair)
    elif metric is not None or pair is not None:
        raise ValueError(
            "metric= and pair= choose from a pilot Comparison passed as sd."
        )
    else:
        sd = _check_positive("sd", sd)
    alpha = check_share("alpha", alpha)
    power = check_share("power", power)
    check_integer("n_comparisons", n_comparisons, 1)
    check_choice("alternative", alternative, ("two-sided", "greater"))
    return sd, alpha / n_comparisons, power, 2 if alternative == "two-sided" else 1


def _t_sum(n, alpha, power, sides):
    # scipy takes no integer beyond int64; from 10**12 on the t quantiles are
    # the normal ones to 12 digits.
    df = min(n - 1, 10**12)
    return stats.t.ppf(1 - alpha / sides, df) + stats.t.ppf(power, df)


@with_references(_REFERENCES)
def required_queries(
    *,
    effect,
    sd,
    alpha=0.05,
    power=0.8,
    n_comparisons=1,
    alternative="two-sided",
    metric=None,
    pair=None,
):
    """Number of queries needed to detect a mean difference with a paired t-test.

    The paired t approximation: the smallest ``n`` with
    ``n >= ((t[1 - a, n - 1] + t[power, n - 1]) * sd / effect) ** 2``, where
    ``a`` is ``alpha / 2`` (two-sided) or ``alpha`` over ``n_comparisons``
    (a Bonferroni correction, also the first step of Holm's), found by
    iterating from the normal approximation. The same calculation is
    Sakai's topic-set-size design for the paired t-test [2]_.

    Parameters
    ----------
    effect : float > 0
        Smallest mean difference (on the metric's scale) worth detecting.
    sd : float > 0 or Comparison
        Standard deviation of the per-query differences, or a pilot
        :class:`Comparison` whose per-query differences give it: weighted
        by its ``sample_weight`` and cluster-robust over its ``cluster``
        (``sqrt(n)`` times the standard error of its mean difference), so
        the queries planned are weighed and clustered as the pilot's.
        For a :class:`SegmentedComparison`, pass one segment's,
        ``pilot[segment]``.
    alpha : float in (0, 1), default=0.05
        Significance level (of the whole family with ``n_comparisons``).
    power : float in (0, 1), default=0.8
        Probability of detecting a true difference of ``effect``.
    n_comparisons : int >= 1, default=1
        Comparisons (models x metrics x segments) corrected together.
    alternative : {"two-sided", "greater"}, default="two-sided"
        Two-sided test, or one-sided in the expected direction.
    metric : str, default=None
        With a pilot comparison: its metric (needed when it has several).
    pair : tuple, default=None
        With a pilot comparison: the ``(model, other)`` pair whose differences
        give ``sd``; by default the most variable pair.

    Returns
    -------
    n_queries : int
        Queries needed (at least 2).

    See Also
    --------
    minimum_detectable_effect : The other way round.

    {references}

    Examples
    --------
    >>> from skndcg.evaluation import required_queries
    >>> required_queries(effect=0.02, sd=0.1)
    199
    >>> required_queries(effect=0.02, sd=0.1, n_comparisons=5)
    296
    """
    effect = _check_positive("effect", effect)
    sd, a, power, sides = _settings(
        sd, alpha, power, n_comparisons, alternative, metric, pair
    )
    ratio = sd / effect
    z = stats.norm.ppf(1 - a / sides) + stats.norm.ppf(power)
    n = max(2, math.ceil((z * ratio) ** 2))
    for _ in range(100):
        if n > _MAX_QUERIES:
            raise ValueError(
                f"effect={effect!r} is too small against sd={sd!r}: more than "
                f"{_MAX_QUERIES} queries would be needed."
            )
        need = math.ceil((_t_sum(n, a, power, sides) * ratio) ** 2)
        if need <= n:
            break
        n = need
    # The t quantiles shrink as n grows: step back while a smaller n suffices.
    while n > 2 and math.ceil((_t_sum(n - 1, a, power, sides) * ratio) ** 2) <= n - 1:
        n -= 1
    return int(n)


@with_references(_REFERENCES)
def minimum_detectable_effect(
    *,
    n_queries,
    sd,
    alpha=0.05,
    power=0.8,
    n_comparisons=1,
    alternative="two-sided",
    metric=None,
    pair=None,
):
    """Smallest mean difference a paired t-test detects on ``n_queries`` queries.

    ``(t[1 - a, n - 1] + t[power, n - 1]) * sd / sqrt(n)``, with ``a`` as in
    :func:`required_queries`.

    Parameters
    ----------
    n_queries : int >= 2
        Queries of the experiment.
    sd : float > 0 or Comparison
        Standard deviation of the per-query differences, or a pilot
        :class:`Comparison`, as in :func:`required_queries`.
    alpha, power, n_comparisons, alternative, metric, pair
        As in :func:`required_queries`.

    Returns
    -------
    effect : float
        Minimum detectable difference, on the metric's scale.

    See Also
    --------
    required_queries : The other way round.

    {references}

    Examples
    --------
    >>> from skndcg.evaluation import minimum_detectable_effect
    >>> round(minimum_detectable_effect(n_queries=199, sd=0.1), 4)
    0.0199
    """
    check_integer("n_queries", n_queries, 2)
    sd, a, power, sides = _settings(
        sd, alpha, power, n_comparisons, alternative, metric, pair
    )
    n = int(n_queries)
    spread = _t_sum(n, a, power, sides) * sd
    if n >= 2**1000:  # math.sqrt overflows beyond the float range; math.log does not
        return float(spread * math.exp(-math.log(n) / 2))
    return float(spread / math.sqrt(n))
