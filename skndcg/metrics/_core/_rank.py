"""Step 3 of the engine: each query's top rows (rows ``lo:lo + m``), ranked, as
blocks of tied rows (``"average"``) or single rows (``"stable"``). A query much
longer than its cut-off ranks only the rows that can reach its top."""

from __future__ import annotations

import numpy as np

from ..._native._jit import jit, numpy_twin

# Queries up to this size are ranked whole by insertion sort.
SMALL = 24
# Lanes of ``rank_top`` come in whole blocks of this many (a compile-time trip
# count, so the lane loop unrolls into vector instructions).
LANE_BLOCK = 16
# Above this cut-off the lane threshold costs more than it saves.
RANK_MAX_K = 64
# At most this many rows that count (and one in 16 of a query): ranked by counting.
SPARSE_MAX = 64

GAIN_LINEAR, GAIN_EXPONENTIAL = range(2)


@jit(inline="always")
def gain(label, gain_mode):
    if gain_mode == GAIN_EXPONENTIAL:
        return 2.0**label - 1.0
    return label


@jit
def sort_small(s, lo, m, order):
    """Insertion sort of the ``m`` rows from ``lo`` into ``order`` (row offsets):
    best score first, ties in input order."""
    for i in range(m):
        si = s[lo + i]
        j = i
        while j > 0 and si > s[lo + order[j - 1]]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@jit
def argsort_desc(key, m, order, tmp):
    """Stable order of ``key[:m]``, largest first, into ``order[:m]``.

    A bottom-up merge sort: runs of 8 by insertion, then merges between
    ``order`` and ``tmp``; ties keep their input order.
    """
    for a in range(0, m, 8):
        b = min(a + 8, m)
        for i in range(a, b):
            ki = key[i]
            j = i
            while j > a and ki > key[order[j - 1]]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
    src, dst = order, tmp
    width = 8
    while width < m:
        for a in range(0, m, 2 * width):
            mid = min(a + width, m)
            b = min(a + 2 * width, m)
            i, j, o = a, mid, a
            while i < mid and j < b:
                # Take from the right run only when strictly larger: stable.
                if key[src[j]] > key[src[i]]:
                    dst[o] = src[j]
                    j += 1
                else:
                    dst[o] = src[i]
                    i += 1
                o += 1
            while i < mid:
                dst[o] = src[i]
                i += 1
                o += 1
            while j < b:
                dst[o] = src[j]
                j += 1
                o += 1
        src, dst = dst, src
        width *= 2
    if src is not order:
        for i in range(m):
            order[i] = src[i]


@numpy_twin(argsort_desc)
def _argsort_desc_numpy(key, m, order, tmp):
    # numpy's stable sort of the negated keys is the same order; NaN keys,
    # which the merge sort leaves where comparisons put them, go the slow way.
    if np.isnan(key[:m]).any():
        argsort_desc.py_func(key, m, order, tmp)
    else:
        order[:m] = np.argsort(-key[:m], kind="stable")


@jit
def rank_top(s, lo, m, kk, order, buf, lanes, cs, ci, rk):
    """The ``kk`` best rows of a query without a branch per row; or -1.

    Deal the rows round-robin into ``L >= kk`` lanes and take each lane's best
    score: those are ``L`` distinct rows, so the ``kk``-th best of them is a lower
    bound ``t`` on the query's ``kk``-th best score, and no row below ``t`` can
    rank in the top ``kk`` or tie with its last row. The few rows at or above
    ``t`` (copied to ``cs``/``ci``) are then ranked by counting, for each, the
    candidates that rank before it: comparisons without branches, which
    vectorise. Fills ``order``/``buf`` (``kk + 1`` slots, the last a sink for rows
    below the top ``kk``) and the ranks ``rk``; returns the number of candidates,
    or -1 when more qualify than ``cs`` holds (heavy ties at the threshold).
    """
    sq = s[lo : lo + m]
    n_lanes = lanes.shape[0]
    lanes[:] = -np.inf
    n_full = m // n_lanes
    for b in range(n_full):
        row = b * n_lanes
        for h in range(0, n_lanes, LANE_BLOCK):
            part = lanes[h : h + LANE_BLOCK]
            rows = sq[row + h : row + h + LANE_BLOCK]
            for j in range(LANE_BLOCK):
                part[j] = max(part[j], rows[j])
    row = n_full * n_lanes
    for j in range(m - row):
        lanes[j] = max(lanes[j], sq[row + j])
    # The kk-th best lane score: the smallest lane score that fewer than kk beat.
    # Counted lane against lane, the inner loop over lanes in vector registers.
    beaten = rk[:n_lanes]
    beaten[:] = 0
    for b in range(n_lanes):
        vb = lanes[b]
        for a in range(n_lanes):
            beaten[a] += np.int64(vb > lanes[a])
    t = np.inf
    for a in range(n_lanes):
        t = min(t, lanes[a] if beaten[a] < kk else np.inf)
    # Candidates in row order; capacity checked once per 64 rows, the last 8
    # slots kept for the padding below.
    cap = cs.shape[0] - 8
    c = 0
    for i in range(0, m, 64):
        stop = min(m, i + 64)
        if c + (stop - i) > cap:
            return -1
        for r in range(i, stop):
            v = sq[np.uintp(r)]
            cs[np.uintp(c)] = v
            ci[np.uintp(c)] = r
            c += np.int64(v >= t)
    padded = (c + 7) & ~7
    cs[c:padded] = -np.inf
    # Rank of each candidate: better scores, plus equal scores earlier in row order.
    rk[:padded] = 0
    for b in range(c):
        sb = cs[b]
        for a in range(padded):
            rk[a] += np.int64(sb > cs[a]) + np.int64((sb == cs[a]) & (b < a))
    for a in range(c):
        p = np.uintp(min(rk[a], kk))
        order[p] = ci[a]
        buf[p] = cs[a]
    return c


