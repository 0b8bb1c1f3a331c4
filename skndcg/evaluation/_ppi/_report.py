"""Metrics from a model's labels corrected by a human sample:
:func:`prediction_powered_report`."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ...utils._counts import check_integer
from ...utils._docstrings import with_references
from .._compare._inputs import metric_names
from .._stats._resampling import (
    as_generator,
    check_choice,
    check_resamples,
    check_share,
)
from .._stats._small_sample import SmallSampleWarning, n_queries_text
from ._estimator import METHODS, estimate, model_only
from ._inputs import (
    check_labels,
    inclusion_per_query,
    ratio_parts,
    scores_per_row,
    two_reports,
)

REFERENCES = """
    References
    ----------
    .. [1] A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
       "Prediction-powered inference", Science 382(6671), 2023.
    .. [2] A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient
       prediction-powered inference", arXiv:2311.01453, 2024.
    .. [3] H. Oosterhuis, R. Jagerman, Z. Qin, X. Wang and M. Bendersky,
       "Reliable confidence intervals for information retrieval evaluation
       using generative A.I.", arXiv:2407.02464, 2024.
    .. [4] D. G. Horvitz and D. J. Thompson, "A generalization of sampling
       without replacement from a finite universe", JASA 47(260), 1952.
"""


@with_references(REFERENCES)
def prediction_powered_report(
    y_true,
    y_model,
    y_score,
    qid,
    *,
    metrics=("ndcg@10",),
    confidence=0.95,
    method="ppi++",
    expected_labels=False,
    grades=None,
    inclusion_probability=None,
    interval="clt",
    n_resamples=2000,
    random_state=None,
    metric_options=None,
    min_queries=10,
):
    """Metrics from a model's labels on every query, corrected by a human sample.

    The relevance labels come from two sources: a model (an LLM judge, a
    click model) labels every row, and humans label the rows of a random
    sample of queries. The metrics under the model's labels alone are
    biased by the model's errors; under the human labels alone they are
    unbiased but rest on few queries. The prediction-powered estimate
    (PPI, [1]_) uses both: the mean under the model's labels over every
    query, plus the mean gap between human and model values on the judged
    queries. It is unbiased for the human-label value however wrong the
    model is, and its interval is valid; the better the model agrees with
    the humans, the narrower it gets. PPI++ [2]_ weighs the model's part by
    the factor ``lambda`` that minimises the variance, so it is never wider
    than the human-only interval (asymptotically) when the model is useless.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human labels, NaN on the rows nobody judged. A query is human-judged
        when any of its rows has a label; an unlabelled row of a judged
        query counts as not relevant (trec_eval's rule).
    y_model : array-like of shape (n_samples,)
        The model's label of every row, on the humans' grade scale; with
        ``expected_labels=True``, the expected grade (any number in the
        scale's range).
    y_score : array-like of shape (n_samples,)
        The ranking's scores.
    qid : array-like of shape (n_samples,)
        Query id of every row.
    metrics : str or sequence of str, default=("ndcg@10",)
        Metric names, as in :func:`~skndcg.metrics.ranking_report`.
    confidence : float in (0, 1), default=0.95
        Coverage of the intervals.
    method : {"ppi++", "ppi", "human"}, default="ppi++"
        ``"ppi++"``: power-tuned ``lambda`` [2]_; ``"ppi"``: the classical
        rectifier (``lambda = 1``) [1]_; ``"human"``: human labels only.
    expected_labels : bool, default=False
        ``y_model`` holds expected labels rather than grades.
    grades : tuple of (float, float), default=None
        The lowest and highest grade of the scale; ``None`` takes the
        range of the human labels. Labels outside it are refused.
    inclusion_probability : array-like of shape (n_samples,) or mapping, \
default=None
        Probability with which each query was drawn for human judgment (one
        value per row, constant within a query, or a mapping from query id).
        ``None``: the judged queries are a uniform random sample of all
        queries. Queries picked by another rule (stratified, or favouring
        queries the model is unsure about) must pass the probabilities they
        were drawn with: each judged query then weighs ``1 / probability``
        (Horvitz-Thompson [4]_), which keeps the estimate unbiased.
    interval : {"clt", "bootstrap"}, default="clt"
        Normal-theory intervals (Student quantile with ``n - 1`` degrees of
        freedom, ``n`` the judged queries), or percentile intervals of a
        bootstrap that resamples judged and other queries separately and
        re-estimates ``lambda`` on each resample.
    n_resamples : int, default=2000
        Resamples of the bootstrap; with ``interval="bootstrap"``, at least
        ``1 + 2 / (1 - confidence)`` (41 at 95%), so that each tail of the
        interval holds a resample.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the bootstrap.
    metric_options : dict, default=None
        Options of :func:`~skndcg.metrics.ranking_report` (``gain``,
        ``ties``, ``convention``, ...), applied under both label sources.
    min_queries : int >= 0, default=10
        Fewer human-judged queries give a :class:`SmallSampleWarning`, as
        in :func:`compare`; the numbers are returned as computed. 0 never
        warns.

    Returns
    -------
    report : pandas.DataFrame
        One row per metric: ``metric``, ``method``, ``estimate``, ``low``,
        ``high``, ``se``; ``model_only``, ``model_only_low``,
        ``model_only_high`` (the model's labels alone, every query);
        ``human_only``, ``human_only_low``, ``human_only_high`` (human labels
        alone, judged queries); ``n_judged`` and ``n_queries``; ``lambda``;
        ``variance_removed``, the share of the human-only variance the
        model's labels removed (``1 - se**2 / se_human**2``; NaN when the
        human-only values of the judged queries do not vary);
        ``sd_human`` and ``sd_residual``, the per-query standard deviations
        of the human values and of what the model's labels leave unexplained
        (used by :func:`prediction_powered_queries`).

    Warns
    -----
    SmallSampleWarning
        On fewer than ``min_queries`` human-judged queries, where the
        intervals are too narrow (on two, PPI++'s ``lambda`` fits them
        exactly: ``sd_residual`` is 0).
    UserWarning
        When a metric skips every human-judged query under the human
        labels, or every query under the model's (nothing relevant in any:
        all labels 0), whose estimates are then NaN.

    See Also
    --------
    judge_agreement : How well the model's labels agree with the humans'.
    prediction_powered_queries : Human-judged queries needed for a width.
    compare_scores : Systems compared, with ``y_model=`` for two sources.

    Notes
    -----
    A query's metric is a ratio of means when queries can be skipped (NDCG
    of a query with nothing relevant): the estimate is then the ratio of
    two prediction-powered means, with a delta-method interval. The
    intervals are for the mean over the population of queries the queries
    given were drawn from, like :func:`bootstrap_ci`'s.

    {references}

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.evaluation import prediction_powered_report
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(400), 10)
    >>> y = rng.integers(0, 4, qid.size).astype(float)
    >>> y_llm = np.clip(y + rng.integers(-1, 2, qid.size), 0, 3)  # a noisy judge
    >>> score = y + rng.normal(0, 2, qid.size)
    >>> y_human = np.where(qid < 40, y, np.nan)  # humans judged 40 queries
    >>> report = prediction_powered_report(y_human, y_llm, score, qid)
    >>> row = report.iloc[0]
    >>> int(row["n_judged"]), int(row["n_queries"])
    (40, 400)
    >>> bool(row["high"] - row["low"] < row["human_only_high"] - row["human_only_low"])
    True
    """
    check_choice("method", method, METHODS)
    level = check_share("confidence", confidence)
    check_choice("interval", interval, ("clt", "bootstrap"))
    check_resamples(n_resamples, level, tails=2 if interval == "bootstrap" else 0)
    check_integer("min_queries", min_queries, 0)
    y_true, y_model, qid, judged_rows = check_labels(
        y_true, y_model, qid, expected_labels=expected_labels, grades=grades
    )
    y_score = scores_per_row(y_score, qid)
    names = metric_names(metrics)
    options = dict(metric_options or {})
    for key in ("queries", "sample_weight", "by", "return_means"):
        if key in options:
            raise ValueError(
                f"metric_options may not hold {key!r} here: a prediction-powered "
                "estimate weighs every query alike."
            )
    model, human = two_reports(
        y_true, y_model, y_score, qid, judged_rows, names, options
    )
    # Per-query values (n_queries, n_metrics), H NaN on the queries no human judged.
    qids = model["qid"].to_numpy()
    pos = pd.Index(qids).get_indexer(human["qid"].to_numpy())
    judged = np.zeros(qids.size, bool)
    judged[pos] = True
    F = model[names].to_numpy(dtype=float)
    H = np.full_like(F, np.nan)
    H[pos] = human[names].to_numpy(dtype=float)
    n = int(judged.sum())
    if n < 2:
        raise ValueError(
            f"y_true has human labels on {n} query; a prediction-powered interval "
            "needs at least two human-judged queries (and many more to be useful)."
        )
    if n < min_queries:
        warnings.warn(
            f"{n_queries_text(n)} judged by humans (fewer than min_queries="
            f"{min_queries}): the prediction-powered intervals and se rest on so "
            "few queries that they are too narrow (on two, PPI++'s lambda fits "
            "them exactly and sd_residual is 0). Judge more queries "
            "(prediction_powered_queries says how many), or pass min_queries=0 "
            "to silence this.",
            SmallSampleWarning,
            stacklevel=2,
        )
    pi = inclusion_per_query(inclusion_probability, qids, judged, qid)
    boot = None if interval == "clt" else int(n_resamples)
    opts = dict(confidence=confidence, bootstrap=boot, rng=as_generator(random_state))
    rows = []
    for k, name in enumerate(names):
        for where, vals in (
            ("human-judged query under y_true", H[judged, k]),
            ("query under y_model", F[:, k]),
        ):
            if np.isnan(vals).all():
                warnings.warn(
                    f"{name} skips every {where} (nothing relevant "
                    "in any: are all its labels 0?), so the estimates that rest "
                    "on them are NaN.",
                    UserWarning,
                    stacklevel=2,
                )
        parts = ratio_parts(F[:, k], H[:, k])
        ppi = estimate(*parts, judged, pi, method=method, **opts)
        hum = estimate(*parts, judged, pi, method="human", **opts)
        mod = model_only(*parts[2:], **opts)
        # The share of the human-only variance removed: undefined (NaN) when the
        # human-only values do not vary at all.
        hum_var = float(hum["se"]) ** 2
        removed = 1.0 - float(ppi["se"]) ** 2 / hum_var if hum_var > 0 else np.nan
        row = {"metric": name, "method": method}
        row.update({key: ppi[key] for key in ("estimate", "low", "high", "se")})
        hum_only = (hum["estimate"], hum["low"], hum["high"])
        for pre, (value, low, high) in (("model_only", mod), ("human_only", hum_only)):
            row.update({pre: value, f"{pre}_low": low, f"{pre}_high": high})
        row.update({"n_judged": n, "n_queries": int(judged.size), "lambda": ppi["lam"]})
        row["variance_removed"] = removed
        row.update({key: ppi[key] for key in ("sd_human", "sd_residual")})
        rows.append(row)
    return pd.DataFrame(rows)
