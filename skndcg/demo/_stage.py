"""The demo's candidate stage: item kNN merged with time-decayed popularity."""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval

from ..recommend import ItemKNNRecommender, PopularityRecommender


def _ranks(scores):
    """Rank of each item in each row (1 best; order of appearance on ties)."""
    order = np.argsort(-scores, axis=1, kind="stable")
    ranks = np.empty(scores.shape, dtype=np.float64)
    np.put_along_axis(ranks, order, np.arange(1, scores.shape[1] + 1.0), axis=1)
    return ranks


class KNNPlusRecentStage(BaseEstimator):
    """Item kNN and time-decayed popularity, interleaved by rank.

    An item's score is ``max(1 / rank_knn, 1 / rank_recent)``: its best
    reciprocal rank among the user's unseen items under item kNN (items with
    no co-occurrence are not ranked by it) and under time-decayed popularity
    (``half_life_days``). The top ``2 n`` items are then roughly the ``n``
    best of each list: the neighbours of the user's past and what is being
    watched now. A user without a past gets time-decayed popularity alone.

    Parameters
    ----------
    half_life_days : float > 0, default=180
        Half-life of the popularity half of the stage.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.demo._stage import KNNPlusRecentStage
    >>> log = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 4],
    ...                     "item_id": [10, 11, 10, 12, 11, 13],
    ...                     "timestamp": [0, 0, 0, 0, 0, 86400]})
    >>> stage = KNNPlusRecentStage(half_life_days=1).fit(log, now=2 * 86400)
    >>> # 3 met 11 (scored 0): 10 is first of both lists, 13 second by recency
    >>> stage.score_items([3]).round(2).tolist()
    [[1.0, 0.0, 0.33, 0.5]]
    """

    _parameter_constraints: ClassVar[dict] = {
        "half_life_days": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, *, half_life_days=180.0):
        self.half_life_days = half_life_days

    def fit(self, X, y=None, *, now=None):
        """Fit both halves on the log (``user_id``, ``item_id``, ``timestamp``)."""
        self._validate_params()
        self.knn_ = ItemKNNRecommender().fit(X)
        self.recent_ = PopularityRecommender(half_life_days=self.half_life_days)
        self.recent_.fit(X, now=now)
        self.items_ = self.knn_.items_
        self.users_ = self.knn_.users_
        self.seen_ = self.knn_.history_
        return self

    def score_items(self, user_ids, item_ids=None):
        """Scores of users x items (None: the fitted catalogue), higher better."""
        knn = np.array(self.knn_.score_items(user_ids), dtype=np.float64)
        recent = np.array(self.recent_.score_items(user_ids), dtype=np.float64)
        user_ids = np.ravel(user_ids)
        pos = np.clip(np.searchsorted(self.users_, user_ids), 0, self.users_.size - 1)
        known = self.users_[pos] == user_ids
        r, c = self.seen_[pos[known]].nonzero()
        rows = np.flatnonzero(known)[r]
        knn[rows, c] = -np.inf
        recent[rows, c] = -np.inf
        by_knn = np.where(knn > 0, 1.0 / _ranks(knn), 0.0)
        score = np.maximum(by_knn, 1.0 / _ranks(recent))
        # Equal reciprocal ranks: the more recently popular item first.
        pop = self.recent_.popularity_
        score += 1e-9 * pop[None, :] / (pop.max() + 1.0)
        score[rows, c] = 0.0
        if item_ids is None:
            return score
        i = np.searchsorted(self.items_, np.ravel(item_ids))
        i = np.clip(i, 0, self.items_.size - 1)
        found = self.items_[i] == np.ravel(item_ids)
        return np.where(found[None, :], score[:, i], 0.0)
