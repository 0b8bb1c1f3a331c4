"""A compiled scanner for regular TREC files: fields located, not copied.

One pass over the file's bytes finds, per line, the query id (as a code), where
the document id lies in the buffer with a 64-bit hash of it, and the number
field parsed exactly. Nothing is built per row but numbers, so a run of ten
million lines needs no ten million strings.

The scanner only accepts what it can read exactly as the reference line scanner
in ``_text`` does; anything else (non-ASCII text, a wrong field count, no line
at all, a hash collision between two query ids) makes it give up and return
None, and the caller reads the file the slow way, which also names the file and
line of any error. A number it cannot parse exactly on its own (more than 15
significant digits, a large exponent, ``nan``, ``1_0``) is marked for Python
to parse, with the same rules as the line scanner.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..metrics._jit import jit
from ..metrics._threads import num_threads, run_chunks
from . import _text

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
_MIX = np.uint64(0x9E3779B97F4A7C15)
# Powers of ten that are exact doubles: m * 10**e and m / 10**e are then
# correctly rounded for any integer m < 2**53 (Clinger's fast path), which is
# what float() gives.
_POW10 = np.array([10.0**e for e in range(23)])
_EXACT = np.uint64(1 << 53)

GAVE_UP = -1
# Files above this size are scanned in pieces, one per thread.
_PARALLEL_BYTES = 8 << 20


@jit
def _count_lines(data):  # pragma: no cover - compiled
    n = 1
    for i in range(data.size):
        if data[i] == 10:
            n += 1
    return n


@jit(inline="always")
def _space(c):  # pragma: no cover - compiled
    """C's isspace() in the "C" locale."""
    return c <= 32 and (c == 32 or (c >= 9 and c <= 13))


@jit(inline="always")
def _blank(c):  # pragma: no cover - compiled
    """Whitespace within a line: isspace() but the newline."""
    return c == 32 or c == 9 or c == 11 or c == 12 or c == 13


@jit(inline="always")
def _hash(data, start, end):  # pragma: no cover - compiled
    h = _FNV_OFFSET
    for j in range(start, end):
        h = (h ^ np.uint64(data[j])) * _FNV_PRIME
    return h


@jit(inline="always")
def _same(data, a, b, length):  # pragma: no cover - compiled
    for j in range(length):  # noqa: SIM110 - a loop numba compiles
        if data[a + j] != data[b + j]:
            return False
    return True


@jit(inline="always")
def _float(data, i, end, pow10):  # pragma: no cover - compiled
    """(value, exact): the decimal number in data[i:end], when exactly readable."""
    neg = False
    if data[i] == 45 or data[i] == 43:  # '-' or '+'
        neg = data[i] == 45
        i += 1
    mant = np.uint64(0)
    n_digits = 0
    exp10 = 0
    seen = False
    point = False
    while i < end:
        c = data[i]
        if c >= 48 and c <= 57:
            seen = True
            if mant != 0 or c != 48:
                if n_digits == 19:
                    return 0.0, False
                mant = mant * np.uint64(10) + np.uint64(c - 48)
                n_digits += 1
            if point:
                exp10 -= 1
        elif c == 46 and not point:  # '.'
            point = True
        else:
            break
        i += 1
    if not seen:
        return 0.0, False
    if i < end and (data[i] == 101 or data[i] == 69):  # 'e' or 'E'
        i += 1
        sign = 1
        if i < end and (data[i] == 45 or data[i] == 43):
            sign = -1 if data[i] == 45 else 1
            i += 1
        if i == end:
            return 0.0, False
        e = 0
        while i < end and data[i] >= 48 and data[i] <= 57 and e < 10000:
            e = e * 10 + (data[i] - 48)
            i += 1
        exp10 += sign * e
    if i != end:
        return 0.0, False
    if mant == 0:
        return -0.0 if neg else 0.0, True
    if mant > _EXACT or exp10 < -22 or exp10 > 22:
        return 0.0, False
    value = np.float64(mant)
    value = value / pow10[-exp10] if exp10 < 0 else value * pow10[exp10]
    return -value if neg else value, True


@jit(inline="always")
def _int(data, i, end):  # pragma: no cover - compiled
    """(value, exact): the integer in data[i:end], when it is plain digits."""
    neg = False
    if data[i] == 45 or data[i] == 43:
        neg = data[i] == 45
        i += 1
    if i == end or end - i > 18:
        return 0, False
    value = 0
    while i < end:
        c = data[i]
        if c < 48 or c > 57:
            return 0, False
        value = value * 10 + (c - 48)
        i += 1
    return -value if neg else value, True


