"""Queries of a log: a user in a window, with the eligible items met in it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..utils._interactions import codes, periods
from ..utils._values import py


class Queries:
    """The queries of a :class:`~._log.Log` and their positives."""

    def __init__(self, log, window, min_history):
        self.log = log
        ordinal, uniq, starts = periods(log.ts, window)
        start = starts.astype(np.int64)[np.searchsorted(uniq, ordinal)]
        n_items = log.n_items
        # First meeting of every (user, item) pair.
        pair = log.user * n_items + log.item
        uniq_pair, pair_inv = np.unique(pair, return_inverse=True)
        pair_first = np.full(uniq_pair.size, np.inf)
        np.minimum.at(pair_first, pair_inv, log.ts)
        positive = (log.item_first[log.item] < start) & (pair_first[pair_inv] >= start)
        # Queries: (window start, user) with a positive.
        keys = pd.MultiIndex.from_arrays([start[positive], log.user[positive]])
        q_keys = keys.unique().sort_values()
        q_start = q_keys.get_level_values(0).to_numpy().astype(np.int64)
        q_user = q_keys.get_level_values(1).to_numpy().astype(np.int64)
        # Interactions of each user before each query's start: (user, time)
        # keys, the times coded by their rank among the times and the starts.
        order = np.lexsort((log.ts, log.user))
        times = np.unique(np.r_[log.ts, q_start])
        span = times.size
        ukey = log.user[order] * span + np.searchsorted(times, log.ts[order])
        user_lo = np.searchsorted(ukey, q_user * span)
        at = np.searchsorted(times, q_start)
        n_history = np.searchsorted(ukey, q_user * span + at) - user_lo
        keep = n_history >= min_history
        self.start, self.user = q_start[keep], q_user[keep]
        self.n_history = n_history[keep]
        self.qid = np.arange(self.start.size, dtype=np.int64)
        # Positives: the best label of each (query, item).
        pos_q = pd.MultiIndex.from_arrays([self.start, self.user]).get_indexer(keys)
        found = pos_q >= 0
        key = pos_q[found] * n_items + log.item[positive][found]
        label = log.label[positive][found]
        order = np.lexsort((-label, key))
        self.pos_key, first = np.unique(key[order], return_index=True)
        self.pos_label = label[order][first]
        self.pos_q, self.pos_item = np.divmod(self.pos_key, n_items)
        self.n_positives = np.bincount(self.pos_q, minlength=self.qid.size)

    def frame(self):
        return pd.DataFrame(
            {
                "qid": self.qid,
                "window_start": pd.to_datetime(self.start, unit="s"),
                "user_id": self.log.user_ids[self.user],
                "n_history": self.n_history,
                "n_positives": self.n_positives,
            }
        )

    def by_start(self, qids=None):
        """(window start, query positions) pairs, in time order."""
        if self.qid.size == 0:
            raise ValueError(
                "the fitted log holds no query (a user who, in some window, met an "
                "item others met before the window, with at least min_history "
                "earlier interactions); a longer log, a shorter window or a "
                "smaller min_history gives some."
            )
        members = self.qid if qids is None else self.check(qids)
        starts = self.start[members]
        for t in np.unique(starts):
            yield int(t), members[starts == t]

    def check(self, qids):
        given = np.asarray(qids).ravel()
        if given.size == 0:
            raise ValueError(
                "qids holds no query; pass None for every query, or ids of "
                "builder.queries_['qid']."
            )
        as_int = pd.to_numeric(pd.Series(given), errors="coerce").to_numpy(float)
        odd = ~np.isfinite(as_int) | (as_int != np.round(as_int))
        if odd.any():
            raise ValueError(
                f"qids must hold query ids (integers 0 to {self.qid.size - 1} of "
                f"builder.queries_['qid']), got {py(given[odd][0])!r}."
            )
        qids = np.unique(as_int.astype(np.int64))
        bad = qids[(qids < 0) | (qids >= self.qid.size)]
        if bad.size:
            raise ValueError(
                f"qid {int(bad[0])} is not a query of the builder ({self.qid.size} "
                "queries, ids 0 to n - 1)."
            )
        return qids

    def labels(self, qid, item_ids):
        """Label of each (qid, item id) row: its positive's, else 0."""
        i, known = codes(item_ids, self.log.item_ids)
        key = np.asarray(qid, dtype=np.int64) * self.log.n_items + i
        # (Rows come only after by_start, so there is a query, hence a positive.)
        pos = np.minimum(np.searchsorted(self.pos_key, key), self.pos_key.size - 1)
        return np.where(known & (self.pos_key[pos] == key), self.pos_label[pos], 0.0)

    def positives(self, members):
        """Positives of the queries at positions ``members``: qid, item, label."""
        sel = np.isin(self.pos_q, members)
        return self.pos_q[sel], self.pos_item[sel], self.pos_label[sel]

    def lookup(self, user_ids, window_starts):
        """Query ids of (user id, window start) pairs; raises for unknown ones."""
        t = pd.to_datetime(pd.Series(window_starts)).astype("datetime64[s]")
        t = t.astype(np.int64).to_numpy()
        u, known = codes(user_ids, self.log.user_ids)
        table = pd.MultiIndex.from_arrays([self.start, self.user])
        found = table.get_indexer(pd.MultiIndex.from_arrays([t, u]))
        bad = np.flatnonzero((found < 0) | ~known)
        if bad.size:
            raise ValueError(
                f"(user_id={py(np.asarray(user_ids)[bad[0]])!r}, window_start="
                f"{pd.Timestamp(t[bad[0]], unit='s')}) is not a query of the "
                f"builder's log ({bad.size} such rows): the scorer ranks queries "
                "of the interaction history it was given (a user in a window in "
                "which they met an eligible item)."
            )
        return found
