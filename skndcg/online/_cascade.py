"""The cascade estimator of :func:`counterfactual_report` (whose docstring gives
the model): the estimate and every bootstrap resample run one kernel, each query
weighted by how often a column of query counts holds it."""

from __future__ import annotations

import numpy as np

from .._native._jit import jit
from .._native._threads import num_threads, run_chunks
from ..evaluation._shared import multinomial_counts
from ._ranking import rank_rows


@jit
def _boot(
    t, n_chunks, cnt, c0, c1, ptr, row_q, row_c, cq, xq, tgt_q, tgt_c, a, out
):  # pragma: no cover
    # this chunk's share of the count columns c0..c1 (sums of integer counts:
    # exact in any order)
    lo = c0 + (c1 - c0) * t // n_chunks
    nb = c0 + (c1 - c0) * (t + 1) // n_chunks - lo
    n_q = cnt.shape[0]
    tc = np.zeros(nb)
    tx = np.zeros(nb)
    for q in range(n_q):
        for b in range(nb):
            w = cnt[q, lo + b]
            tc[b] += w * cq[q]
            tx[b] += w * xq[q]
    abar = np.zeros(nb)
    for b in range(nb):
        abar[b] = tc[b] / tx[b] if tx[b] > 0 else 0.0
    sc = np.zeros(nb)
    sx = np.zeros(nb)
    for i in range(ptr.size - 1):
        sc[:] = 0.0
        sx[:] = 0.0
        for r in range(ptr[i], ptr[i + 1]):
            q = row_q[r]
            c = row_c[r]
            for b in range(nb):
                w = cnt[q, lo + b]
                sc[b] += w * c
                sx[b] += w
        for b in range(nb):
            a[i, lo - c0 + b] = sc[b] / sx[b] if sx[b] > 0 else abar[b]
    total = np.zeros(nb)
    miss = np.empty(nb)
    j = 0
    n = tgt_q.size
    while j < n:
        q = tgt_q[j]
        miss[:] = 1.0
        while j < n and tgt_q[j] == q:
            ci = tgt_c[j]
            if ci >= 0:
                for b in range(nb):
                    miss[b] *= 1.0 - a[ci, lo - c0 + b]
            else:
                for b in range(nb):
                    miss[b] *= 1.0 - abar[b]
            j += 1
        for b in range(nb):
            total[b] += cnt[q, lo + b] * (1.0 - miss[b])
    for b in range(nb):
        out[lo + b] = total[b] / n_q


_BLOCK_CELLS = 8_000_000  # bootstrap counts held at once
_ITEM_CELLS = 80_000_000  # resampled attractions held at once (640 MB)


def _statistics(n_q, n_items, obs_q, obs_item, obs_c, tgt_q, tgt_item):
    """The kernel's inputs, counted once: the examined rows of the new top k's
    items grouped by item (``ptr``), each query's clicks and examinations, and
    the query and item code (``-1``: never examined) of each new top-k row."""
    need = np.bincount(tgt_item, minlength=n_items) > 0
    need &= np.bincount(obs_item, minlength=n_items) > 0  # examined
    comp = np.full(n_items, -1, np.int64)
    comp[need] = np.arange(int(need.sum()))
    keep = need[obs_item]
    ci = comp[obs_item[keep]]
    o = np.argsort(ci, kind="stable")
    ptr = np.zeros(int(need.sum()) + 1, np.int64)
    np.cumsum(np.bincount(ci, minlength=ptr.size - 1), out=ptr[1:])
    row_q = obs_q[keep][o]
    row_c = obs_c[keep][o]
    cq = np.bincount(obs_q, weights=obs_c, minlength=n_q)
    xq = np.bincount(obs_q, minlength=n_q).astype(np.float64)
    return ptr, row_q, row_c, cq, xq, tgt_q, comp[tgt_item]


def _estimates(cnt, stats, out):
    """The estimate under each column of query counts ``cnt``, into ``out``."""
    n_items = stats[0].size - 1
    group = max(1, _ITEM_CELLS // max(1, n_items))
    for c0 in range(0, cnt.shape[1], group):
        c1 = min(c0 + group, cnt.shape[1])
        a = np.empty((n_items, c1 - c0))
        n_chunks = min(num_threads(), c1 - c0)
        run_chunks(_boot, n_chunks, n_chunks, cnt, c0, c1, *stats, a, out)


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
    n_items = int(items.max()) + 1
    stats = _statistics(n_q, n_items, obs_q, obs_item, obs_c, codes[top], items[top])
    seen = stats[-1] >= 0  # per row of the new top k: its item was examined
    unseen = float(1.0 - seen.mean()) if seen.size else 0.0
    est = np.empty(1)
    _estimates(np.ones((n_q, 1)), stats, est)
    out = np.empty(n_resamples)
    step = max(1, _BLOCK_CELLS // n_q)
    for lo in range(0, n_resamples, step):
        hi = min(lo + step, n_resamples)
        cnt = np.ascontiguousarray(multinomial_counts(rng, hi - lo, n_q).T)
        _estimates(cnt, stats, out[lo:hi])
    return float(est[0]), out, unseen
