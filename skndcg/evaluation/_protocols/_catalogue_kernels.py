"""Compiled top-k of a block of scores (users x catalogue items), each user's
seen items (a sorted run ``seen_items[seen_ptr[u]:seen_ptr[u + 1]]``) skipped
where they lie, so the block is neither copied nor masked. Each kernel works on
chunk ``t`` of ``n_chunks`` of the rows (``_threads.run_chunks``).

The tie rule is the one of a full sort followed by a cut: a row keeps every
eligible item scored at least as high as its ``top_n``-th best eligible item
(every item tied with the last one kept), or all its eligible items when it
has fewer than ``top_n``.
"""

from __future__ import annotations

import numpy as np

from ..._native._jit import jit


@jit
def _kth_largest(values, size, k, scratch):
    """The ``k``-th largest of ``values[:size]`` (quickselect on ``scratch``)."""
    a = scratch
    a[:size] = values[:size]
    lo, hi, target = 0, size - 1, k - 1  # target: position in decreasing order
    while hi > lo:
        x, y, z = a[lo], a[(lo + hi) >> 1], a[hi]
        if (x >= y) == (y >= z):  # the median of the three is the pivot
            pivot = y
        elif (y >= x) == (x >= z):
            pivot = x
        else:
            pivot = z
        i, j = lo, hi
        while i <= j:
            while a[i] > pivot:
                i += 1
            while a[j] < pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            return a[target]
    return a[target]


@jit
def _put(
    j, v, o, q, q_end, pos_items, pos_labels, out_col, out_score, out_label, hit
):  # fmt: skip
    """Write kept column ``j`` scored ``v`` at slot ``o`` with its label: the
    held-out one when ``j`` is among the sorted positives ``pos_items[q:q_end]``
    (then marked in ``hit``), else 0. Returns ``q`` walked on to ``j``."""
    while q < q_end and pos_items[q] < j:
        q += 1
    out_col[o] = j
    out_score[o] = v
    if q < q_end and pos_items[q] == j:
        out_label[o] = pos_labels[q]
        hit[q] = True
    else:
        out_label[o] = 0.0
    return q


@jit
def select(
    t, n_chunks, block, user, seen_ptr, seen_items, top_n, cut, count,
    pos_ptr, pos_items, pos_labels, cap, out_col, out_score, out_label, hit,
):  # fmt: skip
    """Per row ``r`` of chunk ``t``: the score of its ``top_n``-th best eligible
    item (``-inf`` when it has fewer) into ``cut[r]``, the number of eligible
    items scored at least that into ``count[r]`` and, when at most ``cap``, those
    items from ``r * cap`` on as :func:`keep_rows` writes them (else left to it).

    One pass over the row: scores at least the running cut go to a buffer, in
    column order; when it holds ``2 * top_n`` more than after its last shrink,
    the cut rises to the buffer's ``top_n``-th best and the buffer keeps what
    reaches it (ties included). Scores are finite (the caller checks).
    """
    n_rows, n_items = block.shape
    buf = np.empty(n_items, dtype=np.float64)
    buf_col = np.empty(n_items, dtype=np.int64)
    scratch = np.empty(n_items, dtype=np.float64)
    for r in range(n_rows * t // n_chunks, n_rows * (t + 1) // n_chunks):
        row = block[r]
        u = user[r]
        p, p_end = seen_ptr[u], seen_ptr[u + 1]
        low = -np.inf
        size = 0
        limit = 3 * top_n
        j0 = 0
        # The runs of columns between two seen items, then after the last one.
        for s in range(p, p_end + 1):
            j1 = seen_items[s] if s < p_end else n_items
            for j in range(j0, j1):
                v = row[j]
                if v >= low:
                    buf[size] = v
                    buf_col[size] = j
                    size += 1
                    if size == limit:
                        low = _kth_largest(buf, size, top_n, scratch)
                        kept = 0
                        for i in range(size):
                            if buf[i] >= low:
                                buf[kept] = buf[i]
                                buf_col[kept] = buf_col[i]
                                kept += 1
                        size = kept
                        limit = size + 2 * top_n
            j0 = j1 + 1
        low = -np.inf
        if size >= top_n:
            low = _kth_largest(buf, size, top_n, scratch)
        n = 0
        for i in range(size):
            if buf[i] >= low:
                n += 1
        cut[r] = low
        count[r] = n
        if n > cap:
            continue
        o = r * cap
        q, q_end = pos_ptr[u], pos_ptr[u + 1]
        for i in range(size):
            v = buf[i]
            if v >= low:
                q = _put(
                    buf_col[i], v, o, q, q_end, pos_items, pos_labels,
                    out_col, out_score, out_label, hit,
                )  # fmt: skip
                o += 1
    return 0


@jit
def keep_rows(
    t, n_chunks, block, user, seen_ptr, seen_items, cut, start,
    pos_ptr, pos_items, pos_labels, out_col, out_score, out_label, hit,
):  # fmt: skip
    """Write the kept items (score at least ``cut[r]``) of each row ``r`` of
    chunk ``t`` from ``start[r]`` on, in column order, as :func:`_put` does."""
    n_rows, n_items = block.shape
    for r in range(n_rows * t // n_chunks, n_rows * (t + 1) // n_chunks):
        row = block[r]
        u = user[r]
        low = cut[r]
        p, p_end = seen_ptr[u], seen_ptr[u + 1]
        q, q_end = pos_ptr[u], pos_ptr[u + 1]
        o = start[r]
        nxt = seen_items[p] if p < p_end else n_items
        for j in range(n_items):
            if j == nxt:
                p += 1
                nxt = seen_items[p] if p < p_end else n_items
                continue
            v = row[j]
            if v >= low:
                q = _put(
                    j, v, o, q, q_end, pos_items, pos_labels,
                    out_col, out_score, out_label, hit,
                )  # fmt: skip
                o += 1
    return 0