@jit
def buffer_top(y, s, lo, m, kk, order, buf, average, gain_mode, rel_thr):
    """The ``kk`` best rows of a query ranked into ``order``/``buf`` by an
    insertion buffer; under averaged ties, the count, gain sum and relevant
    count of the rows left out that tie with its last score."""
    tcnt = 0
    tgain = 0.0
    trel = 0
    n = 0
    last = 0.0
    for i in range(m):
        si = s[lo + i]
        evicted = -1
        if n == kk:
            last = buf[kk - 1]
            if si < last:
                continue
            if si == last:
                if average:
                    lab = y[lo + i]
                    tcnt += 1
                    tgain += gain(lab, gain_mode)
                    trel += np.int64(lab >= rel_thr)
                continue
            evicted = order[kk - 1]
            j = kk - 1
        else:
            j = n
            n += 1
        while j > 0 and si > buf[j - 1]:
            buf[j] = buf[j - 1]
            order[j] = order[j - 1]
            j -= 1
        buf[j] = si
        order[j] = i
        if evicted >= 0 and average:
            if buf[kk - 1] == last:
                # The evicted row ties with the new last one: it stays in the block.
                lab_e = y[lo + evicted]
                tcnt += 1
                tgain += gain(lab_e, gain_mode)
                trel += np.int64(lab_e >= rel_thr)
            else:
                tcnt = 0
                tgain = 0.0
                trel = 0
    return tcnt, tgain, trel


@jit
def top_rows(
    y, s, lo, m, kk, order, buf, lanes, cs, ci, rk, average, gain_mode, rel_thr
):
    """The ``kk`` best rows of a query ranked into ``order``/``buf``, and the rows
    outside them tied with the last one under averaged ties (count, gains,
    relevant count)."""
    c = -1
    if kk <= RANK_MAX_K:
        c = rank_top(s, lo, m, kk, order, buf, lanes, cs, ci, rk)
    if c < 0:
        return buffer_top(y, s, lo, m, kk, order, buf, average, gain_mode, rel_thr)
    tcnt = 0
    tgain = 0.0
    trel = 0
    if average:
        last = buf[kk - 1]
        for a in range(c):
            if rk[a] >= kk and cs[a] == last:
                lab = y[lo + ci[a]]
                tcnt += 1
                tgain += gain(lab, gain_mode)
                trel += np.int64(lab >= rel_thr)
    return tcnt, tgain, trel


@jit
def blocks_sparse(y, s, lo, m, upto, gain_mode, rel_thr, out, rows, ranks):
    """Blocks of only the rows that count (a gain, or relevant), each at its
    rank (rows that outscore it plus tied rows before it), without a sort.

    The number of blocks, one per counting row ranked before ``upto``; -1 when
    more than ``rows.shape[0]`` rows, or one in 16, count (a sort is cheaper).
    """
    bstart, bsize, bgain, brel = out
    limit = min(rows.shape[0], m // 16)
    n = 0
    for i in range(m):
        lab = y[lo + i]
        if gain(lab, gain_mode) != 0 or lab >= rel_thr:
            if n == limit:
                return -1
            rows[n] = i
            n += 1
    sq = s[lo : lo + m]
    for c in range(n):
        i = rows[c]
        si = sq[i]
        r = 0
        for j in range(i):
            r += np.int64(sq[j] >= si)
        for j in range(i + 1, m):
            r += np.int64(sq[j] > si)
        # insertion by rank (the ranks are distinct)
        p = c
        while p > 0 and ranks[p - 1] > r:
            ranks[p] = ranks[p - 1]
            rows[p] = rows[p - 1]
            p -= 1
        ranks[p] = r
        rows[p] = i
    nb = 0
    for c in range(n):
        if ranks[c] >= upto:
            break
        lab = y[lo + rows[c]]
        bstart[nb] = ranks[c]
        bsize[nb] = 1
        bgain[nb] = gain(lab, gain_mode)
        brel[nb] = np.int64(lab >= rel_thr)
        nb += 1
    return nb


@jit
def blocks_single(y, lo, ranked, n, gain_mode, rel_thr, out):
    """One block per ranked position ``0..n-1`` into ``out`` (start, size, gain
    sum, relevant count); returns ``n``."""
    bstart, bsize, bgain, brel = out
    for pos in range(n):
        lab = y[lo + ranked[pos]]
        bstart[pos] = pos
        bsize[pos] = 1
        bgain[pos] = gain(lab, gain_mode)
        brel[pos] = np.int64(lab >= rel_thr)
    return n


@jit
def blocks_tied(y, lo, ranked, scores, n_ranked, upto, gain_mode, rel_thr, tail, out):
    """Blocks of tied ``scores`` covering ranked positions ``0..upto-1``; their
    number. ``tail`` (count, gain sum, relevant count: rows outside ``ranked``
    tied with its last) joins the last block."""
    bstart, bsize, bgain, brel = out
    tcnt, tgain, trel = tail
    nb = 0
    pos = 0
    while pos < n_ranked and pos < upto:
        sv = scores[pos]
        end = pos
        gsum = 0.0
        rsum = 0
        while end < n_ranked and scores[end] == sv:
            lab = y[lo + ranked[end]]
            gsum += gain(lab, gain_mode)
            rsum += np.int64(lab >= rel_thr)
            end += 1
        size = end - pos
        if end == n_ranked:
            size += tcnt
            gsum += tgain
            rsum += trel
        bstart[nb] = pos
        bsize[nb] = size
        bgain[nb] = gsum
        brel[nb] = rsum
        nb += 1
        pos = end
    return nb
