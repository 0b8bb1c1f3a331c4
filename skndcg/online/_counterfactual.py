"""counterfactual_report: a new ranker's clicks estimated from a logged ranker's."""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ..evaluation._shared import (
    as_generator,
    bootstrap_ratios,
    check_resamples,
    percentile_interval,
)
from ..utils._constraints import Count
from ..utils._docstrings import with_references
from ._cascade import cascade_estimate
from ._clicklog import (
    check_click_log,
    check_examination,
    check_logging_probability,
    column,
)
from ._estimators import default_relevance, pbm_terms
from ._ranking import rank_weights, target_table

ESTIMATORS = ("ips", "snips", "dr", "cascade")
_COLUMNS = [
    "estimate",
    "low",
    "high",
    "effective_sample_size",
    "n_queries",
    "max_weight",
    "unsupported_share",
    "clipped_share",
    "clipping_bias",
]

_REFERENCES = """
    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased Learning-to-Rank
       with Biased Feedback", WSDM 2017.
    .. [2] S. Li, Y. Abbasi-Yadkori, B. Kveton, S. Muthukrishnan, V. Vinay and
       Z. Wen, "Offline Evaluation of Ranking Policies with Click Models",
       KDD 2018.
    .. [3] A. Swaminathan and T. Joachims, "The Self-Normalized Estimator for
       Counterfactual Learning", NeurIPS 2015.
    .. [4] M. Dudik, J. Langford and L. Li, "Doubly Robust Policy Evaluation and
       Learning", ICML 2011.
    .. [5] N. Craswell, O. Zoeter, M. Taylor and B. Ramsey, "An Experimental
       Comparison of Click Position-Bias Models", WSDM 2008.
    .. [6] O. Jeunen, I. Potapov and A. Ustimenko, "On (Normalised) Discounted
       Cumulative Gain as an Off-Policy Evaluation Metric for Top-n
       Recommendation", KDD 2024.
"""


def _estimators(estimators):
    names = [estimators] if isinstance(estimators, str) else list(estimators)
    bad = [e for e in names if e not in ESTIMATORS]
    if not names or bad or len(set(names)) < len(names):
        raise ValueError(
            f"estimators must be distinct names among {list(ESTIMATORS)}, got "
            f"{estimators!r}."
        )
    return names


def _largest(weight, qid, item, log, n=10):
    top = np.argpartition(-weight, n)[:n] if weight.size > n else np.arange(weight.size)
    top = top[np.argsort(-weight[top], kind="stable")]
    top = top[weight[top] > 0]
    return pd.DataFrame(
        {
            "row": top,
            "qid": np.asarray(qid)[top],
            "item": np.asarray(item)[top],
            "position": log.position[top],
            "weight": weight[top],
        }
    )


