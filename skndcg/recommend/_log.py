"""An interaction log as integer codes sorted by time, and its history matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..utils._interactions import check_frame, check_seconds, unique_ids


def check_log(log, name, *, time=True):
    """Refuse a log without ``user_id``, ``item_id`` (and ``timestamp``)."""
    columns = ("user_id", "item_id", "timestamp") if time else ("user_id", "item_id")
    check_frame(log, name, columns)
    if len(log) == 0:
        raise ValueError(f"{name} has no rows; a recommender needs interactions.")
    if time:
        stamps = log["timestamp"]
        if not pd.api.types.is_numeric_dtype(stamps):
            raise ValueError(
                f"{name}['timestamp'] must be Unix seconds (numeric), got dtype "
                f"{stamps.dtype}."
            )
        check_seconds(stamps.to_numpy(), f"{name}['timestamp']")
    if "rating" in log.columns and not pd.api.types.is_numeric_dtype(log["rating"]):
        raise ValueError(
            f"{name}['rating'] must be numeric, got dtype {log['rating'].dtype}."
        )


def history_matrix(user, item, n_users, n_items):
    """Binary users x items CSR matrix: 1 where the user met the item."""
    m = sp.csr_matrix(
        (np.ones(user.size), (user, item)), shape=(n_users, n_items), dtype=np.float64
    )
    m.sum_duplicates()
    m.data[:] = 1.0
    return m


class Log:
    """The interactions as codes: users, items, seconds (float, fractions kept)
    and labels, by time."""

    def __init__(self, frame, name="ratings"):
        check_log(frame, name)
        self.user_ids, user = unique_ids(frame, name, "user_id")
        self.item_ids, item = unique_ids(frame, name, "item_id")
        ts = frame["timestamp"].to_numpy(np.float64)  # fractions kept
        label = np.ones(len(frame))
        if "rating" in frame.columns:  # the labels: a missing one is refused
            check_frame(frame, name, ("rating",))
            label = frame["rating"].to_numpy(np.float64)
        order = np.lexsort((item, user, ts))
        self.user = user[order].astype(np.int64)
        self.item = item[order].astype(np.int64)
        self.ts = ts[order]
        self.label = label[order]
        self.n_users, self.n_items = self.user_ids.size, self.item_ids.size
        self.genres = _genre_matrix(frame, self.item_ids)
        self.item_first = np.full(self.n_items, np.inf)
        np.minimum.at(self.item_first, self.item, self.ts)

    def before(self, t):
        """Number of interactions strictly before time ``t`` (Unix seconds)."""
        return int(np.searchsorted(self.ts, t, side="left"))

    def frame(self, n):
        """The first ``n`` interactions as a DataFrame of ids (for a generator)."""
        return pd.DataFrame(
            {
                "user_id": self.user_ids[self.user[:n]],
                "item_id": self.item_ids[self.item[:n]],
                "timestamp": self.ts[:n],
            }
        )


def _genre_matrix(frame, item_ids):
    """Items x genres 0/1 matrix from a pipe-separated ``genres`` column.

    An item's genres are those of its first interaction in time, so later
    rows never change what earlier queries read.
    """
    if "genres" not in frame.columns:
        return np.zeros((item_ids.size, 0))
    by_time = frame.sort_values("timestamp", kind="stable")
    first = by_time.drop_duplicates("item_id").set_index("item_id")["genres"]
    strings = first.reindex(item_ids).astype(object).fillna("").astype(str)
    dummies = strings.str.get_dummies(sep="|")
    # "" (no genres: under pandas' string dtype, a column of its own) is none.
    dummies = dummies.drop(columns=["", "(no genres listed)"], errors="ignore")
    return dummies.to_numpy(dtype=np.float64)
