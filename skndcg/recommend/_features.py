"""One candidate and feature builder for training, tuning and the hold-out."""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..utils._constraints import Count
from ..utils._interactions import codes
from ._generators import ItemKNNRecommender, check_n_items
from ._log import Log
from ._queries import Queries
from ._snapshot import Snapshot

#: The feature columns, after ``qid``, ``window_start``, ``user_id``, ``item_id``.
FEATURES = (
    "stage_score",
    "stage_rank",
    "cooc",
    "user_knn",
    "pop_log",
    "pop_short",
    "pop_long",
    "pop_decay",
    "item_age_days",
    "item_mean_label",
    "user_log_history",
    "user_days_idle",
    "genre_affinity",
)
#: Users x items cells of one block (dense score, rank and co-occurrence).
_BLOCK = 2_000_000


class HistoryFeatures(BaseEstimator):
    """Candidates and point-in-time features of recommendation queries.

    A **query** is a user in a time window (by default a calendar month,
    UTC) in which the user met an eligible item. The items **eligible** for
    it are those met by anyone before the window starts, minus the items
    the user met before it; its **positives** are the eligible items the user
    met in the window (labelled by the ``rating`` column, else 1). An item
    nobody met before the window (a cold item) is not eligible: no model of
    the past can score it, and keeping it as a positive would only lower
    every model alike.

    Everything about a query reads the log strictly before its window: the
    candidate stage (a clone of ``stage`` fitted on that past), the
    eligible items and the features. The same object builds the training
    rows (:meth:`task`: the stage's ``n_candidates`` best items, the hard
    negatives among them), the validation rankings of
    :func:`make_catalogue_scorer` and the hold-out of
    :func:`catalogue_report`, so the three cannot drift apart.

    Parameters
    ----------
    stage : estimator, default=None
        The candidate generator (cloned and fitted once per window start);
        None means :class:`ItemKNNRecommender`.
    n_candidates : int >= 1, default=100
        Items the stage proposes per query.
    window : {"D", "W", "M", "Q", "Y"}, default="M"
        The period of a query.
    short_days, long_days : float > 0, default=7 and 30
        Windows of the recent popularity features ``pop_short``, ``pop_long``.
    half_life_days : float > 0, default=30
        Half-life of the time-decayed popularity ``pop_decay``.
    min_history : int >= 0, default=0
        Interactions a user needs before a window for it to make a query.

    Attributes
    ----------
    queries_ : pandas.DataFrame
        ``qid`` (growing with time), ``window_start``, ``user_id``,
        ``n_history`` (the user's interactions before the window) and
        ``n_positives``.

    Notes
    -----
    The features (:meth:`get_feature_names_out`): ``stage_score`` and ``stage_rank``
    (the stage's score and the rank among the user's eligible items, 1 best),
    ``cooc`` (cosine co-occurrence with the user's past, the item kNN score),
    ``user_knn`` (the item's users among those whose past overlaps the
    user's, each weighted by the cosine similarity of the two pasts),
    ``pop_log``, ``pop_short``, ``pop_long`` (log of 1 + interactions ever,
    in the last ``short_days`` and ``long_days``), ``pop_decay`` (log of 1 +
    the time-decayed count), ``item_age_days``, ``item_mean_label`` (shrunk
    towards the mean label), ``user_log_history``, ``user_days_idle`` and
    ``genre_affinity`` (the share of the user's past items in each of the
    item's genres, averaged over them; 0 without a ``genres`` column of
    pipe-separated names).

    Examples
    --------
    >>> from skndcg.datasets import make_movielens_like
    >>> from skndcg.recommend import HistoryFeatures
    >>> ratings = make_movielens_like(100, 400, 4000, random_state=0)
    >>> builder = HistoryFeatures(n_candidates=20).fit(ratings)
    >>> X, y = builder.task()
    >>> list(X.columns[:5])
    ['qid', 'window_start', 'user_id', 'item_id', 'stage_score']
    >>> bool(X.groupby("qid").size().eq(20).all())
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "stage": "no_validation",
        "n_candidates": [Count(1)],
        "window": [StrOptions({"D", "W", "M", "Q", "Y"})],
        "short_days": [Interval(Real, 0, None, closed="neither")],
        "long_days": [Interval(Real, 0, None, closed="neither")],
        "half_life_days": [Interval(Real, 0, None, closed="neither")],
        "min_history": [Count(0)],
    }

    def __init__(
        self,
        stage=None,
        *,
        n_candidates=100,
        window="M",
        short_days=7,
        long_days=30,
        half_life_days=30,
        min_history=0,
    ):
        self.stage = stage
        self.n_candidates = n_candidates
        self.window = window
        self.short_days = short_days
        self.long_days = long_days
        self.half_life_days = half_life_days
        self.min_history = min_history

    def fit(self, X, y=None):
        """Read the interaction log.

        Parameters
        ----------
        X : pandas.DataFrame
            One row per interaction: ``user_id``, ``item_id``, ``timestamp``
            (Unix seconds), optionally ``rating`` (the label) and ``genres``
            (pipe-separated). It is not modified.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The builder.
        """
        self._validate_params()
        self.stage_ = ItemKNNRecommender() if self.stage is None else self.stage
        self._log = Log(X, "X")
        check_n_items(self.n_candidates, self._log.n_items, "n_candidates")
        self._q = Queries(self._log, self.window, self.min_history)
        self.queries_ = self._q.frame()
        self._snapshots = {}
        return self

    def get_feature_names_out(self, input_features=None):
        """The feature columns of the rows, after the four id columns.

        Parameters
        ----------
        input_features : None
            Ignored (the features are built, not transformed).

        Returns
        -------
        names : ndarray of str
            The feature names.
        """
        return np.asarray(FEATURES, dtype=object)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_snapshots"] = {}  # rebuilt on demand: keeps pickles small
        return state

    def _snapshot(self, t):
        if t not in self._snapshots:
            self._snapshots[t] = Snapshot(self, self._log, t)
        return self._snapshots[t]

    def _check_fitted(self, what):
        if not hasattr(self, "_log"):
            raise ValueError(
                f"{what} needs the interaction history: this HistoryFeatures is "
                "not fitted; call fit(ratings) with the log (user_id, item_id, "
                "timestamp) first."
            )

    def features(self, user_ids, item_ids, at):
        """Feature rows of every (user, item) pair at time ``at``.

        Parameters
        ----------
        user_ids, item_ids : array-like
            Users and items of the log.
        at : datetime-like
            The time the rows describe (a window start): only interactions
            strictly before it are read.

        Returns
        -------
        X : pandas.DataFrame
            ``len(user_ids) * len(item_ids)`` rows, user by user, with the
            columns of :meth:`task`'s ``X`` (``qid`` is -1).
        """
        self._check_fitted("features")
        log = self._log
        try:
            stamp = pd.Timestamp(at)
        except (ValueError, TypeError):
            stamp = pd.NaT
        if pd.isna(stamp):
            raise ValueError(
                f"at must be a time (a datetime or a string such as "
                f"'2024-05-01'), got {at!r}."
            )
        t = stamp.value / 10**9  # Unix seconds, fractions kept
        u, ok_u = codes(np.ravel(user_ids), log.user_ids)
        i, ok_i = codes(np.ravel(item_ids), log.item_ids)
        if not (ok_u.all() and ok_i.all()):
            raise ValueError("features exist only for users and items of the log.")
        snap = self._snapshot(t)
        r = np.repeat(np.arange(u.size), i.size)
        item = np.tile(i, u.size)
        qid = np.full(r.size, -1, dtype=np.int64)
        return self._frame(snap, u, r, item, qid, snap.block(u))

    def _frame(self, snap, users, r, item, qid, block):
        log = self._log
        return pd.DataFrame(
            {
                "qid": qid,
                "window_start": pd.Timestamp(snap.t, unit="s"),
                "user_id": log.user_ids[users[r]],
                "item_id": log.item_ids[item],
                **snap.rows(users, r, item, block),
            }
        )

    def _rows(self, qids, mode):
        """Per block of queries of one window start: their candidate rows
        (``"stage"``) or every eligible item's (the finite ranks)."""
        q, step = self._q, max(1, _BLOCK // max(self._log.n_items, 1))
        for t, group in q.by_start(qids):
            snap = self._snapshot(t)
            for lo in range(0, group.size, step):
                members = group[lo : lo + step]
                users = q.user[members]
                block = snap.block(users)
                rank = block[1]
                keep = rank <= self.n_candidates if mode == "stage" else rank < np.inf
                r, c = np.nonzero(keep)
                yield members, self._frame(snap, users, r, c, q.qid[members][r], block)

    def task(self, qids=None):
        """Training rows: each query's candidates with their labels.

        The rows of a query are the stage's ``n_candidates`` best eligible
        items at its window start: its hard negatives and those positives
        the stage retrieved, exactly what the reranker ranks when it is
        evaluated with ``candidates="stage"``. A query whose positives all
        fall outside the candidates keeps its rows, all labelled 0.

        Parameters
        ----------
        qids : array-like or None, default=None
            Queries of :attr:`queries_`; None takes all.

        Returns
        -------
        X : pandas.DataFrame
            Sorted by ``qid`` and ``item_id``: ``qid``, ``window_start``,
            ``user_id``, ``item_id`` and the features.
        y : numpy.ndarray
            The labels (0 for negatives).
        """
        check_is_fitted(self, "queries_")
        X = pd.concat((f for _, f in self._rows(qids, "stage")), ignore_index=True)
        X = X.sort_values(["qid", "item_id"], kind="stable").reset_index(drop=True)
        return X, self._q.labels(X["qid"].to_numpy(), X["item_id"].to_numpy())

    def stage_recall(self, qids=None):
        """Share of each query's positives among its candidates (recall@N).

        The reranker's ceiling: an item the stage misses is never ranked.

        Parameters
        ----------
        qids : array-like or None, default=None
            Queries of :attr:`queries_`; None takes all.

        Returns
        -------
        recall : pandas.Series
            Indexed by ``qid``.
        """
        X, y = self.task(qids)
        hit = pd.Series(y > 0).groupby(X["qid"].to_numpy()).sum()
        n_pos = self.queries_.set_index("qid")["n_positives"].reindex(hit.index)
        return (hit / n_pos).rename(f"recall@{self.n_candidates}")
