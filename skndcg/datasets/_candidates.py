"""The task's features for any (user, item) pair; the task split by a protocol."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..utils._interactions import codes
from ..utils._values import py
from ._ranking_features import feature_rows
from ._ranking_task import RatingsLog, check_ratings, make_ranking_task

_WINDOWS = ("D", "W", "M", "Q", "Y")


def _codes(values, uniques, what):
    pos, known = codes(values, uniques)
    bad = np.flatnonzero(~known)
    if bad.size:
        raise ValueError(
            f"{what} {py(values[bad[0]])!r} is not in the ratings ({bad.size} such "
            f"{what}s); features exist only for the users and items of the log."
        )
    return pos


class CandidateFeatures:
    """Feature rows of :func:`make_ranking_task` for any users x items of a window.

    Full-catalogue evaluation (:func:`skndcg.evaluation.full_catalogue_report`)
    scores every eligible item for every user, so a model trained on the
    ranking task needs the task's features for pairs the task never sampled.
    :meth:`at` returns the callable that builds them with the task's own code:
    the row of a (user, item) pair in a window is identical to the task's row
    of that pair in that window's query, whenever the task holds it.

    Parameters
    ----------
    ratings : pandas.DataFrame
        The ratings log, as for :func:`make_ranking_task`. It is not modified
        (the log is read once, here; later changes to the frame are not seen).
    window : {"D", "W", "M", "Q", "Y"}, default="M"
        The task's period, as for :func:`make_ranking_task`.

    Examples
    --------
    >>> from skndcg.datasets import (CandidateFeatures, make_movielens_like,
    ...                              make_ranking_task)
    >>> ratings = make_movielens_like(100, 500, 5000, random_state=0)
    >>> X, y = make_ranking_task(ratings, n_negatives=20, random_state=0)
    >>> row = X.iloc[0]
    >>> features = CandidateFeatures(ratings).at(row["window_start"])
    >>> F = features([row["user_id"]], [row["item_id"], 7])
    >>> F.shape
    (2, 16)
    >>> F.iloc[0, 4:].astype(float).equals(row.iloc[4:].astype(float))  # the task's row
    True
    """

    def __init__(self, ratings, *, window="M"):
        if window not in _WINDOWS:
            raise ValueError(f"window must be one of {list(_WINDOWS)}, got {window!r}.")
        check_ratings(ratings)
        self.window = window
        self._log = RatingsLog(ratings, window)

    def at(self, window_start):
        """The feature builder of the queries of one window.

        Parameters
        ----------
        window_start : datetime-like
            Any time in the window (calendar period, UTC) of the queries to
            score; a timezone-aware time is converted to UTC.

        Returns
        -------
        features : callable
            ``features(user_ids, item_ids)`` returns a DataFrame with the
            columns of the task's ``X`` and ``len(user_ids) * len(item_ids)``
            rows, user by user (every item of the first user, then of the
            second, ...); ``qid`` is ``-1 - i`` for the ``i``-th user of
            ``user_ids``: negative, so it never names a query of the task
            (whose ids are >= 0). Every user must have a rating in the window
            (a query of the task is such a user and window), every item a
            rating somewhere in the log.

        Raises
        ------
        ValueError
            When nobody rated in the window; the callable raises when a user
            has no rating in it or a user or item is not in the log.
        """
        log, window = self._log, self.window
        try:
            ts = pd.Timestamp(window_start)
            if ts.tzinfo is not None:  # windows are calendar periods in UTC
                ts = ts.tz_convert("UTC").tz_localize(None)
            ordinal = ts.to_period(window).ordinal
        except (TypeError, ValueError, AttributeError) as exc:  # NaT: no to_period
            raise ValueError(
                f"window_start must be a time, got {window_start!r}."
            ) from exc
        w = int(np.searchsorted(log.windows, ordinal))
        if w >= log.windows.size or log.windows[w] != ordinal:
            raise ValueError(
                f"nobody rated in the window of {window_start!r} (period "
                f"{window!r}); candidate features are those of a query, a user in "
                "a window they rated in."
            )
        active = np.zeros(log.n_users, dtype=bool)
        active[log.user[log.win == w]] = True

        def features(user_ids, item_ids):
            u = _codes(np.ravel(user_ids), log.user_ids, "user")
            i = _codes(np.ravel(item_ids), log.item_ids, "item")
            idle = np.flatnonzero(~active[u])
            if idle.size:
                raise ValueError(
                    f"user {log.user_ids[u[idle[0]]].item()!r} has no rating in the "
                    f"window of {window_start!r}; candidate features are those of "
                    "a query, a user in a window they rated in."
                )
            user, item = np.repeat(u, i.size), np.tile(i, u.size)
            win = np.full(user.size, w, dtype=np.int64)
            qid = np.repeat(-1 - np.arange(u.size, dtype=np.int64), i.size)
            return feature_rows(log, qid, user, item, win)

        return features


def train_test_ranking_task(ratings, cv, **task_params):
    """The ranking task of a log, split into train and test by a protocol.

    One call from a log to the two tasks a model is fitted and evaluated on:
    :func:`make_ranking_task` builds every query (its features read only
    the past, so no query of either side leaks the other's labels), and the
    last fold of the protocol ``cv`` assigns whole queries to train or test.

    Parameters
    ----------
    ratings : pandas.DataFrame
        The ratings log, as for :func:`make_ranking_task`.
    cv : splitter
        A protocol over the task's queries, e.g.
        :class:`~skndcg.model_selection.LeaveLastNSplit`,
        :class:`~skndcg.model_selection.UserFractionSplit` or
        :class:`~skndcg.model_selection.GlobalTimeSplit` with
        ``group_col="qid"`` and ``time_col="window_start"`` (the query's
        window); its last fold is used.
    **task_params
        Passed to :func:`make_ranking_task` (``n_negatives``, ``negatives``,
        ``min_history``, ``window``, ``random_state``).

    Returns
    -------
    X_train, X_test : pandas.DataFrame
        Rows of the task, whole queries each.
    y_train, y_test : numpy.ndarray
        Their labels.

    Examples
    --------
    >>> from skndcg.datasets import make_movielens_like, train_test_ranking_task
    >>> from skndcg.model_selection import LeaveLastNSplit
    >>> ratings = make_movielens_like(100, 500, 5000, random_state=0)
    >>> cv = LeaveLastNSplit(1, time_col="window_start")
    >>> X_train, X_test, y_train, y_test = train_test_ranking_task(
    ...     ratings, cv, n_negatives=20, random_state=0)
    >>> bool(X_test.groupby("user_id")["qid"].nunique().max() == 1)
    True
    """
    for name in ("split", "group_col", "time_col"):
        if not hasattr(cv, name):
            raise TypeError(
                "cv must be a protocol splitter with group_col and time_col "
                f"(e.g. LeaveLastNSplit), got {type(cv).__name__} without {name!r}."
            )
    X, y = make_ranking_task(ratings, **task_params)
    for role, expected in (("group_col", "qid"), ("time_col", "window_start")):
        if getattr(cv, role) not in X.columns:
            raise ValueError(
                f"cv.{role}={getattr(cv, role)!r} is not a column of the ranking "
                f"task; pass {role}={expected!r}."
            )
    if cv.group_col != "qid":
        raise ValueError(
            f"cv.group_col must be 'qid' so queries stay whole, got {cv.group_col!r}."
        )
    *_, (train, test) = cv.split(X)
    X_train, X_test = (X.iloc[r].reset_index(drop=True) for r in (train, test))
    return X_train, X_test, y[train], y[test]
