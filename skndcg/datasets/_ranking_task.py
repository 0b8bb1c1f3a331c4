"""Turn a ratings log into a time-ordered learning-to-rank task."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import StrOptions, validate_params

from ..utils._constraints import Count
from ..utils._interactions import (
    check_frame,
    check_no_duplicates,
    check_seconds,
    periods,
    unique_ids,
)
from ..utils._seeds import integer_draw
from ..utils._values import py
from ._ranking_features import feature_rows
from ._synthetic import NO_GENRE

_REQUIRED = ("user_id", "item_id", "rating", "timestamp")


def check_ratings(ratings):
    check_frame(ratings, "ratings", _REQUIRED)
    if len(ratings) == 0:
        raise ValueError("ratings has no rows.")
    for col in _REQUIRED:
        if not pd.api.types.is_numeric_dtype(ratings[col]):
            raise ValueError(
                f"ratings[{col!r}] must be numeric, got dtype {ratings[col].dtype}."
            )
    year = ratings.get("year", pd.Series(dtype=float))
    numeric = pd.api.types.is_numeric_dtype(year)
    if not numeric or np.isinf(year.to_numpy(np.float64, na_value=np.nan)).any():
        raise ValueError(
            "ratings['year'] must be finite numbers (the release year, NaN where "
            f"unknown), got dtype {year.dtype}{' holding inf' if numeric else ''}."
        )
    genres = ratings.get("genres", pd.Series(dtype=object)).dropna()
    if genres.size and pd.api.types.infer_dtype(genres) != "string":
        odd = py(genres[~genres.map(lambda v: isinstance(v, str))].iloc[0])
        raise ValueError(
            "ratings['genres'] must hold pipe-separated strings such as "
            f"'Action|Comedy' (NaN where unknown), found {odd!r} "
            f"({type(odd).__name__})."
        )
    check_seconds(ratings["timestamp"].to_numpy(), "ratings['timestamp']")
    check_no_duplicates(ratings, "ratings", ["user_id", "item_id", "timestamp"])
    rating = ratings["rating"].to_numpy(dtype=np.float64)
    worst = rating.min() if rating.min() < 0 else rating.max()
    if worst < 0 or worst == np.inf:
        raise ValueError(
            f"ratings['rating'] must be >= 0, found {worst}: relevance labels are "
            "derived from it, so every rating must be a finite number >= 0."
        )


def _seed_key(values):
    """Non-negative integers that identify ``values`` (ids or ordinals)."""
    arr = np.asarray(values)
    if np.issubdtype(arr.dtype, np.integer):
        return arr.astype(np.int64).view(np.uint64)
    return arr.astype(np.float64).view(np.uint64)


def _sample_negatives(seed, q_user, q_win, n_negatives, negatives, log, user_items):
    """Exactly ``n_negatives`` distinct negatives per query, or none at all,
    drawn as :func:`make_ranking_task` says: the ``n_negatives`` smallest keys
    ``E / weight`` (``E`` standard exponential, one generator per query).

    Returns the query positions, the item codes and a mask of the queries
    whose pool held fewer than ``n_negatives`` items (they get none).
    """
    short = np.zeros(q_user.size, dtype=bool)
    out_query, out_item = [np.empty(0, dtype=np.int64)], [np.empty(0, dtype=np.int64)]
    if n_negatives == 0:
        return out_query[0], out_item[0], short
    user_key = _seed_key(log.user_ids)
    win_key = _seed_key(log.windows)
    counts = np.zeros(log.n_items)
    row_end = np.searchsorted(log.win, np.arange(log.windows.size + 1))
    done = 0
    for w in np.unique(q_win):
        # Ratings of windows before w: counts of every item so far.
        counts += np.bincount(
            log.item[row_end[done] : row_end[w]], minlength=log.n_items
        )
        done = w
        pool = np.flatnonzero(counts > 0)
        weight = counts[pool] if negatives == "popularity" else np.ones(pool.size)
        for q in np.flatnonzero(q_win == w):
            u = q_user[q]
            allowed = ~np.isin(pool, user_items.rated_by(u, w), assume_unique=True)
            if allowed.sum() < n_negatives:
                short[q] = True
                continue
            seq = np.random.SeedSequence([seed, int(user_key[u]), int(win_key[w])])
            keys = np.random.default_rng(seq).exponential(size=pool.size) / weight
            keys[~allowed] = np.inf
            pick = np.argpartition(keys, n_negatives - 1)[:n_negatives]
            out_query.append(np.full(n_negatives, q, dtype=np.int64))
            out_item.append(pool[pick])
    return np.concatenate(out_query), np.concatenate(out_item), short


class RatingsLog:
    """The ratings as integer codes, sorted by time (float Unix seconds,
    fractions kept)."""

    def __init__(self, ratings, window):
        self.user_ids, user = unique_ids(ratings, "ratings", "user_id")
        self.item_ids, item = unique_ids(ratings, "ratings", "item_id")
        self.n_users, self.n_items = self.user_ids.size, self.item_ids.size
        timestamp = ratings["timestamp"].to_numpy(dtype=np.float64)
        ordinal, self.windows, self.window_starts = periods(timestamp, window)
        win = np.searchsorted(self.windows, ordinal)
        order = np.lexsort((item, user, timestamp))
        self.user = user[order].astype(np.int64)
        self.item = item[order].astype(np.int64)
        self.win = win[order].astype(np.int64)
        self.rating = ratings["rating"].to_numpy(dtype=np.float64)[order]
        self.timestamp = timestamp[order]
        self.item_year = self._first(ratings, "year", order, np.float64)
        genres = pd.Series(self._first(ratings, "genres", order, object), dtype=object)
        dummies = genres.fillna("").str.get_dummies(sep="|")
        dummies = dummies.drop(columns=[NO_GENRE], errors="ignore")
        self.item_genres = dummies.to_numpy(dtype=bool)  # items x genres

    def _first(self, ratings, column, order, dtype):
        """Each item's first non-missing ``column`` value in time order (NaN
        without one)."""
        first = np.full(self.n_items, np.nan, dtype=dtype)
        if column in ratings.columns:
            values = ratings[column].to_numpy(dtype=dtype)[order]
            idx = np.flatnonzero(pd.notna(values))
            items, where = np.unique(self.item[idx], return_index=True)
            first[items] = values[idx[where]]
        return first


class _UserItems:
    """Sorted (user, item) keys with the window the pair was first rated in."""

    def __init__(self, log):
        key = log.user * log.n_items + log.item
        order = np.lexsort((log.win, key))
        self.key, first = np.unique(key[order], return_index=True)
        self.first_win = log.win[order][first]
        self.n_items = log.n_items
        self.start = np.searchsorted(self.key, np.arange(log.n_users + 1) * log.n_items)

    def rated_by(self, user, win):
        """Item codes (sorted) the user had rated by the end of window ``win``."""
        lo, hi = self.start[user], self.start[user + 1]
        items = self.key[lo:hi] - user * self.n_items
        return items[self.first_win[lo:hi] <= win]


@validate_params(
    {
        "ratings": [pd.DataFrame],
        "window": [StrOptions({"D", "W", "M", "Q", "Y"})],
        "n_negatives": [Count(0)],
        "negatives": [StrOptions({"popularity", "uniform"})],
        "min_history": [Count(0)],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def make_ranking_task(
    ratings,
    *,
    window="M",
    n_negatives=50,
    negatives="popularity",
    min_history=5,
    random_state=None,
):
    """Build a leakage-free ranking task from a ratings log.

    Each **query** is one user in one time window (by default a calendar
    month, UTC) in which the user rated something, provided the user rated
    at least ``min_history`` items before that window.

    Its **candidates** are drawn from the *eligible* items: those with at
    least one rating (by anyone) before the window starts. The positives are
    the eligible items the user rated in the window, labelled by the rating
    itself; a rating of an item nobody had rated before the window is not a
    candidate, since a model would learn that "no history" means "rated".
    The negatives are exactly ``n_negatives`` distinct eligible items the
    user had not rated by the end of the window, labelled 0, drawn uniformly
    or in proportion to their ratings before the window starts. A query
    without an eligible positive, or whose pool of negatives is smaller than
    ``n_negatives``, is left out. The draw of each query is seeded by
    (``random_state``, user id, window), so it does not depend on the other
    queries.

    Every **feature** is computed only from ratings before the query's window
    starts (the release year comes from the catalogue), so nothing about the
    query's own or later windows leaks into it: changing or removing later
    ratings leaves the features, candidates and labels of earlier queries
    unchanged.

    Parameters
    ----------
    ratings : pandas.DataFrame
        One row per rating with columns ``user_id``, ``item_id``, ``rating``
        (>= 0), ``timestamp`` (Unix seconds; values in the range of
        milliseconds are refused) and optionally ``genres``
        (pipe-separated, as returned by
        :func:`~skndcg.datasets.make_movielens_like` and
        :func:`~skndcg.datasets.load_movielens`) and ``year`` (the item's
        release year, NaN where unknown). It is not modified. A
        (``user_id``, ``item_id``, ``timestamp``) triple may appear only once.
    window : {"D", "W", "M", "Q", "Y"}, default="M"
        Calendar period of a query (pandas period alias): day, week, month,
        quarter or year, in UTC.
    n_negatives : int >= 0, default=50
        Number of unrated items sampled per query.
    negatives : {"popularity", "uniform"}, default="popularity"
        How the negatives are drawn from the eligible unrated items: in
        proportion to their number of ratings before the window starts, or
        uniformly. Popularity-drawn negatives are harder for a popularity
        ranking, uniform ones easier, so every metric depends on this choice.
    min_history : int >= 0, default=5
        Minimum number of ratings a user must have before a window for that
        window to make a query. With 0, users without any past are queries
        too; only item features can help to rank for them.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the negative sampling.

    Returns
    -------
    X : pandas.DataFrame
        One row per (query, candidate), sorted by ``qid`` and, within a
        query, by ``item_id`` (so row order says nothing about the label).
        Columns:

        - ``qid`` (int64): query id, increasing with time.
        - ``window_start`` (datetime64): start of the query's window, the
          time column for :class:`~skndcg.model_selection.GroupTimeSeriesSplit`.
        - ``user_id``, ``item_id``: identifiers (not features).
        - ``item_log_ratings``: log(1 + number of ratings of the item).
        - ``item_mean_rating``: the item's mean rating, shrunk towards the
          global mean with the weight of 5 ratings.
        - ``item_log_recent``: log(1 + ratings of the item in the previous
          three windows), a trend signal.
        - ``item_log_30d``: log(1 + ratings of the item in the 30 days
          before the window starts).
        - ``item_share_30d``: the item's share of all ratings in those 30
          days (0 when there were none).
        - ``item_age``: windows since the item's first rating.
        - ``item_year``: the item's release year (NaN when unknown).
        - ``user_log_ratings``: log(1 + number of ratings of the user).
        - ``user_mean_rating``: the user's mean rating (0 without a past).
        - ``user_days_idle``: days from the user's last rating to the window
          start (NaN without a past).
        - ``genre_affinity``: share of the user's ratings whose genres
          include the item's genres, averaged over the item's genres.
        - ``genre_rating``: the user's mean rating of items sharing a genre
          with the item, minus the user's mean rating (0 if none).

    y : numpy.ndarray of shape (n_rows,)
        Relevance (float64): the rating itself for rated items (half stars
        kept), 0 for sampled negatives.

    See Also
    --------
    skndcg.model_selection.GroupTimeSeriesSplit : Time-ordered folds over
        these queries (``group_col="qid"``, ``time_col="window_start"``).
    skndcg.ranker.QueryRanker : Fit a LightGBM ranker on the task.

    References
    ----------
    .. [1] F. M. Harper and J. A. Konstan, "The MovieLens datasets: history and
       context", ACM Transactions on Interactive Intelligent Systems 5(4), 2015.
    .. [2] P. S. Efraimidis and P. G. Spirakis, "Weighted random sampling with
       a reservoir", Information Processing Letters 97(5), 2006.

    Examples
    --------
    >>> from skndcg.datasets import make_movielens_like, make_ranking_task
    >>> ratings = make_movielens_like(100, 500, 5000, random_state=0)
    >>> X, y = make_ranking_task(ratings, n_negatives=20, random_state=0)
    >>> list(X.columns[:4])
    ['qid', 'window_start', 'user_id', 'item_id']
    >>> len(X) == len(y)
    True
    >>> sorted(set(y.tolist()))
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    >>> X[y == 0].groupby("qid").size().unique()  # negatives per query
    array([20])
    """
    check_ratings(ratings)
    seed = int(integer_draw(random_state)(0, 2**31 - 1))
    log = RatingsLog(ratings, window)

    # Queries: (user, window) pairs with ratings and enough earlier history.
    uw = log.user * log.windows.size + log.win
    q_key, q_size = np.unique(uw, return_counts=True)
    q_user, q_win = q_key // log.windows.size, q_key % log.windows.size
    before = np.cumsum(q_size) - q_size
    history = before - before[np.searchsorted(q_user, q_user)]  # the user's first
    # Eligible positives: ratings of items rated by anyone in an earlier window.
    item_first = np.full(log.n_items, np.iinfo(np.int64).max)
    np.minimum.at(item_first, log.item, log.win)
    warm = item_first[log.item] < log.win
    n_warm = np.bincount(np.searchsorted(q_key, uw[warm]), minlength=q_key.size)
    keep = (history >= min_history) & (n_warm > 0)
    # Query ids grow with time: order by (window, user).
    order = np.lexsort((q_user[keep], q_win[keep]))
    q_user, q_win = q_user[keep][order], q_win[keep][order]

    if q_user.size and n_negatives > log.n_items - 1:
        raise ValueError(
            f"n_negatives={n_negatives} is larger than the {log.n_items - 1} items "
            f"any query could draw from (the catalogue has {log.n_items} items and "
            "a query's user rated at least one); lower n_negatives."
        )
    neg_query, neg_item, short = _sample_negatives(
        seed, q_user, q_win, n_negatives, negatives, log, _UserItems(log)
    )
    # Renumber the queries that keep their negatives.
    new_id = np.cumsum(~short) - 1
    neg_query = new_id[neg_query]
    q_user, q_win = q_user[~short], q_win[~short]

    # Positives: every warm rating of a kept (user, window).
    pos = pd.Index(q_user * log.windows.size + q_win).get_indexer(uw)
    hit = (pos >= 0) & warm
    query = np.r_[pos[hit], neg_query]
    item = np.r_[log.item[hit], neg_item]
    label = np.r_[log.rating[hit], np.zeros(neg_item.size)]
    rows = np.lexsort((log.item_ids[item], query))
    query, item, label = query[rows], item[rows], label[rows]

    user, win = q_user[query], q_win[query]
    return feature_rows(log, query.astype(np.int64), user, item, win), label