@validate_params(
    {
        "qid": ["array-like"],
        "item": ["array-like"],
        "position": ["array-like"],
        "click": ["array-like"],
        "new_score": ["array-like"],
        "examination": ["array-like", None],
        "logging_probability": ["array-like", None],
        "estimators": [list, tuple, str],
        "k": [Count(1)],
        "target": [StrOptions({"clicks", "dcg"})],
        "relevance": ["array-like", None],
        "clip": [Interval(Real, 0, None, closed="neither"), None],
        "n_resamples": [Count(0)],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
@with_references(_REFERENCES)
def counterfactual_report(
    qid,
    item,
    position,
    click,
    new_score,
    *,
    examination=None,
    logging_probability=None,
    estimators=("ips", "snips"),
    k=10,
    target="clicks",
    relevance=None,
    clip=None,
    n_resamples=1000,
    confidence=0.95,
    random_state=None,
):
    """Estimate from a click log what a new ranker would get, with intervals.

    The log has one row per candidate of each logged query: the rows the
    logging ranker showed (``position`` 1, 2, ...) and the ones it did not
    (``position`` NaN). The new ranker ranks every candidate of a query by
    ``new_score`` and shows its top ``k``. Under the position-based model
    (Craswell et al., 2008) a user examines position ``r`` with probability
    ``examination[r - 1]`` and clicks an examined item with probability equal to
    its relevance, so the target, the new ranker's expected clicks per query,
    is ``sum_r examination[r - 1] * relevance`` over its top ``k``. Each click
    of the log is reweighted by how much more (or less) the new ranker would
    expose that item than the logger did.

    Estimators (``estimators=``):

    - ``"ips"``: inverse propensity scoring. A shown row's click counts
      ``t / (e * p)`` times: ``t`` the target's weight of the row's new rank,
      ``e`` the examination of its logged position, ``p`` the chance the
      logger showed it. Unbiased when ``e`` and ``p`` are right and every item
      of the new top ``k`` could have been shown.
    - ``"snips"``: self-normalised IPS; the total is divided by the sum over
      queries of the mean display weight ``s / p`` (``s`` = shown, weighted by
      ``t``), whose expectation is 1. Slightly biased, often much less variable.
    - ``"dr"``: doubly robust: the relevance model's prediction for every
      item of the new top ``k``, plus IPS on its errors. Unbiased when the
      propensities are right, and also where the logger could not show an
      item if the model is right there. ``relevance=`` passes a model's
      predictions; by default a cross-fitted model pools clicks over
      examination by ``item`` (so item ids must name the same item across
      queries for it to learn anything).
    - ``"cascade"``: under the cascade model (users read down and click the
      first attractive item), rows at or above a query's first click were
      examined; each item's attraction is its clicks over its examined rows
      (pooled by ``item``; an item never examined takes the overall rate)
      and the new top ``k``'s chance of a click, ``1 - prod(1 - attraction)``,
      is averaged over queries. It needs no
      examination or propensities, but needs each item examined in several
      queries; its target is the cascade model's, not the position-based
      one. Only ``target="clicks"``.

    Parameters
    ----------
    qid : array-like of shape (n_rows,)
        Logged query of each row (one ranking shown once): a query shown
        several times needs an id per impression.
    item : array-like of shape (n_rows,)
        Item id of each row (used by the default relevance model and the
        cascade estimator, which pool by item, and in the diagnostics); an
        item is one row of its logged query, and a second row of it is
        refused.
    position : array-like of shape (n_rows,)
        1-based logged position, NaN where the row was not shown.
    click : array-like of shape (n_rows,)
        1 (or True) when the row was clicked; only shown rows can be clicked.
    new_score : array-like of shape (n_rows,)
        The new ranker's score of each row; higher ranks first. Tied scores
        share the mean weight of the ranks they span (the expected value
        when ties are broken at random); the cascade estimator breaks ties by
        row order.
    examination : array-like of shape (n_positions,) or PositionBias, default=None
        Examination probability of positions 1, 2, ...: an array, or the
        :class:`~skndcg.evaluation.PositionBias` that
        :func:`~skndcg.evaluation.estimate_position_bias` returns (relative to
        position 1, which is enough for ``target="clicks"``: only ratios of
        examinations enter the weights). It must cover the deepest logged
        position and, for ``target="clicks"``, the first ``k``. ``None``
        estimates it from this log (``estimate_position_bias`` with
        ``doc=item``).
    logging_probability : array-like of shape (n_rows,), default=None
        The probability that the logging policy showed the row's item in
        that query's list, at any of its positions (its marginal display
        probability, given the query). In ``(0, 1]`` for shown rows; ``0`` on
        an unshown row means the logger could never show it. ``None`` means a
        deterministic logger: 1 for the shown rows and 0 for the others, so
        only re-ordering of the shown items is estimated.
    estimators : sequence of {"ips", "snips", "dr", "cascade"}, default=("ips", "snips")
        Estimators to report, one row each.
    k : int >= 1, default=10
        Cut-off of the new ranking.
    target : {"clicks", "dcg"}, default="clicks"
        ``"clicks"``: expected clicks on the new top ``k`` under the
        position-based model. ``"dcg"``: the unbiased DCG of Jeunen et al.
        (2024), ``sum_r relevance / log2(r + 1)`` over the new top ``k``, with
        relevance the click probability once examined (on the scale of
        ``examination``: with a relative examination it is relative to the top
        position's).
    relevance : array-like of shape (n_rows,), default=None
        Predicted relevance (click probability once examined) of every row
        for ``"dr"``; ``None`` uses the default model described above.
    clip : float > 0, default=None
        Largest inverse propensity ``1 / (e * p)``: weights above are cut to
        ``clip``. Clipping trades variance for a downward bias (the clipped
        estimator counts a row's relevance times ``min(1, clip * e * p)``); the
        ``clipping_bias`` column estimates that bias as the clipped estimate
        minus the unclipped one (itself as noisy as the unclipped estimate).
    n_resamples : int >= 0, default=1000
        Bootstrap resamples of the logged queries for the intervals; 0 skips
        them (NaN bounds). Otherwise at least ``1 + 2 / (1 - confidence)`` (41
        at 95%), so that each tail of the interval has a resample beyond it.
    confidence : float in (0, 1), default=0.95
        Coverage of the intervals.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the bootstrap.

    Returns
    -------
    report : pandas.DataFrame
        One row per estimator (index ``estimator``) with the columns
        ``estimate`` (per logged query), ``low`` and ``high`` (percentile
        bootstrap interval over queries), ``effective_sample_size`` (Kish's,
        over queries, of each query's total click weight; NaN for
        ``"cascade"``), ``n_queries``, ``max_weight`` (the largest weight on a
        click), ``unsupported_share`` (share of the target's weight on items the
        logger could not show; for ``"cascade"``, on items never examined),
        ``clipped_share`` (share of the new top-``k`` rows whose weight was
        clipped) and ``clipping_bias``. ``report.attrs["largest_weights"]``
        lists the rows with the largest weights.

    Warns
    -----
    UserWarning
        When the new top ``k`` holds items the logger could not show: the
        estimates count no clicks for them and are biased low (``"dr"``
        uses its relevance model there).

    See Also
    --------
    simulate_click_log : A click log with known truth, to check the estimates.
    skndcg.evaluation.estimate_position_bias : Examination from a click log.

    {references}

    Examples
    --------
    >>> from skndcg.online import counterfactual_report, simulate_click_log
    >>> sim = simulate_click_log(n_queries=2000, random_state=0)
    >>> log = sim.log
    >>> report = counterfactual_report(
    ...     log["qid"], log["item"], log["position"], log["click"], log["feature"],
    ...     examination=sim.examination,
    ...     logging_probability=log["logging_probability"],
    ...     n_resamples=200, random_state=0)
    >>> list(report.index)
    ['ips', 'snips']
    >>> truth = sim.true_value(log["feature"], k=10)
    >>> bool(((report["low"] <= truth) & (truth <= report["high"])).all())
    True
    """
    names = _estimators(estimators)
    if n_resamples:
        check_resamples(n_resamples, confidence)
    log = check_click_log(qid, item, position, click, new_score)
    if not log.shown.any():
        raise ValueError("position is NaN on every row: the log shows nothing.")
    p = check_logging_probability(logging_probability, log)
    pbm = [e for e in names if e != "cascade"]
    if "cascade" in names and target != "clicks":
        raise ValueError("the 'cascade' estimator supports target='clicks' only.")
    need_items = "cascade" in names or ("dr" in names and relevance is None)
    # item codes in order of first appearance (nearby within a query)
    items = pd.factorize(np.asarray(item))[0] if need_items else None
    rng = as_generator(random_state)
    rows = {}
    attrs = {"target": target, "k": k}
    if pbm:
        e = check_examination(examination, log, item, k, target)
        exam_at = np.where(log.shown, e[np.maximum(log.position, 1) - 1], 0.0)
        t = rank_weights(log.codes, log.score, target_table(target, k, e))
        rel = None
        if "dr" in pbm:
            rel = (
                default_relevance(log, items, exam_at)
                if relevance is None
                else column(relevance, "relevance", log.codes.size, np.float64)
            )
            if not np.isfinite(rel).all():
                raise ValueError("relevance must be finite on every row.")
        num, den, raw, weight, clipped = pbm_terms(log, exam_at, p, t, clip, rel)
        unsupported = float(t[p == 0].sum() / t.sum()) if t.sum() > 0 else 0.0
        if unsupported > 0:
            n_items = int(((p == 0) & (t > 0)).sum())
            warnings.warn(
                f"the new ranker puts {n_items} item(s) in its top {k} that the "
                f"logger could not show (logging_probability 0, or not shown with "
                f"logging_probability=None): {unsupported:.1%} of the target's "
                "weight. IPS and SNIPS count no clicks for them and are biased low; "
                "'dr' uses its relevance model there.",
                UserWarning,
                stacklevel=3,
            )
        w_shown = weight * log.shown
        per_q = np.bincount(log.codes, weights=w_shown, minlength=log.n_queries)
        total, sq = per_q.sum(), np.dot(per_q, per_q)
        ess = float(total * total / sq) if sq > 0 else 0.0  # Kish's
        max_w = float(weight[log.shown].max())
        nums = np.column_stack([num[e] for e in pbm])
        dens = np.column_stack([den[e] for e in pbm])
        est = nums.sum(0) / dens.sum(0)
        unclipped = np.array([raw[e].sum() for e in pbm]) / dens.sum(0)
        # no resamples: no rows, and NaN bounds
        dist = bootstrap_ratios(nums, dens, n_resamples, rng)
        low, high = percentile_interval(dist, confidence)
        for j, name in enumerate(pbm):
            rows[name] = [
                est[j], low[j], high[j], ess, log.n_queries, max_w, unsupported,
                clipped, 0.0 if clip is None else est[j] - unclipped[j],
            ]  # fmt: skip
        attrs["largest_weights"] = _largest(w_shown, qid, item, log)
    if "cascade" in names:
        value, dist, unseen = cascade_estimate(log, items, k, n_resamples, rng)
        low, high = percentile_interval(dist[:, None], confidence)
        rows["cascade"] = [
            value, low[0], high[0], np.nan, log.n_queries, np.nan, unseen, 0.0, 0.0,
        ]  # fmt: skip
    report = pd.DataFrame.from_dict(
        {name: rows[name] for name in names}, orient="index", columns=_COLUMNS
    )
    report.index.name = "estimator"
    report["n_queries"] = report["n_queries"].astype(np.int64)
    report.attrs.update(attrs)
    return report
