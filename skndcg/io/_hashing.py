"""64-bit hashes of strings and (query, value) pairs, to join and check runs fast.
A hash only proposes: every match or duplicate is confirmed on the strings."""

import numpy as np

from .._native._jit import jit
from ._pandas import pd

_FNV_OFFSET = np.uint64(14695981039346656037)
FNV_PRIME = np.uint64(1099511628211)
_MIX = np.uint64(0x9E3779B97F4A7C15)


@jit(inline="always")
def fnv1a(data, start, end):  # pragma: no cover - compiled
    """The 64-bit FNV-1a hash of the bytes data[start:end]."""
    h = _FNV_OFFSET
    for j in range(start, end):
        h = (h ^ np.uint64(data[j])) * FNV_PRIME
    return h


@jit(inline="always")
def same_bytes(data_a, a, len_a, data_b, b, len_b):  # pragma: no cover - compiled
    """Whether data_a[a:a+len_a] and data_b[b:b+len_b] hold the same bytes."""
    if len_a != len_b:
        return False
    for j in range(len_a):  # noqa: SIM110 - a loop numba compiles
        if data_a[a + j] != data_b[b + j]:
            return False
    return True


@jit(inline="always")
def slot(key, mask):  # pragma: no cover - compiled
    """The first slot of a 64-bit key in an open-addressing table of mask + 1."""
    return np.int64((key * _MIX) >> np.uint64(17)) & mask


@jit
def table_size(n):  # pragma: no cover - compiled
    """A power of two at least twice ``n`` (and at least 16): a table's size."""
    size = 16
    while size < 2 * n:
        size *= 2
    return size


@jit
def doc_hashes(data, start, length):  # pragma: no cover - compiled
    """The 64-bit FNV-1a hash of each byte range data[start:start+length]."""
    out = np.empty(start.size, dtype=np.uint64)
    for r in range(start.size):
        out[r] = fnv1a(data, start[r], start[r] + length[r])
    return out


def _arrow_chunks(values):
    """The values as pyarrow string arrays (chunks, not copied), or None."""
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        arr = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return None
    if arr.null_count or arr.type not in (pa.string(), pa.large_string()):
        return None
    return arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]


def string_hashes(values):
    """A uint64 hash of each string (FNV-1a of its UTF-8 bytes)."""
    chunks = _arrow_chunks(values)
    if chunks is None:
        text = pd.Series(values, dtype="str")
        return pd.util.hash_pandas_object(text, index=False).to_numpy(np.uint64)
    import pyarrow as pa

    out = np.empty(sum(len(c) for c in chunks), dtype=np.uint64)
    start = 0
    for arr in chunks:
        if len(arr):
            _, offsets_buf, data_buf = arr.buffers()
            width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
            offsets = np.frombuffer(offsets_buf, dtype=width)[
                arr.offset : arr.offset + len(arr) + 1
            ]
            data = np.frombuffer(data_buf or b"", dtype=np.uint8)
            out[start : start + len(arr)] = doc_hashes(
                data, offsets[:-1], np.diff(offsets)
            )
        start += len(arr)
    return out


def mix(qid, value_bits):
    """One uint64 key per row from a query code and 64 bits of a value."""
    with np.errstate(over="ignore"):
        return (value_bits ^ (qid.astype(np.uint64) * _MIX)) * FNV_PRIME


@jit
def _slots(keys):  # pragma: no cover - compiled
    """Open addressing: ``(slot of each key, table, used)``; equal keys share
    a slot."""
    size = table_size(keys.size)
    table = np.empty(size, dtype=np.uint64)
    used = np.zeros(size, dtype=np.bool_)
    mask = size - 1
    out = np.empty(keys.size, dtype=np.int64)
    for i in range(keys.size):
        key = keys[i]
        at = slot(key, mask)
        while used[at] and table[at] != key:
            at = (at + 1) & mask
        if not used[at]:
            used[at] = True
            table[at] = key
        out[i] = at
    return out, table, used


@jit
def repeated(keys):  # pragma: no cover - compiled
    """Mask of the rows whose key (uint64, contiguous) occurs more than once."""
    slots = _slots(keys)[0]
    count = np.zeros(table_size(keys.size), dtype=np.int32)
    for i in range(keys.size):
        count[slots[i]] += 1
    out = np.empty(keys.size, dtype=np.bool_)
    for i in range(keys.size):
        out[i] = count[slots[i]] > 1
    return out


@jit
def lookup(keys, wanted):  # pragma: no cover - compiled
    """Index of each wanted key in the unique ``keys``, -1 when absent (uint64
    contiguous arrays both)."""
    slots, table, used = _slots(keys)
    index = np.full(table.size, -1, dtype=np.int64)
    for i in range(keys.size):
        index[slots[i]] = i
    mask = table.size - 1
    out = np.full(wanted.size, -1, dtype=np.int64)
    for i in range(wanted.size):
        key = wanted[i]
        at = slot(key, mask)
        while used[at]:
            if table[at] == key:
                out[i] = index[at]
                break
            at = (at + 1) & mask
    return out


@jit
def _block_repeats(order, starts, values):  # pragma: no cover - compiled
    out = np.zeros(order.size, dtype=np.bool_)
    for b in range(starts.size - 1):
        rows = order[starts[b] : starts[b + 1]]
        block = values[rows]
        by_value = np.argsort(block)
        for j in range(1, by_value.size):
            if block[by_value[j]] == block[by_value[j - 1]]:
                out[rows[by_value[j]]] = True
                out[rows[by_value[j - 1]]] = True
    return out


class QueryBlocks:
    """Rows grouped by query code, to find values repeated within a query."""

    def __init__(self, qid):
        qid = np.asarray(qid, dtype=np.int64)  # codes: 0, 1, 2, ...
        if qid.size and (qid[1:] != qid[:-1]).sum() + 1 == np.count_nonzero(
            np.bincount(qid)
        ):
            order = np.arange(qid.size, dtype=np.int64)  # already contiguous
        else:
            order = np.argsort(qid, kind="stable")
        ordered = qid[order]
        cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
        self.order = order
        self.starts = np.concatenate([[0], cuts, [qid.size]]).astype(np.int64)

    def repeated(self, values):
        """Mask of the rows whose value occurs again within their query."""
        return _block_repeats(self.order, self.starts, np.ascontiguousarray(values))


@jit
def gather(data, start, length, offsets):  # pragma: no cover - compiled
    """The byte ranges data[start:start+length], one after another."""
    out = np.empty(offsets[-1], dtype=np.uint8)
    for r in range(start.size):
        at = offsets[r]
        for j in range(length[r]):
            out[at + j] = data[start[r] + j]
    return out


@jit
def all_same(data, start, length):  # pragma: no cover - compiled
    """Whether every byte range data[start:start+length] holds the same bytes."""
    for r in range(1, start.size):
        if not same_bytes(data, start[0], length[0], data, start[r], length[r]):
            return False
    return True
