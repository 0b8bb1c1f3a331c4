"""A compiled scanner for regular TREC files: per line, a query code, where the
document id lies and the number (fields located, not copied). It takes only what
it reads exactly as the line scanner (``_text``) does and gives up (None) on
anything else; a number it cannot read exactly is read by Python, by its rules."""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from .._native._jit import jit
from .._native._threads import num_threads, run_chunks
from . import _text
from ._decimal import read_float
from ._hashing import fnv1a, same_bytes, slot

GAVE_UP = -1
_SLOW_INT = np.iinfo(np.int64).min
# Files above this size are scanned in pieces, one per thread.
_PARALLEL_BYTES = 8 << 20
# More numbers than this for Python to read: the whole file goes the slow way.
_MAX_SLOW = 100_000


@jit
def _count_lines(data):  # pragma: no cover - compiled
    """One more than the line ends in ``data``: LF and CR bytes (a CRLF pair
    counts twice, so this bounds the number of lines from above)."""
    n = 1
    for i in range(data.size):
        if data[i] == 10 or data[i] == 13:
            n += 1
    return n


@jit(inline="always")
def _blank(c):  # pragma: no cover - compiled
    """Whitespace within a line: isspace() but the line ends (LF and CR)."""
    return c == 32 or c == 9 or c == 11 or c == 12


@jit(inline="always")
def _eol(c):  # pragma: no cover - compiled
    """A line end: LF, CR (a CRLF pair leaves a blank line between, skipped)."""
    return c == 10 or c == 13


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
    """The code of the query id data[a:a+length], added when new; -1 on a
    collision (a match is checked on the bytes)."""
    size = table.size
    h = fnv1a(data, a, a + length)
    at = slot(h, size - 1)
    while table[at] >= 0 and q_hash[table[at]] != h:
        at = (at + 1) & (size - 1)
    code = table[at]
    if code >= 0:
        if q_len[code] != length or not same_bytes(
            data, q_start[code], length, data, a, length
        ):
            code = -1
        return code, table, q_start, q_len, q_hash, n_codes
    code = n_codes
    if code == q_start.size:
        q_start = np.concatenate((q_start, np.empty_like(q_start)))
        q_len = np.concatenate((q_len, np.empty_like(q_len)))
        q_hash = np.concatenate((q_hash, np.empty_like(q_hash)))
    q_start[code], q_len[code], q_hash[code] = a, length, h
    table[at] = code
    n_codes += 1
    if 2 * n_codes > size:
        size *= 4
        table = np.full(size, -1, dtype=np.int64)
        for c in range(n_codes):
            at = slot(q_hash[c], size - 1)
            while table[at] >= 0:
                at = (at + 1) & (size - 1)
            table[at] = c
    return code, table, q_start, q_len, q_hash, n_codes


@functools.cache
def _make_scan(n_fields, extra_ok, number_field, integer):
    # The layout is made of constants of the closure, so numba compiles one
    # straight loop per file kind (numba's cache key pickles these cells).
    @jit
    def scan(
        data, lo, hi, qcode, doc_start, doc_len, fvalue, ivalue, tag_at, tag_len
    ):  # pragma: no cover - compiled
        """Fields of the lines in data[lo:hi], written from row 0 of the outputs
        (each row's run tag too when ``tag_at`` is not empty): the status
        (GAVE_UP on an irregular line), the rows written, each query code's
        bytes, and where the last line's run tag lies."""
        status = 0
        # Query ids: open addressing on their hash, checked on their bytes.
        table = np.full(1024, -1, dtype=np.int64)
        q_start = np.empty(64, dtype=np.int64)
        q_len = np.empty(64, dtype=np.int64)
        q_hash = np.empty(64, dtype=np.uint64)
        n_codes, last, prev_start, prev_len = 0, -1, 0, -1
        fs = np.zeros(n_fields, dtype=np.int64)
        fe = np.zeros(n_fields, dtype=np.int64)
        tag_start, tag_end = 0, 0
        row, pos, lineno, n = 0, lo, 0, hi
        while pos < n:
            lineno += 1
            i, k = pos, 0
            while True:  # the fields of one line, in one pass over its bytes
                while i < n and _blank(data[i]):
                    i += 1
                if i == n or _eol(data[i]):
                    break
                if k == n_fields and extra_ok:  # later fields are ignored
                    while i < n and not _eol(data[i]):
                        i += 1
                    break
                s = i
                while i < n and (
                    data[i] > 32 or not (_blank(data[i]) or _eol(data[i]))
                ):  # up to isspace() in the "C" locale
                    i += 1
                if k < n_fields:
                    fs[k], fe[k] = s, i
                k += 1
            pos = i + 1
            if k == 0 or data[fs[0]] == 35:  # blank, or a '#' comment
                continue
            if k != n_fields:  # the line scanner says what is wrong
                status = GAVE_UP
                break
            # query id: the previous line's code when the bytes are the same
            a, length = fs[0], fe[0] - fs[0]
            if not (
                length == prev_len
                and same_bytes(data, prev_start, prev_len, data, a, length)
            ):
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
            s, e = fs[number_field], fe[number_field]
            # a number Python must read is marked: NaN (which the exact
            # path never gives) or the smallest int64 (19 digits: never exact)
            if integer:
                v, ok = _int(data, s, e)
                ivalue[row] = v if ok else _SLOW_INT
            else:
                x, ok = read_float(data, s, e)
                fvalue[row] = x if ok else np.nan
            if n_fields == 6:
                tag_start, tag_end = fs[5], fe[5]
                if tag_at.size:
                    tag_at[row], tag_len[row] = fs[5], fe[5] - fs[5]
            row += 1
        return (
            status, row, q_start[:n_codes], q_len[:n_codes], tag_start, tag_end,
        )  # fmt: skip

    return scan


