"""Compiled kernels of the grouping step, each on chunk ``t`` of ``n_chunks`` of
the rows. Keys and scattered values are int64 (8-byte dtypes viewed as such);
loops index views from 0 with unsigned positions, so numba drops its
negative-index handling."""

from __future__ import annotations

import numpy as np

from ..._native._jit import jit, numpy_twin


@jit
def scan_keys(t, q, n_chunks):
    """``(runs, non_decreasing, key_min, key_max)`` of chunk ``t`` of the keys:
    ``runs`` counts its rows that start a run (row 0 does), both count the
    step from the previous chunk's last row."""
    n = q.shape[0]
    i0 = n * t // n_chunks
    part = q[i0 : n * (t + 1) // n_chunks]
    prev = q[i0 - 1] if i0 > 0 else q[0]
    runs = np.int64(i0 == 0)
    ok = True
    lo = part[0]
    hi = part[0]
    for i in range(part.shape[0]):
        v = part[i]
        runs += np.int64(v != prev)
        ok &= v >= prev
        lo = min(lo, v)
        hi = max(hi, v)
        prev = v
    return runs, ok, lo, hi


@numpy_twin(scan_keys)
def _scan_keys_numpy(t, q, n_chunks):
    n = q.shape[0]
    i0 = n * t // n_chunks
    part = q[i0 : n * (t + 1) // n_chunks]
    # The rows with the one before (compared, not subtracted: int64 overflows).
    both = np.concatenate((q[max(i0 - 1, 0) : i0], part))
    runs = np.int64(i0 == 0) + np.int64(np.count_nonzero(both[1:] != both[:-1]))
    return runs, bool((both[1:] >= both[:-1]).all()), part.min(), part.max()


@jit
def run_starts(t, q, n_chunks, first, out):
    """Write the start row of each run of chunk ``t`` to ``out[first[t]:]``
    (``first``: the chunks' run counts summed before them); the caller writes
    row 0 and ``len(q)``."""
    n = q.shape[0]
    i0 = max(1, n * t // n_chunks)
    # part[i] is row i0 - 1 + i: each row is compared with the one before it.
    part = q[i0 - 1 : n * (t + 1) // n_chunks]
    j = first[t] + np.int64(t == 0)
    for i in range(1, part.shape[0]):
        if part[i] != part[i - 1]:
            out[j] = i0 - 1 + i
            j += 1
    return 0


@numpy_twin(run_starts)
def _run_starts_numpy(t, q, n_chunks, first, out):
    n = q.shape[0]
    i0 = max(1, n * t // n_chunks)
    part = q[i0 - 1 : n * (t + 1) // n_chunks]
    at = np.flatnonzero(part[1:] != part[:-1]) + i0
    j = first[t] + np.int64(t == 0)
    out[j : j + at.size] = at
    return 0


@jit
def count_keys(t, q, n_chunks, base, counts):
    """Histogram of ``q - base`` over chunk ``t`` into ``counts[t]``."""
    n = q.shape[0]
    row = counts[t]
    qt = q[n * t // n_chunks : n * (t + 1) // n_chunks]
    for i in range(qt.shape[0]):
        row[np.uintp(qt[i] - base)] += 1
    return 0


@jit
def scatter(t, q, n_chunks, base, shift, offsets, src_a, src_b, out_a, out_b, sub):
    """Stable counting-sort scatter of chunk ``t`` of ``src_a`` (and of ``src_b``,
    unless empty) into ``out_a`` (and ``out_b``).

    Row ``i`` goes to bucket ``(q[i] - base) >> shift``, which chunk ``t`` writes
    from ``offsets[t, c]`` on; with ``shift > 0`` its bin within the bucket goes
    to ``sub`` (at its new place) for ``sort_buckets``.
    """
    n = q.shape[0]
    mask = (1 << shift) - 1
    with_sub = shift > 0
    pair = src_b.shape[0] > 0
    pos = offsets[t].copy()
    i0 = n * t // n_chunks
    i1 = n * (t + 1) // n_chunks
    qt = q[i0:i1]
    sa = src_a[i0:i1]
    sb = src_b[i0:i1] if pair else src_b
    for i in range(qt.shape[0]):
        b = qt[i] - base
        c = np.uintp(b >> shift)
        p = np.uintp(pos[c])
        out_a[p] = sa[i]
        if pair:
            out_b[p] = sb[i]
        if with_sub:
            sub[p] = b & mask
        pos[c] = p + 1
    return 0


@jit
def sort_buckets(t, n_chunks, out_a, out_b, sub, shift, bin_start):
    """Second pass of a bucketed scatter for the buckets of chunk ``t``: a
    stable counting sort of each bucket's rows (from ``bin_start[c << shift]``)
    of ``out_a`` (and ``out_b`` unless empty) by their bin in ``sub``."""
    n = out_a.shape[0]
    pair = out_b.shape[0] > 0
    n_bins = bin_start.shape[0]
    width = 1 << shift
    n_buckets = (n_bins + width - 1) >> shift
    for c in range(n_buckets * t // n_chunks, n_buckets * (t + 1) // n_chunks):
        b0 = c << shift
        b1 = min(n_bins, b0 + width)
        r0 = bin_start[b0]
        r1 = bin_start[b1] if b1 < n_bins else n
        part_a = out_a[r0:r1]
        tmp_a = part_a.copy()
        part_b = out_b[r0:r1] if pair else out_b
        tmp_b = part_b.copy()
        ks = sub[r0:r1]
        pos = bin_start[b0:b1] - r0
        for i in range(r1 - r0):
            k = np.uintp(ks[i])
            p = np.uintp(pos[k])
            part_a[p] = tmp_a[i]
            if pair:
                part_b[p] = tmp_b[i]
            pos[k] = p + 1
    return 0
