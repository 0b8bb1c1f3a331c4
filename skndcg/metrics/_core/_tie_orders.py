"""``ties="average"`` for the per-query measures: the exact expectation over the
orders of tied rows.

Only a tie block holding labels the measure tells apart (NaN and -1 count as
labels; a binary measure tells only NaN, negative, relevant and not relevant
apart) within its ``depth`` changes a value; a query without one takes one call
of ``per_query``. Otherwise the value is a weighted sum of calls on filled
copies of the labels (walked by ``first`` and ``advance``), by ``form``:

- ``"any"``: every distinct label sequence of the tied positions within the
  depth, with its probability under random row orders (a block straddling the
  depth draws its first positions without replacement);
- ``"set"``: one call per composition of the drawn part of the block
  straddling the depth (multivariate hypergeometric probabilities);
- ``"sum"``: by linearity, ``f(labels)`` plus, for each block and label ``v``
  in it, the share of ``v`` times ``f(block filled with v) - f(labels)``.

``prepare`` counts the calls first; past the limit the engine refuses.
"""

from __future__ import annotations

import numpy as np

from ..._native._jit import jit

#: Most calls of a measure's ``per_query`` for one query under ties="average".
MAX_CALLS = 100_000
FORMS = ("any", "set", "sum")
ANY, SET, SUM = 0, 1, 2
_B = 5  # fields per block: start, end, drawn positions, class offset, classes


@jit
def same(x, y, binary, thr):
    """Whether the measure cannot tell labels ``x`` and ``y`` apart."""
    if x != x or y != y:
        return x != x and y != y
    if not binary:
        return x == y
    return (x < 0.0) == (y < 0.0) and (x >= thr) == (y >= thr)


@jit
def depth(k, n, by_k):
    """How many ranks the measure reads: ``min(k, n)`` when it declares
    ``depth="k"`` and has a cut-off, else the whole list."""
    if k is None or not by_k:
        return n
    return min(k, n)


@jit
def workspace(m):
    """Scratch arrays for queries of up to ``m`` retrieved rows."""
    m = max(m, 1)
    return (
        np.empty(_B * m, dtype=np.int64),  # blocks
        np.empty(m, dtype=np.float64),  # class labels
        np.empty(m, dtype=np.int64),  # class counts
        np.empty(m, dtype=np.int64),  # composition / scratch counts
        np.empty(m, dtype=np.int64),  # class of each tied position
        np.zeros(2, dtype=np.int64),  # walk state (form "sum")
    )


@jit
def find_blocks(lab, rs, kk, form, binary, thr, ws):
    """The tie blocks of one ranking that change the value, into ``ws``; their
    count (0: one call of ``per_query`` gives the expectation)."""
    blk = ws[0]
    n = lab.shape[0]
    nb = 0
    a = 0
    while a < kk:
        b = a + 1
        mixed = False
        while b < n and rs[b] == rs[a]:
            if not mixed and not same(lab[b], lab[a], binary, thr):
                mixed = True
            b += 1
        if mixed and (form != SET or b > kk):
            blk[_B * nb] = a
            blk[_B * nb + 1] = b
            nb += 1
        a = b
    return nb


@jit
def _binom(n, r):
    out = 1.0
    for i in range(r):
        out = out * (n - i) / (i + 1)
    return out


@jit
def _count(cnt, off, d, size, t, cap, ordered):
    """Distinct label sequences (``ordered``) or class counts of the first
    ``t`` positions drawn from a block (its class counts ``cnt[off:off + d]``),
    capped just above ``cap``."""
    if ordered and t == size:  # the multinomial size! / prod(count!)
        out = 1.0
        run = 0
        for q in range(d):
            c = cnt[off + q]
            run += c
            out *= _binom(run, c)
            if out > cap:
                return cap + 1.0
        return out
    # i positions of class q joining s - i others: binom(s, i) sequences, one
    # composition.
    ways = np.zeros(t + 1)
    ways[0] = 1.0
    for q in range(d):
        c = cnt[off + q]
        nxt = np.zeros(t + 1)
        for s in range(t + 1):
            acc = 0.0
            for i in range(min(c, s) + 1):
                if ways[s - i] > 0.0:
                    w = min(_binom(s, i), cap + 1.0) if ordered else 1.0
                    acc += w * ways[s - i]
            nxt[s] = min(acc, cap + 1.0)
        ways = nxt
    return ways[t]