@jit
def _intern(
    data, a, length, table, q_start, q_len, q_hash, n_codes
):  # pragma: no cover - compiled
    """The code of the query id data[a:a+length], added when new; -1 on a collision.

    Open addressing on the id's hash; a match is checked on the bytes.
    """
    size = table.size
    h = _hash(data, a, a + length)
    slot = np.int64((h * _MIX) >> np.uint64(20)) & (size - 1)
    while table[slot] >= 0 and q_hash[table[slot]] != h:
        slot = (slot + 1) & (size - 1)
    code = table[slot]
    if code >= 0:
        if q_len[code] != length or not _same(data, q_start[code], a, length):
            code = -1
        return code, table, q_start, q_len, q_hash, n_codes
    code = n_codes
    if code == q_start.size:
        q_start = np.concatenate((q_start, np.empty_like(q_start)))
        q_len = np.concatenate((q_len, np.empty_like(q_len)))
        q_hash = np.concatenate((q_hash, np.empty_like(q_hash)))
    q_start[code], q_len[code], q_hash[code] = a, length, h
    table[slot] = code
    n_codes += 1
    if 2 * n_codes > size:
        size *= 4
        table = np.full(size, -1, dtype=np.int64)
        for c in range(n_codes):
            slot = np.int64((q_hash[c] * _MIX) >> np.uint64(20)) & (size - 1)
            while table[slot] >= 0:
                slot = (slot + 1) & (size - 1)
            table[slot] = c
    return code, table, q_start, q_len, q_hash, n_codes


@jit
def _scan(
    data, lo, hi, layout, pow10, qcode, doc_start, doc_len, doc_hash, fvalue, ivalue
):  # pragma: no cover - compiled
    """Fields of the lines in data[lo:hi], written from row 0 of the outputs.

    ``layout`` is (n_fields, extra_ok, number_field, integer). Returns the
    status (GAVE_UP when a line is irregular), the rows written, each query
    code's first bytes, the rows (and lines, from 1 at ``lo``) whose number
    Python must read, and where the last line's run tag lies.
    """
    n_fields, extra_ok, number_field, integer = layout
    slow = np.empty(16, dtype=np.int64)  # rows whose number Python reads
    slow_line = np.empty(16, dtype=np.int64)
    n_slow = 0
    # Query ids: open addressing on their hash, checked on their bytes.
    table = np.full(1024, -1, dtype=np.int64)
    q_start = np.empty(64, dtype=np.int64)
    q_len = np.empty(64, dtype=np.int64)
    q_hash = np.empty(64, dtype=np.uint64)
    n_codes, last, prev_start, prev_len = 0, -1, 0, -1
    fs = np.zeros(n_fields, dtype=np.int64)
    fe = np.zeros(n_fields, dtype=np.int64)
    tag_start, tag_end = 0, 0
    status, row, pos, lineno, n = 0, 0, lo, 0, hi
    while pos < n:
        lineno += 1
        i, k, ascii_ok = pos, 0, True
        while True:  # the fields of one line, in one pass over its bytes
            while i < n and _blank(data[i]):
                i += 1
            if i == n or data[i] == 10:
                break
            if k == n_fields and extra_ok:  # later fields are ignored
                while i < n and data[i] != 10:
                    i += 1
                break
            s = i
            while i < n and not _space(data[i]):
                ascii_ok &= data[i] < 128
                i += 1
            if k < n_fields:
                fs[k], fe[k] = s, i
            k += 1
        pos = i + 1
        if k == 0 or data[fs[0]] == 35:  # blank, or a '#' comment
            continue
        if k != n_fields or not ascii_ok:  # the line scanner says what is wrong
            status = GAVE_UP
            break
        # query id: the previous line's code when the bytes are the same
        a, length = fs[0], fe[0] - fs[0]
        if not (length == prev_len and _same(data, prev_start, a, length)):
            last, table, q_start, q_len, q_hash, n_codes = _intern(
                data, a, length, table, q_start, q_len, q_hash, n_codes
            )
            if last < 0:
                status = GAVE_UP  # two query ids share a hash
                break
            prev_start, prev_len = a, length
        qcode[row] = last
        doc_start[row] = fs[2]
        doc_len[row] = fe[2] - fs[2]
        doc_hash[row] = _hash(data, fs[2], fe[2])
        s, e = fs[number_field], fe[number_field]
        if integer:
            v, ok = _int(data, s, e)
            ivalue[row] = v
        else:
            x, ok = _float(data, s, e, pow10)
            fvalue[row] = x
        if not ok:
            if n_slow == slow.size:
                slow = np.concatenate((slow, np.empty_like(slow)))
                slow_line = np.concatenate((slow_line, np.empty_like(slow_line)))
            slow[n_slow] = row
            slow_line[n_slow] = lineno
            n_slow += 1
        if n_fields == 6:
            tag_start, tag_end = fs[5], fe[5]
        row += 1
    return (
        status, row, q_start[:n_codes], q_len[:n_codes], slow[:n_slow],
        slow_line[:n_slow], tag_start, tag_end,
    )  # fmt: skip


@jit
def _recode(qcode, mapping):  # pragma: no cover - compiled
    for i in range(qcode.size):
        qcode[i] = mapping[qcode[i]]