@jit
def _recode(qcode, mapping):  # pragma: no cover - compiled
    for i in range(qcode.size):
        qcode[i] = mapping[qcode[i]]


@dataclass
class Scanned:
    """A TREC file located field by field; strings stay in ``data``."""

    data: np.ndarray  # the file's bytes (uint8), past a leading BOM
    qcode: np.ndarray  # int32 code of each row's query id, by first appearance
    names: np.ndarray  # str query id of each code
    doc_start: np.ndarray  # int64 offset of each row's document id in data
    doc_len: np.ndarray  # int32 length of it
    value: np.ndarray  # float64 score or int64 relevance
    tag: str | None  # the last line's run tag (runs only)
    tag_start: np.ndarray | None = None  # each row's tag, when asked for
    tag_len: np.ndarray | None = None


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


def scan_fast(path, layout, raw=None, *, tags=False, first_line=0):
    """A :class:`Scanned` of a regular TREC file (its bytes ``raw`` may be
    given), or None; ``tags`` locates every row's run tag; ``first_line``: the
    lines before ``raw`` in its file (for messages)."""
    if raw is None:
        raw = _text.map_bytes(path)
    skip = len(_text.BOM) if raw[: len(_text.BOM)] == _text.BOM else 0
    data = np.frombuffer(raw, dtype=np.uint8)[skip:]
    if data.size == 0 or data.max() >= 128:
        return None
    pieces = _pieces(data, num_threads() if data.size > _PARALLEL_BYTES else 1)
    caps = [
        _count_lines(data[lo:hi]) - (data[hi - 1] in (10, 13)) for lo, hi, _ in pieces
    ]
    n_lines = sum(caps)
    qcode = np.empty(n_lines, dtype=np.int32)
    doc_start = np.empty(n_lines, dtype=np.int64)
    doc_len = np.empty(n_lines, dtype=np.int32)
    value = np.empty(n_lines, dtype=np.int64 if layout.integer else np.float64)
    tag_start = np.empty(n_lines if tags else 0, dtype=np.int64)
    tag_len = np.empty(n_lines if tags else 0, dtype=np.int32)
    scan = _make_scan(
        layout.n_fields, layout.extra_ok, layout.names.index(layout.number),
        layout.integer,
    )  # fmt: skip
    offsets = np.concatenate([[0], np.cumsum(caps)]).astype(np.int64)

    def piece(t):
        lo, hi, _ = pieces[t]
        at = slice(offsets[t], offsets[t + 1])
        return scan(
            data, lo, hi, qcode[at], doc_start[at], doc_len[at],
            value[at] if not layout.integer else value[:0],
            value[at] if layout.integer else value[:0], tag_start[at], tag_len[at],
        )  # fmt: skip

    results = run_chunks(piece, len(pieces))
    if any(r[0] == GAVE_UP for r in results):
        return None
    # Close the gaps between the pieces' rows; one code per query id.
    code_of, row, tag = {}, 0, None
    arrays = [qcode, doc_start, doc_len, value] + ([tag_start, tag_len] if tags else [])
    for t, (_, n_rows, q_start, q_len, t0, t1) in enumerate(results):
        text = [
            bytes(data[s : s + n]).decode("ascii")
            for s, n in zip(q_start, q_len, strict=True)
        ]
        mapping = np.array(
            [code_of.setdefault(q, len(code_of)) for q in text], dtype=np.int32
        )
        src = slice(offsets[t], offsets[t] + n_rows)
        dst = slice(row, row + n_rows)
        if src != dst:
            for arr in arrays:
                arr[dst] = arr[src]
        if not np.array_equal(mapping, np.arange(len(mapping))):
            _recode(qcode[dst], mapping)
        row += n_rows
        if t1:
            tag = bytes(data[t0:t1]).decode("ascii")
    value = value[:row]
    slow = np.flatnonzero(np.isnan(value) if not layout.integer else value == _SLOW_INT)
    if len(slow) > _MAX_SLOW:
        return None
    for r in slow.tolist():
        number = _slow_number(raw, skip + int(doc_start[r]), layout, path, first_line)
        if number is None:
            return None
        value[r] = number
    if row == 0:
        return None
    names = np.array(list(code_of), dtype=object)
    return Scanned(
        data, qcode[:row], names, doc_start[:row], doc_len[:row], value[:row],
        tag, tag_start[:row] if tags else None, tag_len[:row] if tags else None,
    )  # fmt: skip


def _slow_number(raw, doc_at, layout, path, first_line=0):
    """The number on the line holding offset ``doc_at``, read by Python's rules
    (and errors), or None when it does not fit the column."""
    start = max(raw.rfind(b"\n", 0, doc_at), raw.rfind(b"\r", 0, doc_at)) + 1
    ends = [e for e in (raw.find(b"\n", doc_at), raw.find(b"\r", doc_at)) if e >= 0]
    line = raw[start : min(ends) if ends else len(raw)]
    text = line.split()[layout.names.index(layout.number)].decode("ascii")
    if layout.integer:
        try:
            if not -(2**63) <= int(text) < 2**63:
                return None  # the line scanner's error, on the slow path
        except ValueError:
            pass
    try:
        number = _text.parse_number(text, path, 0, layout)
    except ValueError:  # again, with the line number and text in the message
        before = raw[:start]  # (a memory map has no count)
        lineno = first_line + _text.count_lines(before) + 1
        _text.parse_number(text, path, lineno, layout, line)
        raise
    return number
