"""Compare several rankers on the same queries: :func:`compare`."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...metrics import ranking_report
from ...utils._args import check_flags
from ...utils._counts import check_integer
from ...utils._docstrings import with_references
from .._stats._resampling import (
    check_choice,
    check_length,
    check_resamples,
    check_share,
)
from .._stats._significance import CORRECTIONS, TESTS
from .._stats._small_sample import n_queries_text, warn_small
from ._by_segment import compare_segments, segment_labels
from ._inputs import gather, metric_names
from ._numbers import run
from ._result import Comparison

_REFERENCES = """
    References
    ----------
    .. [1] B. Efron and R. Tibshirani, "An Introduction to the Bootstrap", Chapman &
       Hall, 1993 (percentile and BCa intervals).
    .. [2] M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical
       significance tests for information retrieval evaluation", CIKM 2007.
    .. [3] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [4] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate",
       JRSS B 57(1), 1995; Y. Benjamini and D. Yekutieli, "False discovery
       rate-adjusted multiple confidence intervals for selected parameters",
       JASA 100(469), 2005.
    .. [6] T. C. Hesterberg, "What teachers should know about the bootstrap",
       The American Statistician 69(4), 2015 (expanded percentile interval).
    .. [5] A. C. Cameron and D. L. Miller, "A practitioner's guide to
       cluster-robust inference", Journal of Human Resources 50(2), 2015.
"""


@with_references(_REFERENCES)
def compare(
    scores,
    *,
    baseline=None,
    metrics=None,
    test="paired_bootstrap",
    correction="holm",
    confidence=0.95,
    n_resamples=10_000,
    interval="percentile",
    sample_weight=None,
    cluster=None,
    nan_policy="omit",
    random_state=None,
    min_queries=10,
    by=None,
    y_model=None,
):
    """Compare two or more models scored on the same queries.

    Every model's mean of every metric gets a bootstrap interval; every model
    is compared with ``baseline`` (or every pair of models with each other
    when ``baseline=None``) on the per-query differences, which are paired:
    both models answer the same queries, so the variation between easy and
    hard queries cancels out. Each comparison gets the mean difference, its
    interval, the relative lift and its interval, a p-value from ``test``,
    the p-value adjusted by ``correction`` over all (comparison, metric)
    pairs, and win / tie / loss counts.

    Parameters
    ----------
    scores : mapping or pandas.DataFrame
        Per-query values: a mapping ``{model name: DataFrame}`` of
        :func:`~skndcg.metrics.ranking_report` frames (columns ``qid`` and
        the metrics), or one long DataFrame with columns ``model``, ``qid``
        and the metrics (such as :func:`cross_val_ranking_report` frames with
        a ``model`` column). Every model must cover the same queries, once.
    baseline : object, default=None
        Name of the model to compare every other one with; ``None`` compares
        every pair.
    metrics : str or list of str, default=None
        Metric columns to compare; ``None`` takes every numeric column the
        models share except bookkeeping ones (``qid``, ``n_items``,
        ``n_relevant``, ``weight``, ``skipped``, ``fold``, ...) and the
        ``dcg@k`` / ``idcg@k`` columns a report adds behind ``ndcg@k``.
    test : {"paired_bootstrap", "randomization", "t", "wilcoxon"}, \
