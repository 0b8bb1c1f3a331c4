"""A cascade-model estimator: attraction per item from examined rows, plugged in.

Under the cascade model a user reads a list from the top and clicks the first
item that attracts them, so a logged row is known to be examined when it is at
or above the query's first click (every shown row when nothing was clicked),
and on an examined row the click is a draw of the item's attraction. The
attraction of each item is estimated from its examined rows as clicks over
examinations (an item never examined takes the overall rate), and the new
ranking's expected clicks under the cascade model are ``1 - prod_r (1 - a_r)``
over its top ``k``. The bootstrap refits the
attractions on every resample of the queries.
"""

from __future__ import annotations

import numpy as np

from .._native._jit import jit
from .._native._threads import num_threads, run_chunks
from ._ranking import rank_rows
from ._resample import multinomial_counts

_PRIOR = 0.0  # pseudo-examinations at the overall rate (none: unbiased)


@jit
def _value(cnt, obs_q, obs_item, obs_c, tgt_q, tgt_item, sc, sx):  # pragma: no cover
    # sc and sx come in zero and leave zero: only the touched entries are reset
    for j in range(obs_q.size):
        w = cnt[obs_q[j]]
        sc[obs_item[j]] += w * obs_c[j]
        sx[obs_item[j]] += w
    tc = sc.sum()
    tx = sx.sum()
    abar = tc / tx if tx > 0 else 0.0
    total = 0.0
    j = 0
    n = tgt_q.size
    while j < n:
        q = tgt_q[j]
        miss = 1.0
        while j < n and tgt_q[j] == q:
            it = tgt_item[j]
            den = sx[it] + _PRIOR
            miss *= 1.0 - ((sc[it] + _PRIOR * abar) / den if den > 0 else abar)
            j += 1
        total += cnt[q] * (1.0 - miss)
    for j in range(obs_q.size):
        sc[obs_item[j]] = 0.0
        sx[obs_item[j]] = 0.0
    return total / cnt.sum()


@jit
def _boot(
    t, n_chunks, counts, n_items, obs_q, obs_item, obs_c, tgt_q, tgt_item, out
):  # pragma: no cover
    n = counts.shape[0]
    sc = np.zeros(n_items)
    sx = np.zeros(n_items)
    for b in range(n * t // n_chunks, n * (t + 1) // n_chunks):
        out[b] = _value(counts[b], obs_q, obs_item, obs_c, tgt_q, tgt_item, sc, sx)


_BLOCK_CELLS = 8_000_000  # bootstrap counts held at once


def cascade_estimate(log, items, k, n_resamples, rng):
    """Point estimate, bootstrap replicates and the unseen share of the top k."""
    n_q, codes = log.n_queries, log.codes
    clicked = log.click > 0
    first = np.full(n_q, np.iinfo(np.int64).max)
    np.minimum.at(first, codes[clicked], log.position[clicked])
    examined = log.shown & (log.position <= first[codes])
    obs_q = codes[examined]
    obs_item = items[examined]
    obs_c = log.click[examined]
    order, rank, _ = rank_rows(codes, log.score)
    top = order[rank <= k]
    tgt_q = codes[top]
    tgt_item = items[top]
    n_items = int(items.max()) + 1
    seen = np.zeros(n_items, bool)
    seen[obs_item] = True
    unseen = float(1.0 - seen[tgt_item].mean()) if tgt_item.size else 0.0
    sc, sx = np.zeros(n_items), np.zeros(n_items)
    est = _value(np.ones(n_q), obs_q, obs_item, obs_c, tgt_q, tgt_item, sc, sx)
    out = np.empty(n_resamples)
    step = max(1, _BLOCK_CELLS // n_q)
    for lo in range(0, n_resamples, step):
        hi = min(lo + step, n_resamples)
        counts = multinomial_counts(rng, hi - lo, n_q)
        n_chunks = min(num_threads(), hi - lo)
        run_chunks(
            _boot, n_chunks, n_chunks, counts, n_items,
            obs_q, obs_item, obs_c, tgt_q, tgt_item, out[lo:hi],
        )  # fmt: skip
    return est, out, unseen
