"""Point-in-time features for the ranking task: only earlier windows count."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..utils._interactions import DAY

_RECENT = 3  # windows counted by item_log_recent
_SHRINK = 5.0  # weight of the global mean in item_mean_rating
_RECENT_DAYS = 30  # days counted by item_log_30d and item_share_30d


def _table(keys, *columns):
    """Aggregate ``columns`` by sorted unique ``keys`` (sums per key)."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    sums = [np.bincount(inverse, weights=c, minlength=uniq.size) for c in columns]
    return uniq, inverse, sums


def _user_genre_sums(log, uw_inverse, n_uw, genre):
    """Per (user, window): count and rating sum of rated items per genre."""
    n_genres = genre.shape[1]
    if n_genres == 0:
        zeros = np.zeros((n_uw, 0))
        return zeros, zeros
    item_rows, item_genre = np.nonzero(genre)
    per_item = np.bincount(item_rows, minlength=genre.shape[0])
    indptr = np.r_[0, np.cumsum(per_item)]
    counts = per_item[log.item]
    total = int(counts.sum())
    rating_rows = np.repeat(np.arange(log.item.size), counts)
    offset = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    g = item_genre[indptr[log.item[rating_rows]] + offset]
    flat = uw_inverse[rating_rows] * n_genres + g
    size = n_uw * n_genres
    cnt = np.bincount(flat, minlength=size).reshape(n_uw, n_genres)
    rsum = np.bincount(flat, weights=log.rating[rating_rows], minlength=size)
    return cnt.astype(np.float64), rsum.reshape(n_uw, n_genres)


def _before_within(values, first_row_of_key):
    """Cumulative sums of earlier rows of the same key (rows sorted by key)."""
    before = np.cumsum(values, axis=0) - values
    return before - before[first_row_of_key]


def _item_to_date(log, ordinal, item, win_ord):
    """Count and rating sum of an item over windows strictly before ``win_ord``,
    and the ordinal of its first window (-1 when it has no earlier rating)."""
    span = int(ordinal.max() - ordinal.min()) + _RECENT + 2
    lo = int(ordinal.min()) - _RECENT - 1
    key = log.item * span + (ordinal - lo)
    uniq, _, (cnt, rsum) = _table(key, np.ones(key.size), log.rating)
    owner = uniq // span
    c_cnt, c_sum = np.cumsum(cnt), np.cumsum(rsum)
    starts = np.searchsorted(owner, np.arange(log.n_items))
    base_cnt = np.r_[0.0, c_cnt][starts]
    base_sum = np.r_[0.0, c_sum][starts]

    def cumulative(at):
        p = np.searchsorted(uniq, item * span + (at - lo)) - 1
        ok = (p >= 0) & (owner[np.maximum(p, 0)] == item)
        p = np.maximum(p, 0)
        n = np.where(ok, c_cnt[p] - base_cnt[item], 0.0)
        s = np.where(ok, c_sum[p] - base_sum[item], 0.0)
        return n, s

    n_before, s_before = cumulative(win_ord)
    n_old, _ = cumulative(win_ord - _RECENT)
    first_ord = np.where(n_before > 0, uniq[starts[item]] % span + lo, -1)
    return n_before, s_before, n_before - n_old, first_ord


def _last_days(log, item, start_s, days):
    """Ratings of each item, and of all items, in ``[start - days, start)``:
    as the bounds are whole seconds, those of the whole seconds in it."""
    ts = np.floor(log.timestamp).astype(np.int64)
    span = int(ts.max() - ts.min()) + 2 * int(days * DAY) + 2
    lo = int(ts.min()) - int(days * DAY) - 1
    key = np.sort(log.item * span + (ts - lo))
    base = item * span - lo
    since = start_s - int(days * DAY)
    n_item = np.searchsorted(key, base + start_s) - np.searchsorted(key, base + since)
    n_all = np.searchsorted(ts, start_s) - np.searchsorted(ts, since)
    return n_item.astype(np.float64), n_all.astype(np.float64)


def feature_rows(log, qid, user, item, win):
    """Rows of the task: the query, window, user and item ids of (user, item,
    window) code rows, then their features."""
    ordinal = log.windows[log.win]
    win_ord = log.windows[win]
    n_win = log.windows.size

    # Global mean rating before each window.
    per_win_n = np.bincount(log.win, minlength=n_win).astype(np.float64)
    per_win_s = np.bincount(log.win, weights=log.rating, minlength=n_win)
    glob_n = np.cumsum(per_win_n) - per_win_n
    glob_s = np.cumsum(per_win_s) - per_win_s
    glob_mean = np.divide(glob_s, glob_n, out=np.zeros(n_win), where=glob_n > 0)

    # Item history.
    i_n, i_s, i_recent, i_first = _item_to_date(log, ordinal, item, win_ord)
    item_mean = (i_s + _SHRINK * glob_mean[win]) / (i_n + _SHRINK)
    item_age = np.where(i_first >= 0, win_ord - i_first, 0)

    # User history per (user, window), accumulated over earlier windows.
    uw_key = log.user * n_win + log.win
    uw, uw_inv, (cnt, rsum) = _table(uw_key, np.ones(uw_key.size), log.rating)
    last_ts = np.full(uw.size, -np.inf)
    np.maximum.at(last_ts, uw_inv, log.timestamp)
    uw_user = uw // n_win
    first_row = np.searchsorted(uw_user, uw_user)
    prev_last = np.r_[np.nan, last_ts[:-1]]
    prev_last[first_row == np.arange(uw.size)] = np.nan

    genre = log.item_genres
    g_cnt, g_sum = _user_genre_sums(log, uw_inv, uw.size, genre)
    u_n, u_s, g_cnt, g_sum = (
        _before_within(a, first_row) for a in (cnt, rsum, g_cnt, g_sum)
    )

    row = np.searchsorted(uw, user * n_win + win)
    n_hist = u_n[row]
    user_mean = np.divide(u_s[row], n_hist, out=np.zeros(row.size), where=n_hist > 0)
    start_s = log.window_starts.astype("datetime64[s]").astype(np.int64)[win]
    n_30, all_30 = _last_days(log, item, start_s, _RECENT_DAYS)
    idle = (start_s - prev_last[row]) / DAY

    item_g = genre[item].astype(np.float64)
    n_item_g = item_g.sum(axis=1)
    share = g_cnt[row] / np.maximum(n_hist, 1.0)[:, None]
    affinity = (share * item_g).sum(axis=1) / np.maximum(n_item_g, 1.0)
    overlap_n = (g_cnt[row] * item_g).sum(axis=1)
    overlap_s = (g_sum[row] * item_g).sum(axis=1)
    # Mean rating of the item's genres, less user_mean: 0 without an overlap.
    g_mean = np.divide(overlap_s, overlap_n, out=user_mean.copy(), where=overlap_n > 0)
    share_30 = np.divide(n_30, all_30, out=np.zeros(row.size), where=all_30 > 0)
    return pd.DataFrame(
        {
            "qid": qid,
            "window_start": log.window_starts[win],
            "user_id": log.user_ids[user],
            "item_id": log.item_ids[item],
            "item_log_ratings": np.log1p(i_n),
            "item_mean_rating": item_mean,
            "item_log_recent": np.log1p(i_recent),
            "item_log_30d": np.log1p(n_30),
            "item_share_30d": share_30,
            "item_age": item_age.astype(np.float64),
            "item_year": log.item_year[item],
            "user_log_ratings": np.log1p(n_hist),
            "user_mean_rating": user_mean,
            "user_days_idle": idle,
            "genre_affinity": affinity,
            "genre_rating": g_mean - user_mean,
        }
    )