@dataclass
class Scanned:
    """A TREC file located field by field; strings stay in ``data``."""

    path: str
    data: np.ndarray  # the file's bytes (uint8)
    qcode: np.ndarray  # int32 code of each row's query id, by first appearance
    names: np.ndarray  # str query id of each code
    doc_start: np.ndarray  # int64 offset of each row's document id in data
    doc_len: np.ndarray  # int32 length of it
    doc_hash: np.ndarray  # uint64 FNV-1a of it
    value: np.ndarray  # float64 score or int64 relevance
    tag: str | None  # the last line's run tag (runs only)

    def doc(self, row):
        """The document id of ``row`` as text."""
        start = self.doc_start[row]
        return bytes(self.data[start : start + self.doc_len[row]]).decode("ascii")


def _pieces(data, n_pieces):
    """[(lo, hi, first line - 1)]: ``data`` cut after newlines into similar parts."""
    cuts = [0]
    for p in range(1, n_pieces):
        at = data.size * p // n_pieces
        nl = np.flatnonzero(data[at : at + (1 << 20)] == 10)
        if nl.size == 0 or at <= cuts[-1]:
            continue
        cuts.append(at + int(nl[0]) + 1)
    cuts.append(data.size)
    pieces, lines = [], 0
    for lo, hi in itertools.pairwise(cuts):
        if hi > lo:
            pieces.append((lo, hi, lines))
            lines += _count_lines(data[lo:hi]) - 1
    return pieces


def scan_fast(path, layout):
    """A :class:`Scanned` of a regular TREC file, or None to read it the slow way."""
    raw = _text.read_bytes(path)
    data = np.frombuffer(raw, dtype=np.uint8)
    if data.size == 0:
        return None
    n_pieces = num_threads() if data.size > _PARALLEL_BYTES else 1
    pieces = _pieces(data, n_pieces)
    caps = [_count_lines(data[lo:hi]) for lo, hi, _ in pieces]
    n_lines = sum(caps)
    qcode = np.empty(n_lines, dtype=np.int32)
    doc_start = np.empty(n_lines, dtype=np.int64)
    doc_len = np.empty(n_lines, dtype=np.int32)
    doc_hash = np.empty(n_lines, dtype=np.uint64)
    value = np.empty(n_lines, dtype=np.int64 if layout.integer else np.float64)
    spec = (
        layout.n_fields, layout.extra_ok, layout.names.index(layout.number),
        layout.integer,
    )  # fmt: skip
    offsets = np.concatenate([[0], np.cumsum(caps)]).astype(np.int64)

    def piece(t):
        lo, hi, _ = pieces[t]
        at = slice(offsets[t], offsets[t + 1])
        return _scan(
            data, lo, hi, spec, _POW10, qcode[at], doc_start[at], doc_len[at],
            doc_hash[at], value[at] if not layout.integer else value[:0],
            value[at] if layout.integer else value[:0],
        )  # fmt: skip

    results = run_chunks(piece, len(pieces))
    if any(r[0] == GAVE_UP for r in results):
        return None
    # Pieces wrote from their own offsets: close the gaps, one code per query id.
    names, code_of, row = [], {}, 0
    tag = None
    for t, (_, n_rows, q_start, q_len, slow, slow_line, t0, t1) in enumerate(results):
        text = [
            bytes(data[s : s + n]).decode("ascii")
            for s, n in zip(q_start, q_len, strict=True)
        ]
        mapping = np.array(
            [code_of.setdefault(q, len(code_of)) for q in text], dtype=np.int32
        )
        src = slice(offsets[t], offsets[t] + n_rows)
        dst = slice(row, row + n_rows)
        for arr in (qcode, doc_start, doc_len, doc_hash, value):
            arr[dst] = arr[src]
        if not np.array_equal(mapping, np.arange(len(mapping))):
            _recode(qcode[dst], mapping)
        for r, lineno in zip(slow.tolist(), slow_line.tolist(), strict=True):
            number = _slow_number(raw, doc_start[row + r], layout, path)
            lineno += pieces[t][2]
            number = _text.parse_number(number, path, lineno, layout)
            if layout.integer and not -(2**63) <= number < 2**63:
                return None
            value[row + r] = number
        row += n_rows
        if t1:
            tag = bytes(data[t0:t1]).decode("ascii")
    if row == 0:
        return None
    names = np.array(list(code_of), dtype=object)
    return Scanned(
        path, data, qcode[:row], names, doc_start[:row], doc_len[:row],
        doc_hash[:row], value[:row], tag,
    )  # fmt: skip


def _slow_number(raw, doc_at, layout, path):
    """The text of the number field on the line holding offset ``doc_at``."""
    start = raw.rfind(b"\n", 0, doc_at) + 1
    end = raw.find(b"\n", doc_at)
    line = raw[start : end if end >= 0 else len(raw)]
    return line.split()[layout.names.index(layout.number)].decode("ascii")
