"""Candidate generators: popularity, recent popularity, item kNN and EASE.

Each is a scikit-learn estimator fitted on an interaction log (the past
only: whoever builds candidates for a time fits it on what came before).
``score_items`` scores any users x items, ``recommend`` returns each user's
best items. Ties (and users without a past, for whom the collaborative
models score every item 0) are broken by the item's number of users in the
log, then by item id: the **popularity fallback**.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy import linalg
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ..utils._args import check_flags
from ..utils._counts import check_integer
from ..utils._interactions import DAY, codes, unique_ids
from ._log import check_log, history_matrix


class _Recommender(BaseEstimator):
    """Shared fit / score_items / recommend; subclasses define ``_scores``."""

    _needs_time = False
    _parameter_constraints: ClassVar[dict] = {}

    def fit(self, X, y=None, *, now=None):
        """Fit on an interaction log.

        Parameters
        ----------
        X : pandas.DataFrame
            One row per interaction with columns ``user_id``, ``item_id``
            and, for the recency models, ``timestamp`` (Unix seconds). It is
            not modified.
        y : None
            Ignored.
        now : float or None, default=None
            The time (Unix seconds) the model recommends at, for the recency
            models; None takes one second after the last interaction.

        Returns
        -------
        self : object
            The fitted recommender.
        """
        self._validate_params()
        check_log(X, "X", time=self._needs_time)
        if now is not None and not (
            isinstance(now, Real) and not isinstance(now, bool) and np.isfinite(now)
        ):
            raise ValueError(
                f"now must be a time in Unix seconds (a finite number) or None, "
                f"got {now!r}."
            )
        self.users_, user = unique_ids(X, "X", "user_id")
        self.items_, item = unique_ids(X, "X", "item_id")
        self.history_ = history_matrix(user, item, self.users_.size, self.items_.size)
        self.item_users_ = np.asarray(self.history_.sum(axis=0)).ravel()
        ts = X["timestamp"].to_numpy(np.float64) if self._needs_time else None
        if now is None and ts is not None:
            now = float(ts.max()) + 1  # (the times keep their fractions)
        self.now_ = now
        self._fit(item, ts)
        return self

    def _fit(self, item, ts):
        pass

    def _rows(self, user_ids):
        u, known = codes(np.ravel(user_ids), self.users_)
        rows = self.history_[u]
        if not known.all():
            rows = rows.multiply(known[:, None].astype(np.float64)).tocsr()
        return rows

    def score_items(self, user_ids, item_ids=None):
        """Scores of every (user, item) pair.

        Parameters
        ----------
        user_ids : array-like of shape (n_users,)
            Users; one not in the fitted log has no past.
        item_ids : array-like of shape (n_items,) or None, default=None
            Items; None scores the fitted catalogue ``items_``. An item not in
            the fitted log scores 0.

        Returns
        -------
        scores : ndarray of shape (n_users, n_items)
            Higher is better.
        """
        check_is_fitted(self, "items_")
        full = np.asarray(self._scores(self._rows(user_ids)), dtype=np.float64)
        if item_ids is None:
            return full
        i, known = codes(np.ravel(item_ids), self.items_)
        return np.where(known[None, :], full[:, i], 0.0)

    def recommend(self, user_ids, n_items=10, *, exclude_seen=True):
        """The ``n_items`` best items of each user.

        Parameters
        ----------
        user_ids : array-like of shape (n_users,)
            Users to recommend for.
        n_items : int >= 1, default=10
            Items per user; at most the size of the fitted catalogue.
        exclude_seen : bool, default=True
            Leave out the items each user met in the fitted log (a user may
            then get fewer than ``n_items``).

        Returns
        -------
        recommendations : pandas.DataFrame
            Columns ``user_id``, ``item_id``, ``score`` and ``rank`` (1 is
            best), user by user in the order given. Ties are broken by the
            item's number of users, then by item id.
        """
        check_is_fitted(self, "items_")
        check_n_items(n_items, self.items_.size, "n_items")
        check_flags(exclude_seen=exclude_seen)
        user_ids = np.ravel(user_ids)
        rows = self._rows(user_ids)
        scores = np.asarray(self._scores(rows), dtype=np.float64)
        order, masked = rank_order(
            scores, self.item_users_, rows if exclude_seen else None
        )
        top = order[:, :n_items]
        take = np.take_along_axis(scores, top, axis=1)
        r, c = np.nonzero(np.isfinite(np.take_along_axis(masked, top, axis=1)))
        return pd.DataFrame(
            {
                "user_id": user_ids[r],
                "item_id": self.items_[top[r, c]],
                "score": take[r, c],
                "rank": (c + 1).astype(np.int64),
            }
        )


def check_n_items(n, n_available, name):
    check_integer(name, n, 1)
    if n > n_available:
        raise ValueError(
            f"{name}={n} is larger than the {n_available} items that exist in the "
            "fitted log; a candidate stage cannot return more items than the "
            f"catalogue holds: lower {name} to at most {n_available}."
        )


def rank_order(scores, popularity, seen=None):
    """Per row, item positions from best to worst: score, popularity, position.

    ``seen`` (a CSR matrix of the same shape) sends a row's seen items last.
    Returns the order and the scores with seen items at ``-inf``.
    """
    scores = np.array(scores, dtype=np.float64)
    if seen is not None and seen.nnz:
        r, c = seen.nonzero()
        scores[r, c] = -np.inf
    n = scores.shape[1]
    # Popularity rank (0 best, ties by position) breaks score ties.
    pop_rank = np.empty(n, dtype=np.int64)
    pop_rank[np.lexsort((np.arange(n), -np.asarray(popularity, float)))] = np.arange(n)
    order = np.lexsort((np.broadcast_to(pop_rank, scores.shape), -scores), axis=1)
    return order, scores


def cosine_cooccurrence(rows, history, item_users):
    """Item kNN scores ``rows D^-1/2 H^T H D^-1/2`` of the CSR pasts ``rows``."""
    norm = 1.0 / np.sqrt(np.maximum(item_users, 1.0))
    left = rows.multiply(norm[None, :]).tocsr()
    return ((left @ history.T) @ history).toarray() * norm[None, :]


class PopularityRecommender(_Recommender):
    """Items by their number of interactions: over the whole log or a recent window.

    Each row of the log counts (a user who met an item twice counts twice);
    the popularity fallback that breaks ties counts each user once.

    Parameters
    ----------
    window_days : float > 0 or None, default=None
        Count only interactions in the ``window_days`` days before ``now``
        (recent popularity); None counts the whole log.
    half_life_days : float > 0 or None, default=None
        Weigh each interaction by ``0.5 ** (age / half_life_days)``, its age
        measured at ``now`` (time-decayed popularity). Combines with
        ``window_days``.

    Attributes
    ----------
    items_ : ndarray
        The catalogue: every item of the fitted log, sorted.
    popularity_ : ndarray
        The score of each item of ``items_``.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.recommend import PopularityRecommender
    >>> log = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [10, 11, 11, 12],
    ...                     "timestamp": [0, 86400, 86400, 9 * 86400]})
    >>> rec = PopularityRecommender().fit(log)
    >>> rec.recommend([1], n_items=1)["item_id"].tolist()  # 11 is seen
    [12]
    >>> recent = PopularityRecommender(window_days=2).fit(log)
    >>> recent.score_items([1], [10, 11, 12]).tolist()
    [[0.0, 0.0, 1.0]]
    """

    _needs_time = True
    _parameter_constraints: ClassVar[dict] = {
        "window_days": [Interval(Real, 0, None, closed="neither"), None],
        "half_life_days": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, *, window_days=None, half_life_days=None):
        self.window_days = window_days
        self.half_life_days = half_life_days

    def _fit(self, item, ts):
        weight = np.ones(item.size)
        before = ts < self.now_
        if self.window_days is not None:
            before &= ts >= self.now_ - self.window_days * DAY
        if self.half_life_days is not None:
            age = np.maximum(self.now_ - ts, 0) / (self.half_life_days * DAY)
            weight = 0.5**age
        self.popularity_ = np.bincount(
            item[before], weights=weight[before], minlength=self.items_.size
        )

    def _scores(self, rows):
        return np.broadcast_to(self.popularity_, (rows.shape[0], self.items_.size))


class ItemKNNRecommender(_Recommender):
    """Item-to-item co-occurrence: items met by users who met the user's items.

    The score of item ``i`` for user ``u`` is the sum, over the items ``j``
    of ``u``'s past, of the cosine similarity of ``i`` and ``j``: the number
    of users who met both, divided by ``sqrt(n_i * n_j)`` (``n`` counts each
    item's users). Every neighbour counts; the product is computed through
    the users (``H_u D^-1/2 H^T H D^-1/2``), never as an item x item matrix.

    Attributes
    ----------
    items_ : ndarray
        The catalogue, sorted.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.recommend import ItemKNNRecommender
    >>> log = pd.DataFrame({"user_id": [1, 1, 2, 2, 3],
    ...                     "item_id": [10, 11, 10, 12, 11]})
    >>> knn = ItemKNNRecommender().fit(log)
    >>> knn.score_items([3], [10, 11, 12]).round(3).tolist()  # 3 met 11 only
    [[0.5, 1.0, 0.0]]
    """

    def _scores(self, rows):
        return cosine_cooccurrence(rows, self.history_, self.item_users_)


class EASERecommender(_Recommender):
    """EASE: a linear item-to-item model in closed form (Steck, 2019).

    With ``G = H^T H + l2 I`` over the binary history ``H``, the weights are
    ``B = I - P diag(1 / diag(P))`` for ``P = G^-1``: the ridge regression of
    every item's column on the other items', its own weight held at 0. A
    user's scores are ``H_u B``. Fitting inverts an items x items matrix:
    time grows with the cube of the catalogue.

    Parameters
    ----------
    l2 : float > 0, default=100.0
        The ridge penalty.

    Attributes
    ----------
    items_ : ndarray
        The catalogue, sorted.
    weights_ : ndarray of shape (n_items, n_items)
        ``B``, zero on the diagonal.

    References
    ----------
    .. [1] H. Steck, "Embarrassingly shallow autoencoders for sparse data",
       The Web Conference 2019.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.recommend import EASERecommender
    >>> log = pd.DataFrame({"user_id": [1, 1, 2, 2, 3],
    ...                     "item_id": [10, 11, 10, 11, 10]})
    >>> ease = EASERecommender(l2=1.0).fit(log)
    >>> ease.recommend([3], n_items=1)["item_id"].tolist()
    [11]
    """

    _parameter_constraints: ClassVar[dict] = {
        "l2": [Interval(Real, 0, None, closed="neither")]
    }

    def __init__(self, *, l2=100.0):
        self.l2 = l2

    def _fit(self, item, ts):
        gram = (self.history_.T @ self.history_).toarray()
        gram[np.diag_indices_from(gram)] += self.l2
        p = linalg.inv(gram, overwrite_a=True, check_finite=False)
        weights = p / (-np.diag(p))[None, :]
        weights[np.diag_indices_from(weights)] = 0.0
        self.weights_ = weights

    def _scores(self, rows):
        return np.asarray(rows @ self.weights_)
