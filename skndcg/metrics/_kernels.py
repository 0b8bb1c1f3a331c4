"""Compiled per-query kernels on flat arrays laid out as contiguous groups.

Everything here works on rows already grouped by query: group ``g`` owns the rows
``starts[g]:ends[g]`` of ``y`` (labels) and ``s`` (scores). No global sort of the
scores ever happens: a query much longer than its cut-off ``K`` keeps only the few
rows that can reach its top ``K`` (see ``_rank_top``) and ranks those; only queries
that are small, or whose cut-off covers most of the query, are sorted whole.

Each query's ranking is summarised as *blocks*: runs of positions whose order is
undetermined (tied scores under ``ties="average"``) or single positions (every other
tie rule). A block carries its first position, its size, the sum of its gains and its
number of relevant rows. Every metric is then an exact expectation over the random
orderings of the rows within each block (McSherry & Najork, 2008), which reduces to
the plain value when all blocks have size one.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# Metric kinds understood by ``evaluate_groups``.
NDCG, DCG, IDCG, AP, RR, PRECISION, RECALL, HIT = range(8)

# Tie rules.
TIES_AVERAGE, TIES_STABLE, TIES_REVERSE, TIES_QUICKSORT = range(4)

# Gain rules (a callable gain is applied before the kernel and uses GAIN_LINEAR).
GAIN_LINEAR, GAIN_EXPONENTIAL = range(2)

# Denominators of average precision.
AP_RELEVANT, AP_MIN_K_RELEVANT, AP_HITS = range(3)

# Denominators of precision.
P_K, P_MIN_K_ITEMS = range(2)

# Queries up to this size are ranked whole by insertion sort.
_SMALL = 24


# --------------------------------------------------------------------------- checks
# The whole-array passes below split the rows into ``n_chunks`` contiguous chunks
# scanned in parallel (callers pass one chunk for small input). Each chunk is
# scanned through a view indexed from 0: numba then drops its negative-index
# handling and the branch-free loops vectorise.


@njit(cache=True, nogil=True, parallel=True)
def first_nonfinite(bits, mask, n_chunks):
    """Index of the first NaN or infinite entry, or -1.

    ``bits`` is the float array viewed as integers of its width and ``mask`` its
    exponent bits: a value is NaN or infinite exactly when they are all set. The
    first pass is a branch-free OR over each chunk; only input with a bad value is
    searched.
    """
    n = bits.shape[0]
    found = np.zeros(n_chunks, dtype=np.bool_)
    for t in prange(n_chunks):
        part = bits[n * t // n_chunks : n * (t + 1) // n_chunks]
        missing = bits.dtype.type(0)
        for i in range(part.shape[0]):
            # (~x & mask) is zero exactly when x is NaN or infinite.
            missing |= (~part[i] & mask) == 0
        found[t] = missing != 0
    if not found.any():
        return -1
    for i in range(n):
        if (bits[i] & mask) == mask:
            return i
    return -1


@njit(cache=True, nogil=True, parallel=True)
def int_range(a, n_chunks):
    """``(min, max)`` of an integer array of at least ``n_chunks`` entries."""
    n = a.shape[0]
    los = np.empty(n_chunks, dtype=a.dtype)
    his = np.empty(n_chunks, dtype=a.dtype)
    for t in prange(n_chunks):
        part = a[n * t // n_chunks : n * (t + 1) // n_chunks]
        lo = part[0]
        hi = part[0]
        for i in range(part.shape[0]):
            lo = min(lo, part[i])
            hi = max(hi, part[i])
        los[t] = lo
        his[t] = hi
    return los.min(), his.max()


@njit(cache=True, nogil=True, parallel=True)
def scan_keys(q, n_chunks):
    """One pass over query keys (at least ``n_chunks`` of them).

    Returns ``(non_decreasing, chunk_runs, key_min, key_max)`` where
    ``chunk_runs[t]`` counts the rows of chunk ``t`` that start a run of equal
    consecutive keys (the first row always does); their sum is the number of runs.
    """
    n = q.shape[0]
    runs = np.empty(n_chunks, dtype=np.int64)
    sorted_ = np.empty(n_chunks, dtype=np.bool_)
    los = np.empty(n_chunks, dtype=q.dtype)
    his = np.empty(n_chunks, dtype=q.dtype)
    for t in prange(n_chunks):
        i0 = n * t // n_chunks
        part = q[i0 : n * (t + 1) // n_chunks]
        prev = q[i0 - 1] if i0 > 0 else q[0]
        r = np.int64(i0 == 0)
        ok = True
        lo = part[0]
        hi = part[0]
        for i in range(part.shape[0]):
            v = part[i]
            r += np.int64(v != prev)
            ok &= v >= prev
            lo = min(lo, v)
            hi = max(hi, v)
            prev = v
        runs[t] = r
        sorted_[t] = ok
        los[t] = lo
        his[t] = hi
    return sorted_.all(), runs, los.min(), his.max()


@njit(cache=True, nogil=True, parallel=True)
def run_starts(q, chunk_runs):
    """Start index of each run of equal consecutive keys, plus ``len(q)`` at the end.

    ``chunk_runs`` comes from ``scan_keys`` and fixes the row chunks.
    """
    n = q.shape[0]
    n_chunks = chunk_runs.shape[0]
    first = np.zeros(n_chunks + 1, dtype=np.int64)
    first[1:] = np.cumsum(chunk_runs)
    out = np.empty(first[n_chunks] + 1, dtype=np.int64)
    out[0] = 0
    for t in prange(n_chunks):
        i0 = max(1, n * t // n_chunks)
        # part[i] is row i0 - 1 + i: each row is compared with the one before it.
        part = q[i0 - 1 : n * (t + 1) // n_chunks]
        j = first[t] + np.int64(t == 0)
        for i in range(1, part.shape[0]):
            if part[i] != part[i - 1]:
                out[j] = i0 - 1 + i
                j += 1
    out[first[n_chunks]] = n
    return out


@njit(cache=True, nogil=True, parallel=True)
def count_keys_chunked(q, base, n_bins, n_chunks):
    """Histograms of ``q - base`` over ``n_bins`` bins, one per contiguous row chunk."""
    n = q.shape[0]
    counts = np.zeros((n_chunks, n_bins), dtype=np.int64)
    for t in prange(n_chunks):
        row = counts[t]
        qt = q[n * t // n_chunks : n * (t + 1) // n_chunks]
        for i in range(qt.shape[0]):
            row[np.uintp(qt[i] - base)] += 1
    return counts


@njit(cache=True, nogil=True, parallel=True)
def chunk_offsets(counts, bin_start):
    """Where chunk ``t`` writes its first row of bin ``b``: ``bin_start[b]`` plus the
    rows of bin ``b`` in the earlier chunks. Overwrites ``counts``."""
    n_chunks, n_bins = counts.shape
    for b in prange(n_bins):
        acc = bin_start[b]
        for t in range(n_chunks):
            c = counts[t, b]
            counts[t, b] = acc
            acc += c
    return counts


@njit(cache=True, nogil=True, parallel=True)
def scatter_chunked(q, base, shift, offsets, src, out, sub):
    """Stable counting-sort scatter of ``src`` into ``out`` by bucket.

    Row ``i`` belongs to bin ``q[i] - base`` and bucket ``bin >> shift``. The rows
    are split into ``offsets.shape[0]`` contiguous chunks scattered in parallel;
    chunk ``t`` writes bucket ``c`` from ``offsets[t, c]`` on, so rows of one
    bucket keep their input order. With ``shift > 0`` each row's bin within its
    bucket also goes to ``sub`` (at the row's new place) for ``sort_buckets``.
    ``out`` comes from the caller: numpy backs large arrays with huge pages, which
    makes their first writes several times cheaper than those of an array
    allocated here.
    """
    n = q.shape[0]
    n_chunks = offsets.shape[0]
    mask = (1 << shift) - 1
    with_sub = shift > 0
    for t in prange(n_chunks):
        pos = offsets[t].copy()
        rows = slice(n * t // n_chunks, n * (t + 1) // n_chunks)
        qt = q[rows]
        st = src[rows]
        for i in range(qt.shape[0]):
            b = qt[i] - base
            # Unsigned positions: no negative-index handling.
            c = np.uintp(b >> shift)
            p = np.uintp(pos[c])
            out[p] = st[i]
            if with_sub:
                sub[p] = b & mask
            pos[c] = p + 1
    return out


@njit(cache=True, nogil=True, parallel=True)
def sort_buckets(out, sub, shift, bin_start):
    """Second pass of a bucketed scatter: each bucket's rows into their bins.

    Bucket ``c`` holds bins ``c << shift`` up to the next bucket, in rows
    ``bin_start[c << shift]`` up to the next bucket's first row; ``sub`` has each
    row's bin within its bucket. A stable counting sort per bucket, in parallel
    over buckets; a bucket spans few rows, so its writes stay in cache.
    """
    n = out.shape[0]
    n_bins = bin_start.shape[0]
    width = 1 << shift
    n_buckets = (n_bins + width - 1) >> shift
    for c in prange(n_buckets):
        b0 = c << shift
        b1 = min(n_bins, b0 + width)
        r0 = bin_start[b0]
        r1 = bin_start[b1] if b1 < n_bins else n
        part = out[r0:r1]
        tmp = part.copy()
        ks = sub[r0:r1]
        pos = bin_start[b0:b1] - r0
        for i in range(r1 - r0):
            k = np.uintp(ks[i])
            p = np.uintp(pos[k])
            part[p] = tmp[i]
            pos[k] = p + 1
    return out


@njit(cache=True, nogil=True)
def group_constant(w, starts, ends):
    """Per-group value of ``w``; returns (values, first offending group or -1)."""
    n_groups = starts.shape[0]
    out = np.empty(n_groups, dtype=np.float64)
    for g in range(n_groups):
        a = starts[g]
        v = w[a]
        out[g] = v
        for i in range(a + 1, ends[g]):
            if w[i] != v:
                return out, g
    return out, -1


# ------------------------------------------------------------------------ ranking
@njit(cache=True, nogil=True, inline="always")
def _gain(label, gain_mode):
    if gain_mode == GAIN_EXPONENTIAL:
        return 2.0 ** np.float64(label) - 1.0
    return np.float64(label)


@njit(cache=True, nogil=True, inline="always")
def _is_rel(label, rel_thr):
    # One comparison, no mode switch in the hot loop: a strict threshold ``> t``
    # arrives here as ``>= nextafter(t, inf)``, which is the same test on float64.
    return label >= rel_thr


@njit(cache=True, nogil=True, inline="always")
def _before(sa, ia, sb, ib, tie_mode):
    """True if row ``a`` ranks strictly before row ``b``."""
    if sa != sb:
        return sa > sb
    if tie_mode == TIES_REVERSE:
        return ia > ib
    return ia < ib


@njit(cache=True, nogil=True)
def _sort_small(s, lo, m, order, tie_mode):
    """Insertion sort of the ``m`` rows from ``lo`` into ``order`` (row offsets)."""
    for i in range(m):
        si = s[lo + i]
        j = i
        while j > 0 and _before(si, i, s[lo + order[j - 1]], order[j - 1], tie_mode):
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@njit(cache=True, nogil=True)
def _sort_full(s, lo, m, tie_mode):
    """Row offsets of a whole query in ranked order (allocates)."""
    if tie_mode == TIES_QUICKSORT:
        # numba's default quicksort on the negated scores, in input order:
        # the order ranx's Run produces.
        return np.argsort(-s[lo : lo + m].astype(np.float64))
    if tie_mode == TIES_REVERSE:
        rev = np.empty(m, dtype=np.float64)
        for i in range(m):
            rev[i] = -np.float64(s[lo + m - 1 - i])
        o = np.argsort(rev, kind="mergesort")
        return (m - 1) - o
    neg = np.empty(m, dtype=np.float64)
    for i in range(m):
        neg[i] = -np.float64(s[lo + i])
    return np.argsort(neg, kind="mergesort")


@njit(cache=True, nogil=True)
def _ideal_gains(y, lo, m, kk, gain_mode, ibuf):
    """The ``kk`` largest gains of the query, in decreasing order, into ``ibuf``."""
    if kk * 3 >= m and m > _SMALL:
        g = np.empty(m, dtype=np.float64)
        for i in range(m):
            g[i] = -_gain(y[lo + i], gain_mode)
        g.sort()
        for i in range(kk):
            ibuf[i] = -g[i]
        return
    n = 0
    for i in range(m):
        gi = _gain(y[lo + i], gain_mode)
        if n == kk:
            if gi <= ibuf[kk - 1]:
                continue
            j = kk - 1
        else:
            j = n
            n += 1
        while j > 0 and gi > ibuf[j - 1]:
            ibuf[j] = ibuf[j - 1]
            j -= 1
        ibuf[j] = gi


# ------------------------------------------------------------------ block metrics
@njit(cache=True, nogil=True)
def _dcg_blocks(bstart, bsize, bgain, nb, kk, disc):
    total = 0.0
    for b in range(nb):
        p = bstart[b]
        if p >= kk:
            break
        end = min(p + bsize[b], kk)
        if bsize[b] == 1:
            total += bgain[b] * disc[p]
        else:
            dsum = 0.0
            for q in range(p, end):
                dsum += disc[q]
            total += bgain[b] / bsize[b] * dsum
    return total


@njit(cache=True, nogil=True)
def _hits_blocks(bstart, bsize, brel, nb, kk):
    """Expected number of relevant rows in the top ``kk``."""
    total = 0.0
    for b in range(nb):
        p = bstart[b]
        if p >= kk:
            break
        taken = min(p + bsize[b], kk) - p
        if taken == bsize[b]:
            total += brel[b]
        else:
            total += brel[b] * taken / bsize[b]
    return total


@njit(cache=True, nogil=True)
def _p_none(c, r, j):
    """Probability that ``j`` draws from ``c`` rows holding ``r`` relevant miss all."""
    if r == 0:
        return 1.0
    if j > c - r:
        return 0.0
    p = 1.0
    for i in range(j):
        p *= (c - r - i) / (c - i)
    return p


@njit(cache=True, nogil=True)
def _hit_blocks(bstart, bsize, brel, nb, kk):
    for b in range(nb):
        p = bstart[b]
        if p >= kk:
            break
        if brel[b] > 0:
            taken = min(p + bsize[b], kk) - p
            return 1.0 - _p_none(bsize[b], brel[b], taken)
    return 0.0


@njit(cache=True, nogil=True)
def _rr_blocks(bstart, bsize, brel, nb, kk):
    for b in range(nb):
        p = bstart[b]
        if p >= kk:
            break
        r = brel[b]
        if r == 0:
            continue
        c = bsize[b]
        # First relevant at slot i (1-based) of the block: all earlier slots missed.
        total = 0.0
        miss = 1.0
        last = min(c - r + 1, kk - p)
        for i in range(1, last + 1):
            total += miss * r / (c - i + 1) / (p + i)
            miss *= (c - r - i + 1) / (c - i + 1)
        return total
    return 0.0


@njit(cache=True, nogil=True)
def _ap_block_sum(p, c, r, before, upto):
    """Expected sum of precision at each relevant row placed in slots 1..upto.

    The block starts after position ``p`` (0-based), holds ``c`` rows of which ``r``
    are relevant, and ``before`` relevant rows rank ahead of it.
    """
    if r == 0 or upto <= 0:
        return 0.0
    if c == 1:
        return (before + 1.0) / (p + 1.0)
    acc = 0.0
    frac = (r - 1.0) / (c - 1.0)
    for u in range(1, upto + 1):
        acc += (before + 1.0 + (u - 1) * frac) / (p + u)
    return acc * r / c


@njit(cache=True, nogil=True)
def _ap_blocks(bstart, bsize, brel, nb, kk, n_rel, mode):
    if n_rel == 0:
        return 0.0
    num = 0.0
    before = 0
    part = -1
    for b in range(nb):
        p = bstart[b]
        if p >= kk:
            break
        if p + bsize[b] > kk:
            part = b
            break
        num += _ap_block_sum(p, bsize[b], brel[b], before, bsize[b])
        before += brel[b]
    if mode != AP_HITS:
        if part >= 0:
            num += _ap_block_sum(
                bstart[part], bsize[part], brel[part], before, kk - bstart[part]
            )
        if mode == AP_RELEVANT:
            return num / n_rel
        return num / min(kk, n_rel)
    # Divide by the hits in the top kk: condition on how many relevant rows of the
    # block cut by kk land above the cut (hypergeometric), exactly.
    if part < 0:
        if before == 0:
            return 0.0
        return num / before
    p = bstart[part]
    c = bsize[part]
    r = brel[part]
    j = kk - p
    total = 0.0
    # P(X = x) for x relevant among j draws from c rows with r relevant.
    xmax = min(r, j)
    xmin = max(0, j - (c - r))
    for x in range(xmin, xmax + 1):
        px = np.exp(_log_comb(r, x) + _log_comb(c - r, j - x) - _log_comb(c, j))
        h = before + x
        if h == 0:
            continue
        extra = 0.0
        if x > 0:
            if j == 1:
                extra = (before + 1.0) / (p + 1.0)
            else:
                frac = (x - 1.0) / (j - 1.0)
                for u in range(1, j + 1):
                    extra += (before + 1.0 + (u - 1) * frac) / (p + u)
                extra *= x / j
        total += px * (num + extra) / h
    return total


@njit(cache=True, nogil=True)
def _log_comb(n, k):
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@njit(cache=True, nogil=True)
def _label_totals(y, lo, m, kk, need_ideal, gain_mode, rel_thr, ibuf, hist):
    """Relevant count and label sum of a query, and its ``kk`` largest gains.

    The gains go to ``ibuf[:kk]`` in decreasing order when ``need_ideal``. ``hist``
    (zeroed, one bin per label) counts the labels when they are small non-negative
    integers, and is left zeroed again; otherwise ``_ideal_gains`` selects them.
    """
    # Index a view of the query from 0: numba then drops its negative-index
    # handling and the loops vectorise.
    yq = y[lo : lo + m]
    n_rel = 0
    lsum = yq[0] - yq[0]  # the label type: integer labels sum exactly
    for i in range(m):
        lab = yq[i]
        lsum += lab
        n_rel += np.int64(_is_rel(lab, rel_thr))
    if not need_ideal:
        return n_rel, np.float64(lsum)
    if hist.shape[0] > 0:
        top = np.int64(0)
        for i in range(m):
            li = np.int64(yq[i])
            hist[li] += 1
            top = max(top, li)
        p = 0
        for lab in range(top, -1, -1):
            c = hist[lab]
            hist[lab] = 0
            while c > 0 and p < kk:
                ibuf[p] = _gain(lab, gain_mode)
                p += 1
                c -= 1
    else:
        _ideal_gains(y, lo, m, kk, gain_mode, ibuf)
    return n_rel, np.float64(lsum)


# Lanes of ``_rank_top`` come in whole blocks of this many (a compile-time trip
# count, so the lane loop unrolls into vector instructions).
_LANE_BLOCK = 16
# Above this cut-off the lane threshold costs more than it saves (it ranks the
# lanes among themselves): the insertion buffer selects the top rows.
_RANK_MAX_K = 64


@njit(cache=True, nogil=True)
def _rank_top(s, lo, m, kk, tie_mode, order, buf, lanes, cs, ci, rk):
    """The ``kk`` best rows of a query, without a branch per row; or -1.

    Deal the rows round-robin into ``L >= kk`` lanes and take each lane's best
    score: those are ``L`` distinct rows, so the ``kk``-th best of them is a lower
    bound ``t`` on the query's ``kk``-th best score, and no row scoring below ``t``
    can rank in the top ``kk`` or tie with its last row. The few rows at or above
    ``t`` (the candidates, copied to ``cs``/``ci``) are then ranked by counting, for
    each, the candidates that rank before it: comparisons without branches, which
    vectorise. Fills ``order``/``buf`` (``kk + 1`` slots, the last one a sink for the
    rows ranked below the top ``kk``) and the candidates' ranks ``rk``, and returns
    the number of candidates, or -1 when more than ``cs`` can hold qualify (heavy
    ties at the threshold), leaving the work to the selection buffer.
    """
    sq = s[lo : lo + m]
    n_lanes = lanes.shape[0]
    neg_inf = lanes.dtype.type(-np.inf)
    lanes[:] = neg_inf
    n_full = m // n_lanes
    for b in range(n_full):
        row = b * n_lanes
        for h in range(0, n_lanes, _LANE_BLOCK):
            part = lanes[h : h + _LANE_BLOCK]
            rows = sq[row + h : row + h + _LANE_BLOCK]
            for j in range(_LANE_BLOCK):
                part[j] = max(part[j], rows[j])
    row = n_full * n_lanes
    for j in range(m - row):
        lanes[j] = max(lanes[j], sq[row + j])
    # The kk-th best lane score (at least kk lanes hold a row: m >= kk): the
    # smallest lane score that fewer than kk lanes beat.
    t = -neg_inf
    for a in range(n_lanes):
        va = lanes[a]
        r = np.int64(0)
        for b in range(n_lanes):
            r += np.int64(lanes[b] > va)
        t = min(t, va if r < kk else -neg_inf)
    # Candidates, in row order; the capacity is checked once per block of 64
    # rows, and the last 8 slots are kept for the padding below.
    cap = cs.shape[0] - 8
    c = 0
    for i in range(0, m, 64):
        stop = min(m, i + 64)
        if c + (stop - i) > cap:
            return -1
        for r in range(i, stop):
            # Unsigned positions: no negative-index handling.
            v = sq[np.uintp(r)]
            cs[np.uintp(c)] = v
            ci[np.uintp(c)] = r
            c += np.int64(v >= t)
    # Pad to whole vectors with a score below every candidate.
    padded = (c + 7) & ~7
    cs[c:padded] = neg_inf
    # Rank of each candidate: the candidates with a better score, plus those
    # tied with it and earlier (later under the reverse rule) in row order.
    # Accumulated for all candidates at once, one candidate b at a time.
    rk[:padded] = 0
    reverse = tie_mode == TIES_REVERSE
    for b in range(c):
        sb = cs[b]
        for a in range(padded):
            before = (b > a) if reverse else (b < a)
            rk[a] += np.int64(sb > cs[a]) + np.int64((sb == cs[a]) & before)
    for a in range(c):
        p = np.uintp(min(rk[a], kk))
        order[p] = ci[a]
        buf[p] = cs[a]
    return c


@njit(cache=True, nogil=True)
def _buffer_top(y, s, lo, m, kk, order, buf, tie_mode, gain_mode, rel_thr):
    """The ``kk`` best rows of a query by an insertion buffer, and the tie tail.

    Fills ``order[:kk]``/``buf[:kk]`` ranked. Under averaged ties it also counts the
    rows left out of the buffer that tie with its last score (their number, gain
    sum and relevant count), so the tie block at the cut-off is known without a
    second pass.
    """
    tcnt = 0
    tgain = 0.0
    trel = 0
    n = 0
    for i in range(m):
        si = s[lo + i]
        evicted = -1
        if n == kk:
            last = buf[kk - 1]
            if si < last:
                continue
            if si == last and tie_mode != TIES_REVERSE:
                if tie_mode == TIES_AVERAGE:
                    lab = y[lo + i]
                    tcnt += 1
                    tgain += _gain(lab, gain_mode)
                    trel += np.int64(_is_rel(lab, rel_thr))
                continue
            evicted = order[kk - 1]
            j = kk - 1
        else:
            j = n
            n += 1
        while j > 0 and _before(si, i, buf[j - 1], order[j - 1], tie_mode):
            buf[j] = buf[j - 1]
            order[j] = order[j - 1]
            j -= 1
        buf[j] = si
        order[j] = i
        if evicted >= 0 and tie_mode == TIES_AVERAGE:
            if buf[kk - 1] == last:
                # The evicted row ties with the new last one: it stays in the block.
                lab_e = y[lo + evicted]
                tcnt += 1
                tgain += _gain(lab_e, gain_mode)
                trel += np.int64(_is_rel(lab_e, rel_thr))
            else:
                tcnt = 0
                tgain = 0.0
                trel = 0
    return tcnt, tgain, trel


@njit(cache=True, nogil=True)
def _top_rows(
    y, s, lo, m, kk, order, buf, lanes, cs, ci, rk, tie_mode, gain_mode, rel_thr
):
    """The ``kk`` best rows of a query ranked into ``order``/``buf``, and the rows
    outside them that tie with the last one under averaged ties (their number,
    gain sum and relevant count)."""
    c = -1
    if kk <= _RANK_MAX_K:
        c = _rank_top(s, lo, m, kk, tie_mode, order, buf, lanes, cs, ci, rk)
    if c < 0:
        return _buffer_top(y, s, lo, m, kk, order, buf, tie_mode, gain_mode, rel_thr)
    tcnt = 0
    tgain = 0.0
    trel = 0
    if tie_mode == TIES_AVERAGE:
        last = buf[kk - 1]
        for a in range(c):
            if rk[a] >= kk and cs[a] == last:
                lab = y[lo + ci[a]]
                tcnt += 1
                tgain += _gain(lab, gain_mode)
                trel += np.int64(_is_rel(lab, rel_thr))
    return tcnt, tgain, trel


@njit(cache=True, nogil=True)
def _ranked_scores(s, lo, ranked, n, out):
    """``out[p] = s[lo + ranked[p]]`` for the first ``n`` ranked positions."""
    for p in range(n):
        out[p] = s[lo + ranked[p]]
    return out


@njit(cache=True, nogil=True)
def _blocks(
    y,
    lo,
    ranked,
    scores,
    n_ranked,
    upto,
    tie_mode,
    gain_mode,
    rel_thr,
    tcnt,
    tgain,
    trel,
    bstart,
    bsize,
    bgain,
    brel,
):
    """Blocks covering the ranked positions ``0..upto-1``; returns their number.

    ``scores[p]`` is the score of the row ranked at ``p`` (read in order, not
    gathered). ``tcnt``, ``tgain`` and ``trel`` describe rows outside ``ranked``
    that tie with its last row; they join the last block.
    """
    nb = 0
    if tie_mode != TIES_AVERAGE:
        for pos in range(min(upto, n_ranked)):
            lab = y[lo + ranked[pos]]
            bstart[nb] = pos
            bsize[nb] = 1
            bgain[nb] = _gain(lab, gain_mode)
            brel[nb] = 1 if _is_rel(lab, rel_thr) else 0
            nb += 1
        return nb
    pos = 0
    while pos < n_ranked and pos < upto:
        sv = scores[pos]
        end = pos
        gsum = 0.0
        rsum = 0
        while end < n_ranked and scores[end] == sv:
            lab = y[lo + ranked[end]]
            gsum += _gain(lab, gain_mode)
            if _is_rel(lab, rel_thr):
                rsum += 1
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


# --------------------------------------------------------------------- the kernel
@njit(cache=True, nogil=True)
def _eval_chunk(
    y,
    s,
    starts,
    ends,
    g0,
    g1,
    kinds,
    ks,
    params,
    disc,
    gain_mode,
    rel_thr,
    tie_mode,
    n_hist,
    values,
    aux,
    n_rel_out,
    label_sum_out,
):
    n_metrics = kinds.shape[0]
    kmax = 0
    k_all = False  # some metric other than RR needs the whole list
    rr_all = False  # RR without cut-off: only up to the first relevant row
    need_rank = False
    need_ideal = False
    for j in range(n_metrics):
        if ks[j] < 0:
            if kinds[j] == RR:
                rr_all = True
            else:
                k_all = True
        elif ks[j] > kmax:
            kmax = ks[j]
        if kinds[j] != IDCG:
            need_rank = True
        if kinds[j] == NDCG or kinds[j] == DCG or kinds[j] == IDCG:
            need_ideal = True
    kbase = kmax if kmax > 0 else 10
    hist = np.zeros(n_hist, dtype=np.int64)
    # Buffers sized once, before the loop (an array variable reassigned inside it
    # makes every query pay): room for the top rows, or a block per row for the
    # longest query that may be ranked whole.
    size = max(_SMALL, kbase) + 1
    for g in range(g0, g1):
        m = ends[g] - starts[g]
        kk = m if k_all else min(kbase, m)
        if kk * 3 >= m or rr_all or tie_mode == TIES_QUICKSORT:
            size = max(size, m + 1)
    order = np.empty(size, dtype=np.int64)
    buf = np.empty(size, dtype=s.dtype)
    ibuf = np.empty(size, dtype=np.float64)
    bstart = np.empty(size + 1, dtype=np.int64)
    bsize = np.empty(size + 1, dtype=np.int64)
    bgain = np.empty(size + 1, dtype=np.float64)
    brel = np.empty(size + 1, dtype=np.int64)
    # Lanes and candidates of the branch-free top-k (``_rank_top``): enough lanes
    # that about 1.3 kk rows qualify on random scores; room for four times the
    # lanes, plus the 64-row block in which the capacity is checked and the
    # padding to a whole vector.
    k_lanes = min(kbase, _RANK_MAX_K) * 8 // 5
    n_lanes = max(_LANE_BLOCK, -(-k_lanes // _LANE_BLOCK) * _LANE_BLOCK)
    lanes = np.empty(n_lanes, dtype=s.dtype)
    n_cand = 4 * n_lanes + 64 + 8
    cs = np.empty(n_cand, dtype=s.dtype)
    ci = np.empty(n_cand, dtype=np.int64)
    rk = np.empty(n_cand, dtype=np.int64)

    for g in range(g0, g1):
        lo = starts[g]
        m = ends[g] - lo
        kk = m if k_all else min(kbase, m)
        use_buffer = (
            need_rank and m > _SMALL and kk * 3 < m and tie_mode != TIES_QUICKSORT
        )
        nb = 0
        if use_buffer:
            n_rel, lsum = _label_totals(
                y, lo, m, kk, need_ideal, gain_mode, rel_thr, ibuf, hist
            )
            tcnt, tgain, trel = _top_rows(
                y,
                s,
                lo,
                m,
                kk,
                order,
                buf,
                lanes,
                cs,
                ci,
                rk,
                tie_mode,
                gain_mode,
                rel_thr,
            )
            nb = _blocks(
                y,
                lo,
                order,
                buf,
                kk,
                kk,
                tie_mode,
                gain_mode,
                rel_thr,
                tcnt,
                tgain,
                trel,
                bstart,
                bsize,
                bgain,
                brel,
            )
            if rr_all and n_rel > 0:
                found = False
                for b in range(nb):
                    if brel[b] > 0:
                        found = True
                        break
                if not found:
                    # The first relevant row ranks below the buffer: rank it all.
                    ranked = _sort_full(s, lo, m, tie_mode)
                    nb = _blocks(
                        y,
                        lo,
                        ranked,
                        _ranked_scores(s, lo, ranked, m, buf),
                        m,
                        m,
                        tie_mode,
                        gain_mode,
                        rel_thr,
                        0,
                        0.0,
                        0,
                        bstart,
                        bsize,
                        bgain,
                        brel,
                    )
        else:
            n_rel, lsum = _label_totals(
                y, lo, m, kk, need_ideal, gain_mode, rel_thr, ibuf, hist
            )
            if need_rank:
                if m <= _SMALL and tie_mode != TIES_QUICKSORT:
                    _sort_small(s, lo, m, order, tie_mode)
                    ranked = order
                else:
                    ranked = _sort_full(s, lo, m, tie_mode)
                upto = m if rr_all else kk
                nb = _blocks(
                    y,
                    lo,
                    ranked,
                    _ranked_scores(s, lo, ranked, m, buf),
                    m,
                    upto,
                    tie_mode,
                    gain_mode,
                    rel_thr,
                    0,
                    0.0,
                    0,
                    bstart,
                    bsize,
                    bgain,
                    brel,
                )
        n_rel_out[g] = n_rel
        label_sum_out[g] = lsum

        for j in range(n_metrics):
            kind = kinds[j]
            kj = m if ks[j] < 0 else min(ks[j], m)
            if kind == NDCG or kind == DCG or kind == IDCG:
                ideal = 0.0
                for p in range(kj):
                    ideal += ibuf[p] * disc[p]
                aux[g, j] = ideal
                if kind == IDCG:
                    values[g, j] = ideal
                    continue
                d = _dcg_blocks(bstart, bsize, bgain, nb, kj, disc)
                if kind == DCG:
                    values[g, j] = d
                elif ideal > 0.0:
                    values[g, j] = d / ideal
                else:
                    values[g, j] = 0.0
                continue
            aux[g, j] = n_rel
            if kind == PRECISION:
                kfull = ks[j] if ks[j] >= 0 else m
                den = kfull if params[j] == P_K else min(kfull, m)
                values[g, j] = _hits_blocks(bstart, bsize, brel, nb, kj) / den
            elif kind == RECALL:
                if n_rel == 0:
                    values[g, j] = 0.0
                else:
                    values[g, j] = _hits_blocks(bstart, bsize, brel, nb, kj) / n_rel
            elif kind == HIT:
                values[g, j] = _hit_blocks(bstart, bsize, brel, nb, kj)
            elif kind == RR:
                values[g, j] = _rr_blocks(bstart, bsize, brel, nb, kj)
            elif kind == AP:
                # n_rel <= m, so min(kj, n_rel) == min(k, n_rel) for AP_MIN_K_RELEVANT.
                values[g, j] = _ap_blocks(bstart, bsize, brel, nb, kj, n_rel, params[j])


@njit(cache=True, nogil=True, parallel=True)
def evaluate_groups(
    y,
    s,
    starts,
    ends,
    chunks,
    kinds,
    ks,
    params,
    disc,
    gain_mode,
    rel_thr,
    tie_mode,
    n_hist,
):
    """Per-query metric values for every requested ``(kind, k, param)``.

    Returns ``values`` and ``aux`` of shape ``(n_groups, n_metrics)``, where ``aux``
    is the ideal DCG at the metric's cut-off for the DCG family and the number of
    relevant rows otherwise (a query is "empty" for a metric when its aux is <= 0),
    plus per-query relevant counts and label sums. ``n_hist > 0`` promises that
    every label is an integer in ``[0, n_hist)``.
    """
    n_groups = starts.shape[0]
    n_metrics = kinds.shape[0]
    values = np.empty((n_groups, n_metrics), dtype=np.float64)
    aux = np.empty((n_groups, n_metrics), dtype=np.float64)
    n_rel = np.empty(n_groups, dtype=np.int64)
    label_sum = np.empty(n_groups, dtype=np.float64)
    for c in prange(chunks.shape[0] - 1):
        _eval_chunk(
            y,
            s,
            starts,
            ends,
            chunks[c],
            chunks[c + 1],
            kinds,
            ks,
            params,
            disc,
            gain_mode,
            rel_thr,
            tie_mode,
            n_hist,
            values,
            aux,
            n_rel,
            label_sum,
        )
    return values, aux, n_rel, label_sum