@jit
def prepare(lab, nb, kk, form, binary, thr, ws, cap):
    """Sort the labels of each block into classes; return how many calls of
    ``per_query`` the expectation takes (just above ``cap`` when more)."""
    blk, val, cnt = ws[0], ws[1], ws[2]
    off = 0
    calls = 1.0 if form != SUM or nb > 1 else 0.0
    for j in range(nb):
        a = blk[_B * j]
        b = blk[_B * j + 1]
        d = 0
        for i in range(a, b):
            c = -1
            for q in range(d):
                if same(val[off + q], lab[i], binary, thr):
                    c = q
                    break
            if c < 0:
                c = d
                val[off + d] = lab[i]
                cnt[off + d] = 0
                d += 1
            cnt[off + c] += 1
        t = min(b, kk) - a
        blk[_B * j + 2] = t
        blk[_B * j + 3] = off
        blk[_B * j + 4] = d
        if form == SUM:
            calls += d
        else:
            calls *= _count(cnt, off, d, b - a, t, cap, form == ANY)
        calls = min(calls, cap + 1.0)
        off += d
    return calls


@jit
def _write(buf, ws, j):
    blk, val, cur = ws[0], ws[1], ws[4]
    off = blk[_B * j + 3]
    for i in range(blk[_B * j], blk[_B * j + 1]):
        buf[i] = val[off + cur[i]]


@jit
def _reset(ws, j, form):
    """Block ``j`` to its first state: classes ascending (form "any"), or the
    first composition of its drawn part (form "set"): the most of the last
    classes drawn (under "any", the whole block is)."""
    blk, cnt, m = ws[0], ws[2], ws[3]
    off, d = blk[_B * j + 3], blk[_B * j + 4]
    rem = blk[_B * j + 2] if form == SET else blk[_B * j + 1] - blk[_B * j]
    for q in range(d - 1, -1, -1):
        m[off + q] = min(cnt[off + q], rem)
        rem -= m[off + q]
    _fill_set(ws, j)


@jit
def _fill_set(ws, j):
    # The drawn part holds m[q] of class q, the rest of the block the others.
    blk, cnt, m, cur = ws[0], ws[2], ws[3], ws[4]
    a, t, off, d = blk[_B * j], blk[_B * j + 2], blk[_B * j + 3], blk[_B * j + 4]
    i = a
    for q in range(d):
        for _ in range(m[off + q]):
            cur[i] = q
            i += 1
    i = a + t
    for q in range(d):
        for _ in range(cnt[off + q] - m[off + q]):
            cur[i] = q
            i += 1


@jit
def _next(ws, j, form):
    """Block ``j`` to its next state; False after the last one."""
    blk, cnt, m, cur = ws[0], ws[2], ws[3], ws[4]
    a, b, t, off, d = (
        blk[_B * j], blk[_B * j + 1], blk[_B * j + 2], blk[_B * j + 3], blk[_B * j + 4]
    )  # fmt: skip
    if form == SET:
        # Lexicographic next of (m[0], ..., m[d-1]) with sum t, m[q] <= cnt[q].
        tail = 0
        for q in range(d - 2, -1, -1):
            tail += m[off + q + 1]
            if m[off + q] < cnt[off + q] and tail >= 1:
                m[off + q] += 1
                rem = tail - 1
                for r in range(d - 1, q, -1):
                    m[off + r] = min(cnt[off + r], rem)
                    rem -= m[off + r]
                _fill_set(ws, j)
                return True
        return False
    # The next distinct sequence of the first t positions: with the rest kept
    # ascending, reversing it and taking the next permutation of the block.
    lo, hi = a + t, b - 1
    while lo < hi:
        cur[lo], cur[hi] = cur[hi], cur[lo]
        lo += 1
        hi -= 1
    i = b - 2
    while i >= a and cur[i] >= cur[i + 1]:
        i -= 1
    if i < a:
        return False
    r = b - 1
    while cur[r] <= cur[i]:
        r -= 1
    cur[i], cur[r] = cur[r], cur[i]
    lo, hi = i + 1, b - 1
    while lo < hi:
        cur[lo], cur[hi] = cur[hi], cur[lo]
        lo += 1
        hi -= 1
    return True