default="paired_bootstrap"
        Test of "no difference in mean":

        - ``"paired_bootstrap"``: twice the share of bootstrap mean
          differences on the far side of zero;
        - ``"randomization"``: two-sided sign-flip (permutation) test on the
          paired differences; exact (every sign vector) when
          ``2 ** n_units <= n_resamples``;
        - ``"t"``: paired t-test (cluster-robust with ``cluster``, weighted
          with ``sample_weight``);
        - ``"wilcoxon"``: signed-rank test of the per-unit differences; it
          has no weighted form, so ``sample_weight`` is refused.
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        Multiple-comparison correction over every (comparison, metric) pair
        made. The corrected intervals of the differences are Bonferroni
        intervals for ``"holm"`` and ``"bonferroni"`` and false coverage rate
        intervals (Benjamini & Yekutieli, 2005) for ``"fdr_bh"``.
    confidence : float in (0, 1), default=0.95
        Coverage of the intervals; ``1 - confidence`` is the significance
        level of the markers.
    n_resamples : int, default=10_000
        Bootstrap resamples (and random sign vectors of the randomization
        test); at least ``1 + 2 / (1 - confidence)`` (41 at 95%), so that
        each tail of a percentile interval holds a resample, and as many at
        the confidence of the corrected intervals (``1 + 2 m / (1 -
        confidence)`` for ``m`` Bonferroni comparisons: 1201 for 30 at 95%)
        (unused, any int >= 1, with ``y_model`` and ``test="t"``).
    interval : {"percentile", "bca", "expanded"}, default="percentile"
        Percentile or bias-corrected and accelerated bootstrap intervals, or
        expanded percentile intervals (Hesterberg, 2015): percentile
        intervals at the level whose normal quantile is
        ``sqrt(n / (n - 1)) * t[n - 1]``, which corrects the narrowness of
        the bootstrap on few queries (10 to 30) and barely differs beyond.
    sample_weight : str, array-like of shape (n_queries,) or mapping, \
default=None
        Query weights used in every mean, interval and test: a column name
        of the scores (``"weight"`` for reports made with ``sample_weight``),
        one value per query in the order of the first model's rows, or a
        mapping from query id to weight. The weighted means equal the
        ``grouped_*_score`` functions with the same weights.
    cluster : str, array-like of shape (n_queries,) or mapping, default=None
        Cluster of every query (for example the user behind user-by-month
        queries), given like ``sample_weight``. The bootstrap then resamples
        whole clusters and the tests treat clusters as the independent units,
        which widens the intervals when queries of a cluster are correlated.
    nan_policy : {"omit", "raise"}, default="omit"
        A NaN value (a query the metric skipped, for example because nothing
        in it is relevant) leaves that query out of that metric for every
        model (``"omit"``, as the grouped metrics do) or raises.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the resampling.
    min_queries : int >= 0, default=10
        Fewest queries (clusters with ``cluster``) a metric needs for
        bootstrap intervals. Below it a :class:`SmallSampleWarning` says so,
        the intervals are NaN (a bootstrap over a handful of queries
        undercovers: with one query every resample is that query), and the
        default bootstrap test gives way to the sign-flip randomization
        test, exact when ``2 ** n_units <= n_resamples``, which is valid at
        any size (three queries whose differences share a sign give
        p = 0.25, not 0). ``0`` turns the guard off.
    by : str, array-like of shape (n_queries,), mapping or callable, \
