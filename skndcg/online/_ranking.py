"""Query codes and a new ranker's per-row weights, vectorised over all queries."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._native._jit import jit
from .._native._threads import row_chunks, run_chunks


@jit
def _by_group(codes, starts, out):  # pragma: no cover - compiled
    """Counting sort of the rows by query code, stable."""
    fill = starts.copy()
    for i in range(codes.size):
        g = codes[i]
        out[fill[g]] = i
        fill[g] += 1


@jit
def _sort_groups(t, n_chunks, starts, order, key, out):  # pragma: no cover
    """Within each group of ``order``, the rows by ``key`` ascending, stable."""
    n_q = starts.size - 1
    for g in range(n_q * t // n_chunks, n_q * (t + 1) // n_chunks):
        lo = starts[g]
        hi = starts[g + 1]
        rows = order[lo:hi]
        local = np.argsort(key[rows], kind="mergesort")
        for j in range(hi - lo):
            out[lo + j] = rows[local[j]]


def group_order(codes, n_queries, key):
    """``np.lexsort((key, codes))``, by a counting sort of the codes and one
    small sort per query on the engine's threads."""
    sizes = np.bincount(codes, minlength=n_queries)
    starts = np.zeros(n_queries + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    if codes.size and np.all(codes[1:] >= codes[:-1]):
        order = np.arange(codes.size, dtype=np.int64)
    else:
        order = np.empty(codes.size, np.int64)
        _by_group(codes, starts, order)
    out = np.empty_like(order)
    n_chunks = max(1, min(row_chunks(codes.size), n_queries))
    run_chunks(_sort_groups, n_chunks, n_chunks, starts, order, key, out)
    return out


def check_ids(ids, name):
    """``ids`` as an array, or an error naming ``name`` and the first missing id
    (NaN, None or pandas' NA): a missing id is no id, not one of its own."""
    ids = np.asarray(ids)
    if ids.dtype.kind in "fO":
        missing = pd.isna(ids)
        if missing.any():
            raise ValueError(
                f"{name} is missing at row {int(np.flatnonzero(missing)[0])}; every "
                "row needs one."
            )
    return ids


def query_codes(qid, name="qid"):
    """Codes 0..n_queries-1 of ``qid`` in sorted order (order seen, for ids of
    mixed types); a missing id raises. Rows of a query need not be contiguous."""
    q = check_ids(qid, name)
    if q.size and q.dtype.kind in "iuf" and np.all(q[1:] >= q[:-1]):
        codes = np.empty(q.size, np.int64)
        codes[0] = 0
        np.cumsum(q[1:] != q[:-1], out=codes[1:])
        return codes, int(codes[-1]) + 1
    try:
        _, codes = np.unique(q, return_inverse=True)
    except TypeError:
        codes = pd.factorize(q)[0]
    codes = codes.ravel().astype(np.int64)
    return codes, int(codes.max()) + 1 if codes.size else 0


def rank_rows(codes, score):
    """``order`` of the rows by query then score descending (ties in row order),
    each sorted row's 1-based ``rank`` in its query, and its ``tie`` block id."""
    n_q = int(codes.max()) + 1 if codes.size else 0
    order = group_order(codes, n_q, -score)
    g = codes[order]
    s = score[order]
    n = g.size
    new_query = np.empty(n, bool)
    new_tie = np.empty(n, bool)
    if n:
        new_query[0] = new_tie[0] = True
        np.not_equal(g[1:], g[:-1], out=new_query[1:])
        np.logical_or(new_query[1:], s[1:] != s[:-1], out=new_tie[1:])
    idx = np.arange(n, dtype=np.int64)
    start = np.maximum.accumulate(np.where(new_query, idx, 0))
    rank = idx - start + 1
    return order, rank, np.cumsum(new_tie) - 1


def rank_weights(codes, score, table):
    """Weight ``table[rank - 1]`` of each row's rank (0 beyond the table); tied
    scores share the mean weight of the ranks they span."""
    order, rank, tie = rank_rows(codes, score)
    k = table.size
    w_sorted = np.where(rank <= k, table[np.minimum(rank, k) - 1], 0.0)
    sums = np.bincount(tie, weights=w_sorted)
    counts = np.bincount(tie)
    out = np.empty(codes.size)
    out[order] = (sums / counts)[tie]
    return out


def target_table(target, k, examination):
    """Weight of new ranks 1..k: examination (clicks; 0 beyond its length) or
    1/log2(r+1) (dcg)."""
    if target == "dcg":
        return 1.0 / np.log2(np.arange(2, k + 2))
    table = np.zeros(k)
    e = np.asarray(examination, dtype=np.float64)[:k]
    table[: e.size] = e
    return table
