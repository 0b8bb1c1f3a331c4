"""Step 4 of the engine: metric values from a query's ranked blocks.

A block is a run of tied positions under ``ties="average"``, else a single
position: its first position, size, gain sum and relevant count. Every metric
is the exact expectation over the orders of the rows within each block
(McSherry & Najork, 2008), the plain value when all blocks have size one.
"""

from __future__ import annotations

import math

import numpy as np

from ..._native._jit import jit
from ._rank import argsort_desc, gain

NDCG, DCG, IDCG, AP, RR, PRECISION, RECALL, HIT = range(8)
# Denominators of average precision.
AP_RELEVANT, AP_MIN_K_RELEVANT, AP_HITS = range(3)
# Denominators of precision.
P_K, P_MIN_K_ITEMS = range(2)


@jit
def dcg_blocks(bstart, bsize, bgain, nb, kk, disc):
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


@jit
def hits_blocks(bstart, bsize, brel, nb, kk):
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


@jit
def hit_blocks(bstart, bsize, brel, nb, kk):
    for b in range(nb):
        p = bstart[b]
        if p >= kk:
            break
        c, r = bsize[b], brel[b]
        if r > 0:
            j = min(p + c, kk) - p
            if j > c - r:
                return 1.0  # j draws from c rows, r relevant, cannot all miss
            miss = 1.0
            for i in range(j):
                miss *= (c - r - i) / (c - i)
            return 1.0 - miss
    return 0.0


@jit
def rr_blocks(bstart, bsize, brel, nb, kk):
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


@jit
def ap_block_sum(p, c, r, before, upto):
    """Expected sum of precision at each relevant row placed in slots 1..upto
    of a block at position ``p`` of ``c`` rows, ``r`` relevant, ``before``
    relevant rows ahead of it."""
    if r == 0 or upto <= 0:
        return 0.0
    if c == 1:
        return (before + 1.0) / (p + 1.0)
    acc = 0.0
    frac = (r - 1.0) / (c - 1.0)
    for u in range(1, upto + 1):
        acc += (before + 1.0 + (u - 1) * frac) / (p + u)
    return acc * r / c


@jit
def _ap_prefix(bstart, bsize, brel, nb, kk):
    """AP numerator over the blocks wholly inside the top ``kk``: (sum, relevant
    rows before the block cut by ``kk``, index of that block or -1)."""
    num = 0.0
    before = 0
    for b in range(nb):
        p = bstart[b]
        if p >= kk:
            break
        if p + bsize[b] > kk:
            return num, before, b
        num += ap_block_sum(p, bsize[b], brel[b], before, bsize[b])
        before += brel[b]
    return num, before, -1


@jit
def ap_blocks(bstart, bsize, brel, nb, kk, n_rel, mode, kden):
    """Expected AP over the top ``kk`` ranked positions, divided by the number of
    relevant rows (``AP_RELEVANT``) or by ``min(kden, n_rel)``, where ``kden`` is
    the metric's own cut-off (``AP_MIN_K_RELEVANT``)."""
    if n_rel == 0:
        return 0.0
    num, before, part = _ap_prefix(bstart, bsize, brel, nb, kk)
    if part >= 0:
        num += ap_block_sum(
            bstart[part], bsize[part], brel[part], before, kk - bstart[part]
        )
    if mode == AP_RELEVANT:
        return num / n_rel
    return num / min(kden, n_rel)


@jit
def ap_blocks_hits(bstart, bsize, brel, nb, kk, n_rel):
    """Expected AP over the top ``kk``, divided by the relevant rows found
    there (conditioned on how many of the block cut by ``kk`` land above it)."""
    if n_rel == 0:
        return 0.0
    num, before, part = _ap_prefix(bstart, bsize, brel, nb, kk)
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
        px = np.exp(log_comb(r, x) + log_comb(c - r, j - x) - log_comb(c, j))
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


@jit
def log_comb(n, k):
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@jit
def ideal_hist(y, lo, m, kk, gain_mode, ibuf, hist):
    """The ``kk`` largest gains of a query into ``ibuf``, by counting its labels
    (small non-negative integers) in ``hist``, which is left zeroed. The first
    0 written ends the gains (label 0 has none)."""
    yq = y[lo : lo + m]
    top = np.int64(0)
    for i in range(m):
        li = np.int64(yq[i])
        hist[np.uintp(li)] += 1
        top = max(top, li)
    p = 0
    for lab in range(top, -1, -1):
        c = hist[lab]
        hist[lab] = 0
        if lab == 0:
            if c > 0 and p < kk:
                ibuf[p] = 0.0
            break
        while c > 0 and p < kk:
            ibuf[p] = gain(np.float64(lab), gain_mode)
            p += 1
            c -= 1


@jit
def ideal_select(y, lo, m, kk, gain_mode, ibuf):
    """The ``kk`` largest gains of a query into ``ibuf`` by an insertion buffer."""
    n = 0
    for i in range(m):
        gi = gain(y[lo + i], gain_mode)
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


@jit
def ideal_sort(y, lo, m, kk, gain_mode, ibuf, gbuf, order, tmp):
    """The ``kk`` largest gains of a query into ``ibuf`` by sorting them; only
    the non-zero ones are sorted, the zeros put between the positive and
    negative ones."""
    n_nonzero = 0
    for i in range(m):
        gi = gain(y[lo + i], gain_mode)
        if gi != 0.0:
            gbuf[n_nonzero] = gi
            n_nonzero += 1
    argsort_desc(gbuf, n_nonzero, order, tmp)
    p = 0
    i = 0
    while i < n_nonzero and p < kk and gbuf[order[i]] > 0.0:
        ibuf[p] = gbuf[order[i]]
        p += 1
        i += 1
    for _ in range(m - n_nonzero):
        if p == kk:
            break
        ibuf[p] = 0.0
        p += 1
    while i < n_nonzero and p < kk:
        ibuf[p] = gbuf[order[i]]
        p += 1
        i += 1
