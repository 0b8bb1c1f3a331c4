"""Rank every eligible item (or the stage's candidates) of each query, and score."""

from __future__ import annotations

import re
import warnings
from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.utils.metadata_routing import MetadataRequest

from ..metrics import ranking_report
from ..utils._args import check_flags, metric_names
from ._features import HistoryFeatures

PROTOCOLS = ("catalogue", "stage")
_CUTOFF = re.compile(r"@\s*(\d+)\s*$")


class CatalogueFallbackWarning(UserWarning):
    """Every query of a fold belongs to a user without a past.

    The collaborative features are then all zero and the ranking is the
    candidate stage's popularity fallback (ties broken by the item's number
    of users): the fold measures popularity, not the model's use of history.
    """


def _settings(builder, candidates, top_n, metrics):
    """The checked ``top_n`` (an int) and metric names."""
    if candidates not in PROTOCOLS:
        raise ValueError(
            f"candidates must be one of {list(PROTOCOLS)}, got {candidates!r}."
        )
    if top_n is None:
        top_n = builder.n_candidates if candidates == "stage" else 100
    if isinstance(top_n, bool) or not isinstance(top_n, Integral) or top_n < 1:
        raise ValueError(f"top_n must be an integer >= 1 or None, got {top_n!r}.")
    top_n = int(top_n)
    names = metric_names(metrics)
    for name in names:
        match = _CUTOFF.search(str(name))
        if match is None or int(match.group(1)) > top_n:
            raise ValueError(
                f"metric {name!r} needs a cut-off of at most top_n={top_n} under "
                f"candidates={candidates!r}: only the top {top_n} items per query "
                "are kept, e.g. 'ndcg@10'."
            )
    return top_n, names


def _top(qid, score, top_n):
    """Rows among the ``top_n`` best of their query (ties with the last kept)."""
    order = np.lexsort((-score, qid))
    q = qid[order]
    start = np.r_[0, np.flatnonzero(q[1:] != q[:-1]) + 1]
    size = np.diff(np.r_[start, q.size])
    last = start + np.minimum(size, top_n) - 1
    threshold = np.repeat(score[order][last], size)
    keep = np.zeros(qid.size, dtype=bool)
    keep[order] = score[order] >= threshold
    return keep


