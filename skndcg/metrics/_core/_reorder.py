"""Step 2b of the engine: every tie rule but ``"average"`` and ``"stable"``, as
a reordering of each query's rows before ranking with ``"stable"``."""

from __future__ import annotations

import numpy as np

from ..._native._jit import jit, numpy_twin
from ..._native._threads import PARALLEL_ROWS, row_chunks, run_chunks
from .._conventions import TieRule


@jit(python=False)
def _quicksort_orders(s, starts, ends, out):
    # numba's default quicksort of the negated scores, in input order: the order
    # in which ranx's Run ranks a query.
    for g in range(starts.shape[0]):
        lo = starts[g]
        o = np.argsort(-s[lo : ends[g]])
        for i in range(o.shape[0]):
            out[lo + i] = lo + o[i]


def quicksort_order(qid, s) -> np.ndarray:
    """The permutation of the rows (``qid`` and ``s`` in input order) that puts
    each query's rows together, in query id order, each query in ranx's order
    (numba's quicksort of the negated scores)."""
    grouped = np.argsort(qid, kind="stable")
    sizes = np.unique(qid[grouped], return_counts=True)[1]
    ends = np.cumsum(sizes)
    out = np.empty(qid.shape[0], dtype=np.int64)
    _quicksort_orders(np.ascontiguousarray(s[grouped]), ends - sizes, ends, out)
    return grouped[out]


@jit
def _in_order(lo, hi, key, unretrieved):
    # Whether rows lo..hi already are in (unretrieved, key) order.
    flagged = unretrieved.shape[0] > 0
    for i in range(lo + 1, hi):
        if flagged and unretrieved[i] != unretrieved[i - 1]:
            if unretrieved[i - 1]:
                return False
        elif key[i] < key[i - 1]:
            return False
    return True


@numpy_twin(_in_order)
def _in_order_numpy(lo, hi, key, unretrieved):
    k = key[lo:hi]
    ok = ~(k[1:] < k[:-1])  # (as the loop compares: NaN keys pass)
    if unretrieved.shape[0] == 0:
        return bool(ok.all())
    u = unretrieved[lo:hi]
    changed = u[1:] != u[:-1]
    return not (changed & u[:-1]).any() and bool((changed | ok).all())


@jit
def _chunk_in_order(t, n_chunks, starts, ends, key, unretrieved):
    # Whether every query of chunk t already is in (unretrieved, key) order.
    n_groups = starts.shape[0]
    for g in range(n_groups * t // n_chunks, n_groups * (t + 1) // n_chunks):
        if not _in_order(starts[g], ends[g], key, unretrieved):
            return False
    return True


@jit
def _key_orders(t, n_chunks, starts, ends, key, unretrieved, out):
    # Chunk t of the queries: each query's rows stably sorted by (unretrieved,
    # key), as positions in the grouped arrays.
    n_groups = starts.shape[0]
    for g in range(n_groups * t // n_chunks, n_groups * (t + 1) // n_chunks):
        lo, hi = starts[g], ends[g]
        if _in_order(lo, hi, key, unretrieved):
            for i in range(lo, hi):
                out[i] = i
            continue
        o = np.argsort(key[lo:hi], kind="mergesort")
        if unretrieved.shape[0]:
            j = lo
            for i in range(o.shape[0]):  # retrieved rows first ...
                if not unretrieved[lo + o[i]]:
                    out[j] = lo + o[i]
                    j += 1
            for i in range(o.shape[0]):  # ... then the others, each stably
                if unretrieved[lo + o[i]]:
                    out[j] = lo + o[i]
                    j += 1
        else:
            for i in range(o.shape[0]):
                out[lo + i] = lo + o[i]


def order_within_queries(
    grouping, s, *, rule, doc_rank=None, unretrieved=None, labels=None
):
    """Permutation of the grouped rows sorting each query by ``rule``'s
    ``sort_key`` (a ``TieRule``, its name or None), rows flagged ``unretrieved``
    last; None when nothing moves (checked from ``PARALLEL_ROWS`` rows on)."""
    n = s.shape[0]
    tie = None if rule is None else TieRule.of(rule)

    def ranx_order():
        out = np.empty(n, dtype=np.int64)
        _quicksort_orders(s, grouping.starts, grouping.ends, out)
        return out

    if tie is not None and tie.quicksort and unretrieved is None:
        return ranx_order()  # already the permutation: no sort by its key
    key = None
    if tie is not None:
        key = tie.sort_key(
            np, n=n, doc_id=doc_rank, labels=labels, ranx_order=ranx_order
        )
    if key is None:
        if unretrieved is None:
            return None
        key = np.zeros(n, dtype=np.int64)
    if n < PARALLEL_ROWS:  # numpy, so small inputs compile nothing for this
        owner = grouping.starts[grouping.row_query]
        keys = [key] if unretrieved is None else [key, unretrieved]
        # np.lexsort: the last key is the primary one. Queries keep their rows.
        return np.lexsort((np.arange(n), *keys, owner))
    flags = np.zeros(0, dtype=np.bool_) if unretrieved is None else unretrieved
    key = np.ascontiguousarray(key)
    flags = np.ascontiguousarray(flags, dtype=np.bool_)
    n_chunks = row_chunks(n)
    spans = (grouping.starts, grouping.ends, key, flags)
    if all(run_chunks(_chunk_in_order, n_chunks, n_chunks, *spans)):
        return None
    out = np.empty(n, dtype=np.int64)
    run_chunks(_key_orders, n_chunks, n_chunks, *spans, out)
    return out