default=None
        Segments: one row per segment and model, each with its own
        intervals and tests, and the correction made over every (segment,
        comparison, metric). A column of the scores (such as the
        ``segment`` column of ``ranking_report(..., by=...)``), one label
        per query in the order of the first model's rows, a mapping from
        query id to label, or a rule called with the sorted query ids, such
        as :func:`history_segments`, :func:`frequency_segments` and
        :func:`cold_item_segments`.
    y_model : mapping or pandas.DataFrame, default=None
        Per-query values of the same models under a model's labels (an LLM
        judge) on every query, given like ``scores``; ``scores`` then hold
        the values under human labels on a uniform random sample of the
        queries. Means, differences and lifts become prediction-powered
        (PPI++) estimates with ``test="paired_bootstrap"`` (stratified
        bootstrap) or ``test="t"`` (t intervals), corrected as usual; see
        :class:`PredictionPoweredComparison`.

    Returns
    -------
    comparison : Comparison or SegmentedComparison
        Read with :meth:`Comparison.to_frame`; print with
        :meth:`Comparison.to_markdown`, :meth:`Comparison.to_latex` or
        :meth:`Comparison.to_json`. With ``by``, a
        :class:`SegmentedComparison` holding one comparison per segment;
        with ``y_model``, a :class:`PredictionPoweredComparison`.

    See Also
    --------
    compare_scores : The same from labels and each model's scores.
    cross_val_ranking_report : Out-of-fold per-query values to compare.

    Notes
    -----
    All resampled means come from matrix products of bootstrap count
    matrices with per-query sums, so many models, metrics and queries cost
    little more than one. With ``cluster``, a query's weight counts inside
    its cluster and the clusters are resampled.

    {references}

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skndcg.evaluation import compare
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(200)
    >>> scores = pd.DataFrame({
    ...     "model": ["bm25"] * 200 + ["ltr"] * 200,
    ...     "qid": np.tile(np.arange(200), 2),
    ...     "ndcg@10": np.r_[base, np.clip(base + 0.05, 0, 1)],
    ... })
    >>> cmp = compare(scores, baseline="bm25", n_resamples=2000, random_state=0)
    >>> row = cmp.to_frame().set_index("model").loc["ltr"]
    >>> bool(row["diff"] > 0), bool(row["significant"]), int(row["wins"]) > 150
    (True, True, True)
    """
    check_choice("test", test, TESTS)
    check_choice("correction", correction, (*CORRECTIONS, None))
    check_share("confidence", confidence)
    check_choice("interval", interval, ("percentile", "bca", "expanded"))
    check_choice("nan_policy", nan_policy, ("omit", "raise"))
    # A prediction-powered t test draws no resample: any n_resamples >= 1 does.
    t_only = y_model is not None and test == "t"
    check_resamples(n_resamples, confidence, tails=0 if t_only else 2)
    check_integer("min_queries", min_queries, 0)
    exclude = by if isinstance(by, str) else None
    s = gather(scores, metrics, sample_weight, cluster, nan_policy, exclude)
    if baseline is not None and baseline not in s.models:
        raise ValueError(f"baseline={baseline!r} is not one of the models {s.models}.")
    if test == "wilcoxon" and sample_weight is not None:
        raise ValueError(
            "test='wilcoxon' has no weighted form; with sample_weight use "
            "test='paired_bootstrap', 'randomization' or 't'."
        )
    settings = dict(
        baseline=baseline,
        test=test,
        correction=correction,
        confidence=float(confidence),
        n_resamples=int(n_resamples),
        interval=interval,
        min_queries=int(min_queries),
    )
    flags = dict(clustered=cluster is not None, weighted=sample_weight is not None)
    if y_model is not None:
        from .._ppi._comparison import two_sources

        extra = dict(sample_weight=sample_weight, cluster=cluster, by=by)
        return two_sources(scores, y_model, metrics, nan_policy, settings,
                           random_state, **extra)  # fmt: skip
    if by is not None:
        labels = segment_labels(by, scores, s)
        return compare_segments(s, labels, settings, flags, random_state)
    result = run(s, random_state=random_state, **settings)
    del result["diff_dist"], result["diff_jack"]
    if result["small"].any():
        small = result["small"]
        names = ", ".join(str(m) for m, x in zip(s.metrics, small, strict=True) if x)
        n = int(result["n_units"][small].max())
        warn_small(f"{names}: {n_queries_text(n)}", settings)
    settings.pop("min_queries")
    return Comparison(s, result, **settings, **flags)


def compare_scores(
    y_true,
    y_scores,
    qid,
    *,
    metrics=("ndcg@10",),
    baseline=None,
    sample_weight=None,
    cluster=None,
    metric_options=None,
    by=None,
    y_model=None,
    expected_labels=False,
    **compare_options,
):
    """Compare models from the labels, the query ids and each model's scores.

    Shortcut for :func:`~skndcg.metrics.ranking_report` on every model
    followed by :func:`compare`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance labels.
    y_scores : mapping
        ``{model name: y_score}``, one score per row for each model.
    qid : array-like of shape (n_samples,)
        Query id of every row.
    metrics : str or list of str, default=("ndcg@10",)
        Metric names, as in :func:`~skndcg.metrics.ranking_report`.
    baseline : object, default=None
        As in :func:`compare`.
    sample_weight : array-like of shape (n_samples,) or mapping, default=None
        Query weights, as the metric functions take them (one per row,
        constant within a query, or a mapping from query id).
    cluster : array-like of shape (n_samples,) or mapping, default=None
        Cluster of every row (constant within a query), or a mapping from
        query id to cluster.
    metric_options : dict, default=None
        Options of :func:`~skndcg.metrics.ranking_report` (``gain``,
        ``ties``, ``convention``, ...).
    by : array-like of shape (n_samples,), mapping or callable, default=None
        Segment of every row (constant within a query), a mapping from query
        id to segment, or a rule (see :func:`compare`); one row per segment
        and model, with the correction over all of them.
    y_model : array-like of shape (n_samples,), default=None
        A model's label (an LLM judge's) of every row; ``y_true`` is then
        NaN on the rows of the queries no human judged (a uniform random
        sample of queries is judged), and the comparison is
        prediction-powered (see :func:`compare`).
    expected_labels : bool, default=False
        ``y_model`` holds expected grades, not grades (see
        :func:`prediction_powered_report`).
    **compare_options : dict
        Options of :func:`compare` (``test``, ``correction``,
        ``n_resamples``, ``random_state``, ...).

    Returns
    -------
    comparison : Comparison

    Examples
    --------
    >>> from skndcg.evaluation import compare_scores
    >>> # Three queries, four times over: fewer than 10 give no interval.
    >>> y = [3, 2, 0, 1, 0, 2, 1, 0] * 4
    >>> qid = [q + 10 * r for r in range(4) for q in (1, 1, 1, 2, 2, 3, 3, 3)]
    >>> cmp = compare_scores(y, {"ltr": [3, 2, 1, 2, 1, 3, 2, 1] * 4,
    ...                          "random": [1, 3, 2, 1, 2, 2, 1, 3] * 4}, qid,
    ...                      baseline="random", n_resamples=500, random_state=0)
    >>> cmp.to_frame()[["model", "mean"]].round(3)
        model   mean
    0     ltr  1.000
    1  random  0.707
    """
    check_flags(expected_labels=expected_labels)
    if not isinstance(y_scores, Mapping) or len(y_scores) < 2:
        size = (
            f" with {len(y_scores)} model(s)" if isinstance(y_scores, Mapping) else ""
        )
        raise ValueError(
            "y_scores must be a mapping {model name: y_score} of at least two "
            f"models, got {type(y_scores).__name__}{size}."
        )
    options = dict(metric_options or {})
    names = metric_names(metrics)
    if y_model is not None:
        from .._ppi._comparison import reports_two_sources

        human, model = reports_two_sources(
            y_true, y_scores, qid, y_model, names, options, expected_labels
        )
        return compare(human, y_model=model, baseline=baseline, metrics=names,
                       sample_weight=sample_weight, cluster=cluster, by=by,
                       **compare_options)  # fmt: skip
    reports = model_reports(
        y_true, y_scores, qid, metrics=metrics, sample_weight=sample_weight, **options
    )
    clusters = None if cluster is None else _cluster_per_query(cluster, qid)
    if by is not None and not callable(by):
        by = _cluster_per_query(by, qid, "by")
    return compare(
        reports,
        baseline=baseline,
        metrics=names,
        sample_weight=None if sample_weight is None else "weight",
        cluster=clusters,
        by=by,
        **compare_options,
    )


def model_reports(y_true, scores, qid, **options):
    """``{model: ranking_report}``; a refusal of a model's scores names it."""
    reports = {}
    for name, score in scores.items():
        try:
            reports[name] = ranking_report(y_true, score, qid, **options)
        except ValueError as exc:
            if not str(exc).startswith("y_score"):
                raise
            raise ValueError(f"model {name!r}: {exc}") from exc
    return reports


def _cluster_per_query(cluster, qid, name="cluster"):
    if isinstance(cluster, (Mapping, pd.Series)):
        return cluster
    qid = np.asarray(qid)
    n = qid.shape[0]
    cluster = check_length(cluster, n, f"{name} must hold one value per row ({n} rows)")
    rows = pd.DataFrame({"qid": qid, "cluster": cluster})
    per_q = rows.groupby("qid", sort=False)["cluster"].nunique()
    if (per_q > 1).any():
        bad = per_q.index[per_q > 1][:5].tolist()
        raise ValueError(
            f"{name} varies within the queries {bad}; give every row of a query "
            f"the same {name}."
        )
    return rows.drop_duplicates("qid").set_index("qid")["cluster"]