@jit
def _chance(ws, j, form):
    """Probability of block ``j``'s current state under random row orders."""
    blk, cnt, m, cur = ws[0], ws[2], ws[3], ws[4]
    a, b, t, off, d = (
        blk[_B * j], blk[_B * j + 1], blk[_B * j + 2], blk[_B * j + 3], blk[_B * j + 4]
    )  # fmt: skip
    size = b - a
    p = 1.0
    if form == SET:
        # t! / prod(m!) sequences, each drawn with prod (cnt)_(m) / (size)_t.
        i = 0
        for q in range(d):
            for r in range(m[off + q]):
                p *= (i + 1.0) / (r + 1.0) * (cnt[off + q] - r) / (size - i)
                i += 1
        return p
    for q in range(d):
        m[off + q] = cnt[off + q]
    for i in range(t):
        q = cur[a + i]
        p *= m[off + q] / (size - i)
        m[off + q] -= 1
    return p


@jit
def first(buf, lab, nb, form, ws):
    """Fill ``buf`` (a copy of ``lab``) with the first labels to score; their weight."""
    if form == SUM:
        st = ws[5]
        st[0] = -1 if nb > 1 else 0  # -1: the labels as ranked
        st[1] = 0
        if nb > 1:
            return 1.0 - nb
        return _fill_one(buf, ws, 0, 0)
    w = 1.0
    for j in range(nb):
        _reset(ws, j, form)
        _write(buf, ws, j)
        w *= _chance(ws, j, form)
    return w


@jit
def _fill_one(buf, ws, j, q):
    # Block j filled with its class q: weight the share of q in the block.
    blk, val, cnt = ws[0], ws[1], ws[2]
    a, b, off = blk[_B * j], blk[_B * j + 1], blk[_B * j + 3]
    for i in range(a, b):
        buf[i] = val[off + q]
    return cnt[off + q] / (b - a)


@jit
def advance(buf, lab, nb, form, ws):
    """Fill ``buf`` with the next labels to score; their weight (NaN: none left)."""
    blk = ws[0]
    if form == SUM:
        st = ws[5]
        j, q = st[0], st[1]
        if j >= 0:
            for i in range(blk[_B * j], blk[_B * j + 1]):
                buf[i] = lab[i]
            q += 1
            if q == blk[_B * j + 4]:
                j += 1
                q = 0
        else:
            j = 0
        if j == nb:
            return np.nan
        st[0], st[1] = j, q
        return _fill_one(buf, ws, j, q)
    j = nb - 1
    while j >= 0:
        if _next(ws, j, form):
            break
        _reset(ws, j, form)
        _write(buf, ws, j)
        j -= 1
    if j < 0:
        return np.nan
    _write(buf, ws, j)
    w = 1.0
    for i in range(nb):
        w *= _chance(ws, i, form)
    return w


@jit
def tied_queries(ry, rs, starts, nret, k, by_k, form, binary, thr, out):
    """Per query, the number of tie blocks that change the value (0: one call)."""
    m = 0
    for g in range(starts.shape[0]):
        m = max(m, nret[g])
    ws = workspace(m)
    for g in range(starts.shape[0]):
        lo = starts[g]
        n = nret[g]
        out[g] = find_blocks(
            ry[lo : lo + n], rs[lo : lo + n], depth(k, n, by_k), form, binary, thr, ws
        )