def catalogue_report(
    estimator,
    builder,
    qids=None,
    *,
    candidates="catalogue",
    metrics=("ndcg@10",),
    top_n=None,
    return_candidates=False,
    **metric_options,
):
    """Rank each query's eligible items with a fitted model and score it.

    With ``candidates="catalogue"`` the model scores every item eligible for
    the query (:class:`HistoryFeatures`: met by anyone before the query's
    window, not by its user); with ``candidates="stage"`` it reranks the
    builder's candidate stage output (the stage's ``n_candidates`` best
    items) and every other eligible item ranks below them. Either way every
    positive of the query is judged: one the model (or the stage) does not
    put in its top ``top_n`` is *judged but not retrieved*, so NDCG, recall
    and AP are those of a ranking of the whole catalogue.

    Parameters
    ----------
    estimator : fitted estimator
        Anything with ``predict`` on the builder's feature rows (a
        :class:`~skndcg.ranker.QueryRanker` included); higher ranks first.
    builder : HistoryFeatures
        Fitted on the interaction log.
    qids : array-like or None, default=None
        Queries of ``builder.queries_``; None takes all.
    candidates : {"catalogue", "stage"}, default="catalogue"
        What the model ranks.
    metrics : str or sequence of str, default=("ndcg@10",)
        Metrics with a cut-off of at most ``top_n``.
    top_n : int or None, default=None
        Items kept per query; None keeps 100 (``"catalogue"``) or every
        candidate (``"stage"``).
    return_candidates : bool, default=False
        Also return the kept rows (``qid``, ``user_id``, ``item_id``,
        ``score``, ``label``; NaN score for a positive not retrieved).
    **metric_options
        Passed to :func:`~skndcg.metrics.ranking_report`.

    Returns
    -------
    report : pandas.DataFrame
        One row per query (``qid``), with ``n_history``.
    rows : pandas.DataFrame
        Only with ``return_candidates=True``.

    Examples
    --------
    >>> from skndcg.datasets import make_movielens_like
    >>> from skndcg.recommend import (FeatureColumnRanker, HistoryFeatures,
    ...                               catalogue_report)
    >>> ratings = make_movielens_like(100, 400, 4000, random_state=0)
    >>> builder = HistoryFeatures(n_candidates=20).fit(ratings)
    >>> report = catalogue_report(FeatureColumnRanker("pop_log"), builder,
    ...                           builder.queries_["qid"][-30:])
    >>> len(report)
    30
    """
    builder._check_fitted("catalogue_report")
    check_flags(return_candidates=return_candidates)
    top_n, names = _settings(builder, candidates, top_n, metrics)
    q, log = builder._q, builder._log
    parts = []
    for members, frame in builder._rows(qids, candidates):
        score = np.asarray(estimator.predict(frame), dtype=np.float64).ravel()
        if score.shape != (len(frame),):
            raise ValueError(
                f"{type(estimator).__name__}.predict returned {score.shape[0]} "
                f"scores for {len(frame)} rows; ranking needs one per row."
            )
        if not np.isfinite(score).all():
            bad = int(np.flatnonzero(~np.isfinite(score))[0])
            raise ValueError(
                f"scores must be finite; {type(estimator).__name__} scored user "
                f"{frame['user_id'].iat[bad]!r}, item {frame['item_id'].iat[bad]!r} "
                f"{score[bad]}."
            )
        qid = frame["qid"].to_numpy()
        item_ids = frame["item_id"].to_numpy()
        keep = _top(qid, score, top_n)
        qid, item_ids, score = qid[keep], item_ids[keep], score[keep]
        label = q.labels(qid, item_ids)
        p_q, p_item, p_label = q.positives(members)
        kept_key = qid * log.n_items + np.searchsorted(log.item_ids, item_ids)
        missed = ~np.isin(p_q * log.n_items + p_item, kept_key)
        parts.append(
            pd.DataFrame(
                {
                    "qid": np.r_[qid, p_q[missed]],
                    "user_id": log.user_ids[q.user[np.r_[qid, p_q[missed]]]],
                    "item_id": np.r_[item_ids, log.item_ids[p_item[missed]]],
                    "score": np.r_[score, np.full(int(missed.sum()), np.nan)],
                    "label": np.r_[label, p_label[missed]],
                }
            )
        )
    rows = pd.concat(parts, ignore_index=True)
    report = ranking_report(
        rows["label"].to_numpy(),
        rows["score"].to_numpy(),
        rows["qid"].to_numpy(),
        metrics=names,
        nan_score="unretrieved",
        queries="judged",
        **metric_options,
    )
    report["n_history"] = q.n_history[report["qid"].to_numpy()]
    return (report, rows) if return_candidates else report


class _CatalogueScorer:
    """``scorer(estimator, X, y_true)``: see :func:`make_catalogue_scorer`."""

    def __init__(self, builder, metrics, candidates, top_n, options, single):
        self.builder, self.metrics, self.candidates = builder, metrics, candidates
        self.top_n, self.options, self.single = top_n, options, single

    def __repr__(self):
        return (
            f"make_catalogue_scorer({self.metrics!r}, candidates="
            f"{self.candidates!r}, top_n={self.top_n!r})"
        )

    def __call__(self, estimator, X, y_true=None, **kwargs):
        builder = self.builder
        builder._check_fitted(repr(self))
        if not isinstance(X, pd.DataFrame) or not {"user_id", "window_start"} <= set(
            X.columns
        ):
            raise ValueError(
                f"{self!r} reads the validation queries from X's columns user_id "
                "and window_start (the rows of HistoryFeatures.task); got "
                f"{list(X.columns) if isinstance(X, pd.DataFrame) else type(X)}."
            )
        pairs = X[["user_id", "window_start"]].drop_duplicates()
        qids = builder._q.lookup(
            pairs["user_id"].to_numpy(), pairs["window_start"].to_numpy()
        )
        report = catalogue_report(
            estimator,
            builder,
            qids,
            candidates=self.candidates,
            metrics=self.metrics,
            top_n=self.top_n,
            **self.options,
        )
        p = self.candidates
        out = {f"{p}_{m}": float(report[m].mean()) for m in self.metrics}
        no_past = int((report["n_history"] == 0).sum())
        out[f"{p}_n_queries"] = float(len(report))
        out[f"{p}_n_no_past"] = float(no_past)
        if no_past == len(report):
            warnings.warn(
                f"{self!r}: all {no_past} validation queries of this fold are users "
                "without a past; their rankings are the candidate stage's "
                "popularity fallback (ties broken by each item's number of users), "
                f"counted in '{p}_n_no_past'.",
                CatalogueFallbackWarning,
                stacklevel=2,
            )
        if self.single:
            return out[f"{p}_{self.metrics[0]}"]
        if p == "stage":
            recall = builder.stage_recall(qids)
            out[f"candidates_recall@{builder.n_candidates}"] = float(recall.mean())
        return out

    def get_metadata_routing(self):
        """The scorer requests no metadata: queries and labels come from the log."""
        return MetadataRequest(owner=self)


