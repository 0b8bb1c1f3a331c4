"""Turn a ratings log into a time-ordered learning-to-rank task."""

from __future__ import annotations

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ._ranking_features import FEATURES, build_features

_REQUIRED = ("user_id", "item_id", "rating", "timestamp")
_DAY = 86_400


def _check_ratings(ratings):
    if not isinstance(ratings, pd.DataFrame):
        raise TypeError(
            "ratings must be a pandas DataFrame with columns user_id, item_id, "
            f"rating, timestamp (and optionally genres), got {type(ratings).__name__}."
        )
    missing = [c for c in _REQUIRED if c not in ratings.columns]
    if missing:
        raise ValueError(
            f"ratings is missing the column(s) {missing}; expected at least "
            f"{list(_REQUIRED)}."
        )
    if len(ratings) == 0:
        raise ValueError("ratings has no rows.")
    for col in _REQUIRED:
        values = ratings[col]
        if not pd.api.types.is_numeric_dtype(values):
            raise ValueError(
                f"ratings[{col!r}] must be numeric, got dtype {values.dtype}."
            )
        if values.isna().any():
            raise ValueError(
                f"ratings[{col!r}] has {int(values.isna().sum())} missing values."
            )
    rating = ratings["rating"].to_numpy(dtype=np.float64)
    if rating.min() < 0:
        raise ValueError(
            f"ratings['rating'] must be >= 0, found {rating.min()}: relevance "
            "labels are derived from it."
        )


def _windows(timestamp, window):
    """Period ordinal of every timestamp and the start (datetime64) of each."""
    stamps = pd.to_datetime(timestamp, unit="s")
    ordinal = np.asarray(stamps.to_period(window).asi8, dtype=np.int64)
    uniq = np.unique(ordinal)
    starts = pd.DatetimeIndex(
        [pd.Period(ordinal=int(o), freq=window).start_time for o in uniq]
    )
    return ordinal, uniq, starts.as_unit("s").to_numpy()


def _sample_negatives(rng, q_user, q_win, n_negatives, log, user_items):
    """Up to ``n_negatives`` unrated items per query, drawn in query order.

    The draws of a query depend only on data up to the end of its window and
    on its position in the query order, so appending later data never changes
    the candidates of earlier queries.
    """
    n_queries = q_user.size
    n_draw = 2 * n_negatives + 10
    u = rng.random((n_queries, n_draw))
    if n_negatives == 0 or n_queries == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    # Rows of the log up to the end of each query's window: a uniform row
    # among them is an item drawn in proportion to its ratings so far.
    n_rows_to_date = np.searchsorted(log.win_sorted, q_win, side="right")
    pick = np.minimum(
        (u * n_rows_to_date[:, None]).astype(np.int64), n_rows_to_date[:, None] - 1
    )
    item = log.item_by_time[pick].ravel()
    query = np.repeat(np.arange(n_queries), n_draw)
    # Drop items the user rated up to the end of the window, and repeats.
    key = q_user[query] * log.n_items + item
    pos = np.searchsorted(user_items.key, key)
    pos = np.minimum(pos, user_items.key.size - 1)
    rated = (user_items.key[pos] == key) & (user_items.first_win[pos] <= q_win[query])
    frame = pd.DataFrame({"query": query[~rated], "item": item[~rated]})
    frame = frame.drop_duplicates()
    frame = frame[frame.groupby("query").cumcount() < n_negatives]
    return frame["query"].to_numpy(np.int64), frame["item"].to_numpy(np.int64)


class _Log:
    """The ratings as integer codes, sorted by time."""

    def __init__(self, ratings, window):
        self.user_ids, user = np.unique(
            ratings["user_id"].to_numpy(), return_inverse=True
        )
        self.item_ids, item = np.unique(
            ratings["item_id"].to_numpy(), return_inverse=True
        )
        self.n_users, self.n_items = self.user_ids.size, self.item_ids.size
        timestamp = ratings["timestamp"].to_numpy(dtype=np.int64)
        ordinal, self.windows, self.window_starts = _windows(timestamp, window)
        win = np.searchsorted(self.windows, ordinal)
        order = np.lexsort((item, user, timestamp))
        self.user = user[order].astype(np.int64)
        self.item = item[order].astype(np.int64)
        self.win = win[order].astype(np.int64)
        self.rating = ratings["rating"].to_numpy(dtype=np.float64)[order]
        self.timestamp = timestamp[order]
        self.win_sorted = self.win
        self.item_by_time = self.item
        if "genres" in ratings.columns:
            self.genres = ratings["genres"].to_numpy(dtype=object)[order]
        else:
            self.genres = np.full(order.size, np.nan, dtype=object)


class _UserItems:
    """Sorted (user, item) keys with the window the pair was first rated in."""

    def __init__(self, log):
        key = log.user * log.n_items + log.item
        order = np.lexsort((log.win, key))
        key, first = key[order], log.win[order]
        keep = np.r_[True, key[1:] != key[:-1]]
        self.key, self.first_win = key[keep], first[keep]


