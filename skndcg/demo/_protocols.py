"""The demo's protocols: which queries are held out, and the matching CV folds.

Each protocol is one splitter class of :mod:`skndcg.model_selection` used
twice: once over every query for the hold-out, once over the tuning queries
for the folds of ``GridSearchCV``, so the ranker is tuned under the protocol
it is evaluated with. Queries are the task's units (``group_col="qid"``),
never split; users without a training query stay in (they are a segment of
the report, not filtered out).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..model_selection import GlobalTimeSplit, LeaveLastNSplit, UserFractionSplit

PROTOCOLS = ("global-time", "leave-last-n", "user-fraction")
TEST_FRACTION = 0.2
#: Fewest tuning and hold-out queries the demo accepts.
MIN_QUERIES = 40
_TASK = {
    "group_col": "qid",
    "time_col": "window_start",
    "user_col": "user_id",
    "item_col": "item_id",
    "filter_cold_users": False,
}


def _time_cuts(X, n_splits):
    """``n_splits`` month starts cutting the queries into ``n_splits + 1`` blocks."""
    months = X.groupby("qid")["window_start"].first().sort_values()
    starts = np.unique(months.to_numpy())
    if starts.size < n_splits + 1:
        raise ValueError(
            f"the tuning queries cover {starts.size} months; time-ordered CV with "
            f"{n_splits} folds needs at least {n_splits + 1}."
        )
    share = np.searchsorted(months.to_numpy(), starts, side="left") / months.size
    cuts, prev = [], 0
    for k in range(1, n_splits + 1):
        best = int(np.argmin(np.abs(share - k / (n_splits + 1))))
        best = min(max(best, prev + 1), starts.size - 1 - (n_splits - k))
        cuts.append(best)
        prev = best
    return [pd.Timestamp(starts[c]) for c in cuts]


def _splitter(protocol, cuts, n_splits):
    """The splitter of ``protocol``; ``cuts`` serve global-time alone."""
    if protocol == "global-time":
        return GlobalTimeSplit(cuts, **_TASK)
    if protocol == "leave-last-n":
        return LeaveLastNSplit(1, n_splits=n_splits, **_TASK)
    return UserFractionSplit(TEST_FRACTION, **_TASK)


def cv_splitter(protocol, X_dev, n_splits):
    """The CV splitter of the same protocol over the tuning queries."""
    cuts = _time_cuts(X_dev, n_splits) if protocol == "global-time" else None
    return _splitter(protocol, cuts, n_splits)


def describe(protocol, cut, share):
    """One sentence on the hold-out of ``protocol``."""
    if protocol == "global-time":
        return (
            f"hold-out: queries from {cut:%Y-%m} on, the month boundary nearest the "
            f"80% point of the time span ({share:.1%} of the span is held out); "
            "tuning folds: global time cuts among the earlier queries"
        )
    if protocol == "leave-last-n":
        return (
            "hold-out: each user's last query (month); tuning folds: each user's "
            "next-to-last query, and so on (leave-last-n, n = 1); other users' "
            "queries may be later"
        )
    return (
        f"hold-out: the latest {TEST_FRACTION:.0%} of each user's queries (rounded "
        "up); one tuning fold: the latest share of each user's remaining queries "
        "(user-fraction)"
    )


def split(protocol, X, y, cut):
    """(X_dev, y_dev), (X_hold, y_hold) under ``protocol``."""
    *_, (dev, hold) = _splitter(protocol, cut, 1).split(X)  # a single fold
    # Per-user protocols leave nothing out: every query is dev or hold-out.
    return (
        (X.iloc[dev].reset_index(drop=True), y[dev]),
        (X.iloc[hold].reset_index(drop=True), y[hold]),
    )


def check_sizes(n_dev, n_hold, protocol, why=""):
    """Refuse a split with fewer than :data:`MIN_QUERIES` queries on a side."""
    if min(n_dev, n_hold) < MIN_QUERIES:
        raise ValueError(
            f"the data make only {n_dev} tuning queries and {n_hold} hold-out "
            f"queries under --protocol {protocol}{why}; the demo needs at least "
            f"{MIN_QUERIES} of each."
        )