def make_catalogue_scorer(
    builder, metrics=("ndcg@10",), *, candidates="catalogue", top_n=None, **options
):
    """A ``scoring=`` that ranks every eligible item of each validation query.

    scikit-learn's scorers see only the rows of ``X``. This one reads the
    fold's validation queries from ``X`` (columns ``user_id`` and
    ``window_start``, the rows :meth:`HistoryFeatures.task` builds), then
    ranks, for each, every eligible item (``candidates="catalogue"``) or the
    candidate stage's output (``candidates="stage"``) with features built by
    the same ``builder`` from the query's past, and scores the ranking
    against the query's positives in the log (``y_true`` is not used): the
    protocol the hold-out reports, inside ``GridSearchCV``,
    ``RandomizedSearchCV``, ``HalvingGridSearchCV`` and ``cross_validate``.

    With a list of metrics it returns a dict, multi-metric by itself; keys are
    ``"<protocol>_<metric>"`` (``"stage_ndcg@10"``: every per-fold number
    says which protocol produced it), ``"<protocol>_n_queries"``,
    ``"<protocol>_n_no_past"`` (queries of users without a past, ranked by
    the stage's popularity fallback; a fold made only of them warns with
    :class:`CatalogueFallbackWarning`) and, for ``"stage"``,
    ``"candidates_recall@<n_candidates>"`` (the reranker's ceiling). Pass
    ``refit="stage_ndcg@10"`` (for example) to a search. With one metric
    name as a string it returns that metric's mean, a number (what
    ``HalvingGridSearchCV`` and ``cross_val_score`` need).

    Parameters
    ----------
    builder : HistoryFeatures
        Fitted on the interaction log; the training rows must come from it.
    metrics : str or sequence of str, default=("ndcg@10",)
        Metrics with a cut-off; a string makes a one-number scorer.
    candidates : {"catalogue", "stage"}, default="catalogue"
        As in :func:`catalogue_report`.
    top_n : int or None, default=None
        As in :func:`catalogue_report`.
    **options
        Metric options for :func:`~skndcg.metrics.ranking_report`.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true)`` returning a dict (a float for one
        metric name); picklable.

    Raises
    ------
    ValueError
        When called with a builder that is not fitted (the scorer needs the
        interaction history), or an ``X`` without the query columns.

    Examples
    --------
    >>> from sklearn.model_selection import GroupKFold, cross_validate
    >>> from skndcg.datasets import make_movielens_like
    >>> from skndcg.recommend import (FeatureColumnRanker, HistoryFeatures,
    ...                               make_catalogue_scorer)
    >>> ratings = make_movielens_like(100, 400, 4000, random_state=0)
    >>> builder = HistoryFeatures(n_candidates=20).fit(ratings)
    >>> X, y = builder.task()
    >>> scorer = make_catalogue_scorer(builder, ["ndcg@10"])
    >>> cv = cross_validate(FeatureColumnRanker("cooc"), X, y, groups=X["qid"],
    ...                     cv=GroupKFold(2), scoring=scorer)
    >>> sorted(k for k in cv if k.startswith("test_"))[0]
    'test_catalogue_n_no_past'
    """
    if not isinstance(builder, HistoryFeatures):
        raise TypeError(
            "builder must be a HistoryFeatures fitted on the interaction log (the "
            "scorer ranks each query's eligible items from it), got "
            f"{type(builder).__name__}."
        )
    single = isinstance(metrics, str)
    metrics = _settings(builder, candidates, top_n, metrics)[1]
    return _CatalogueScorer(builder, metrics, candidates, top_n, options, single)