@validate_params(
    {
        "ratings": [pd.DataFrame],
        "window": [StrOptions({"D", "W", "M", "Q", "Y"})],
        "n_negatives": [Interval(Integral, 0, None, closed="left")],
        "min_history": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_ranking_task(
    ratings, *, window="M", n_negatives=50, min_history=5, random_state=None
):
    """Build a leakage-free ranking task from a ratings log.

    Each **query** is one user in one time window (by default a calendar
    month, UTC) in which the user rated something, provided the user rated
    at least ``min_history`` items before that window. Its **candidates** are
    the items the user rated in the window, labelled by their rating, plus up
    to ``n_negatives`` items the user had not rated by the end of the window,
    labelled 0. Negatives are drawn in proportion to how often an item was
    rated up to the end of the window, so they are plausible items rather
    than the obscure long tail; without them, re-ranking the rated items
    alone scores a high NDCG even for a random order.

    Every **feature** is computed only from ratings in windows strictly
    before the query's window, so nothing about the query's own or later
    windows leaks into it: changing or removing later ratings leaves the
    features (and candidates) of earlier queries unchanged.

    Parameters
    ----------
    ratings : pandas.DataFrame
        One row per rating with columns ``user_id``, ``item_id``, ``rating``
        (>= 0), ``timestamp`` (Unix seconds) and optionally ``genres``
        (pipe-separated, as returned by
        :func:`~skndcg.datasets.make_movielens_like` and
        :func:`~skndcg.datasets.load_movielens`). It is not modified.
    window : {"D", "W", "M", "Q", "Y"}, default="M"
        Calendar period of a query (pandas period alias): day, week, month,
        quarter or year, in UTC.
    n_negatives : int >= 0, default=50
        Number of unrated items sampled per query (fewer when the catalogue
        known at that time is too small).
    min_history : int >= 1, default=5
        Minimum number of ratings a user must have before a window for that
        window to make a query.
    random_state : int, RandomState instance or None, default=None
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
        - ``item_age``: windows since the item's first rating (0 if none).
        - ``user_log_ratings``: log(1 + number of ratings of the user).
        - ``user_mean_rating``: the user's mean rating.
        - ``user_days_idle``: days from the user's last rating to the window
          start.
        - ``genre_affinity``: share of the user's ratings whose genres
          include the item's genres, averaged over the item's genres.
        - ``genre_rating``: the user's mean rating of items sharing a genre
          with the item, minus the user's mean rating (0 if none).

        Every feature uses only ratings before the query's window.
    y : numpy.ndarray of shape (n_rows,)
        Relevance (int64): ``ceil(rating)`` for rated items (1 to 5 for
        MovieLens stars), 0 for sampled negatives.

    See Also
    --------
    skndcg.model_selection.GroupTimeSeriesSplit : Time-ordered folds over
        these queries (``group_col="qid"``, ``time_col="window_start"``).
    skndcg.ranker.QueryRanker : Fit a LightGBM ranker on the task.

    References
    ----------
    .. [1] F. M. Harper and J. A. Konstan, "The MovieLens datasets: history and
       context", ACM Transactions on Interactive Intelligent Systems 5(4), 2015.

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
    [0, 1, 2, 3, 4, 5]
    """
    _check_ratings(ratings)
    rng = np.random.default_rng(check_random_state(random_state).randint(0, 2**31 - 1))
    log = _Log(ratings, window)

    # Queries: (user, window) pairs with ratings and enough earlier history.
    uw = log.user * log.windows.size + log.win
    q_key, q_size = np.unique(uw, return_counts=True)
    q_user, q_win = q_key // log.windows.size, q_key % log.windows.size
    first_of_user = np.r_[True, q_user[1:] != q_user[:-1]]
    before = np.cumsum(q_size) - q_size
    user_start = np.maximum.accumulate(np.where(first_of_user, before, 0))
    history = before - user_start
    keep = history >= min_history
    # Query ids grow with time: order by (window, user).
    order = np.lexsort((q_user[keep], q_win[keep]))
    q_user, q_win = q_user[keep][order], q_win[keep][order]

    # Positives: every rating of a kept (user, window).
    q_lookup = q_user * log.windows.size + q_win
    sorter = np.argsort(q_lookup)
    pos = np.searchsorted(q_lookup, uw, sorter=sorter)
    pos = sorter[np.minimum(pos, q_lookup.size - 1)] if q_lookup.size else pos
    hit = (q_lookup[pos] == uw) if q_lookup.size else np.zeros(uw.size, dtype=bool)
    pos_query = pos[hit]
    pos_item = log.item[hit]
    pos_label = np.ceil(log.rating[hit]).astype(np.int64)
    pos_label = np.maximum(pos_label, 1)

    neg_query, neg_item = _sample_negatives(
        rng, q_user, q_win, n_negatives, log, _UserItems(log)
    )
    query = np.r_[pos_query, neg_query]
    item = np.r_[pos_item, neg_item]
    label = np.r_[pos_label, np.zeros(neg_item.size, dtype=np.int64)]
    rows = np.lexsort((log.item_ids[item], query))
    query, item, label = query[rows], item[rows], label[rows]

    user, win = q_user[query], q_win[query]
    X = pd.DataFrame(
        {
            "qid": query.astype(np.int64),
            "window_start": log.window_starts[win],
            "user_id": log.user_ids[user],
            "item_id": log.item_ids[item],
        }
    )
    features = build_features(log, user, item, win)
    for name in FEATURES:
        X[name] = features[name]
    return X, label
