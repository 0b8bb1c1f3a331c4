"""What the builder knows at one time: the log strictly before it."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..utils._interactions import DAY
from ._generators import cosine_cooccurrence, rank_order
from ._log import history_matrix

_SHRINK = 5.0


class Snapshot:
    """Everything the builder knows at time ``t``: the log strictly before it."""

    def __init__(self, builder, log, t):
        n = log.before(t)
        if n == 0:
            raise ValueError(
                f"nothing happened before {pd.Timestamp(t, unit='s')}: the "
                "candidate stage and the features need a past."
            )
        self.t = t
        self._user_ids = log.user_ids
        item, ts, user = log.item[:n], log.ts[:n], log.user[:n]
        size = log.n_items
        self.count = np.bincount(item, minlength=size).astype(np.float64)
        self.eligible = np.flatnonzero(self.count > 0)
        short = log.before(t - builder.short_days * DAY)
        long = log.before(t - builder.long_days * DAY)
        self.pop_short = np.bincount(log.item[short:n], minlength=size).astype(float)
        self.pop_long = np.bincount(log.item[long:n], minlength=size).astype(float)
        decay = 0.5 ** ((t - ts) / (builder.half_life_days * DAY))
        self.pop_decay = np.bincount(item, weights=decay, minlength=size)
        label_sum = np.bincount(item, weights=log.label[:n], minlength=size)
        prior = float(log.label[:n].mean())
        self.mean_label = (label_sum + _SHRINK * prior) / (self.count + _SHRINK)
        self.age = np.where(self.count > 0, (t - log.item_first) / DAY, 0.0)
        self.history = history_matrix(user, item, log.n_users, size)
        self.item_users = np.asarray(self.history.sum(axis=0)).ravel()
        self.user_n_items = np.asarray(self.history.sum(axis=1)).ravel()
        self.user_n = np.bincount(user, minlength=log.n_users).astype(np.float64)
        self.user_last = np.full(log.n_users, -np.inf)
        np.maximum.at(self.user_last, user, ts)
        self.genres = log.genres
        self.user_genres = self.history @ log.genres
        self.stage = clone(builder.stage_).fit(log.frame(n), now=t)
        # Stage catalogue -> log item codes (the stage saw exactly these items).
        self.stage_cols = np.searchsorted(log.item_ids, self.stage.items_)

    def block(self, users):
        """Stage scores, stage ranks (inf: not eligible, or seen), co-occurrence
        and user kNN scores of users x every item."""
        hist = self.history[users]
        stage = np.full((users.size, self.count.size), -np.inf)
        stage[:, self.stage_cols] = self.stage.score_items(self._user_ids[users], None)
        seen = hist[:, self.eligible]
        order, _ = rank_order(
            stage[:, self.eligible], self.item_users[self.eligible], seen
        )
        rank = np.empty(order.shape, dtype=np.float64)
        np.put_along_axis(rank, order, np.arange(1, order.shape[1] + 1.0), axis=1)
        full_rank = np.full(stage.shape, np.inf)
        full_rank[:, self.eligible] = rank
        hr, hc = hist.nonzero()
        full_rank[hr, hc] = np.inf  # a seen item is never a candidate
        cooc = cosine_cooccurrence(hist, self.history, self.item_users)
        # Users who met what this user met, weighted by cosine similarity.
        u_norm = 1.0 / np.sqrt(np.maximum(self.user_n_items, 1.0))
        sims = (hist @ self.history.T).toarray() * u_norm[None, :]
        sims *= u_norm[users][:, None]
        sims[np.arange(users.size), users] = 0.0
        return stage, full_rank, cooc, np.asarray(self.history.T @ sims.T).T

    def rows(self, users, r, item, block):
        """Feature columns of pairs (``users[r]``, ``item``)."""
        stage, rank, cooc, user_knn = block
        u = users[r]
        idle = (self.t - self.user_last[u]) / DAY
        return {
            "stage_score": stage[r, item],
            "stage_rank": rank[r, item],
            "cooc": cooc[r, item],
            "user_knn": user_knn[r, item],
            "pop_log": np.log1p(self.count[item]),
            "pop_short": np.log1p(self.pop_short[item]),
            "pop_long": np.log1p(self.pop_long[item]),
            "pop_decay": np.log1p(self.pop_decay[item]),
            "item_age_days": self.age[item],
            "item_mean_label": self.mean_label[item],
            "user_log_history": np.log1p(self.user_n[u]),
            "user_days_idle": np.where(np.isfinite(idle), idle, np.nan),
            "genre_affinity": self._affinity(u, item),
        }

    def _affinity(self, u, item):
        """Share of the user's past items per genre, averaged over the item's."""
        if self.genres.shape[1] == 0:
            return np.zeros(u.size)
        share = self.user_genres[u] / np.maximum(self.user_n[u], 1.0)[:, None]
        item_g = self.genres[item]
        n_g = np.maximum(item_g.sum(axis=1), 1.0)
        return np.einsum("ij,ij->i", share, item_g) / n_g
