"""The arrays of ``_join.join_codes`` for a regular TREC run and its qrels, from
the compiled scanner's fields, every hash match confirmed on the bytes; anything
else (a repeated document, a hash collision, an irregular file) is left to the
DataFrame path, which gives the same or names the problem."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._native._jit import jit
from .._native._threads import row_chunks, run_chunks
from . import _hashing, _scan, _text
from ._arrange import assemble, depth_keep, query_offsets
from ._data import CodedRanking
from ._hashing import FNV_PRIME, fnv1a, same_bytes, slot, table_size

_OK, _GIVE_UP = 0, 1


@jit(inline="always")
def _before(data, start, length, a, b):  # pragma: no cover - compiled
    """Whether row ``a``'s bytes sort before row ``b``'s (strcmp)."""
    for j in range(min(length[a], length[b])):
        if data[start[a] + j] != data[start[b] + j]:
            return data[start[a] + j] < data[start[b] + j]
    return length[a] < length[b]


@jit
def _sort_by_doc(rows, data, start, length, tmp):  # pragma: no cover - compiled
    """Sort ``rows`` in place by their document ids (a stable merge sort)."""
    m = rows.size
    src, dst = rows, tmp[:m]
    width, swapped = 1, False
    while width < m:
        for lo in range(0, m, 2 * width):
            mid, hi = min(lo + width, m), min(lo + 2 * width, m)
            i, j = lo, mid
            for k in range(lo, hi):
                if j < hi and (
                    i >= mid or _before(data, start, length, src[j], src[i])
                ):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
        src, dst = dst, src
        swapped = not swapped
        width *= 2
    if swapped:  # (a loop: a slice assignment compiles numba's shape errors)
        for k in range(m):
            rows[k] = src[k]


@jit
def _join_blocks(
    chunk, n_chunks, order, starts, score, r_data, r_start, r_len,
    r2j, j_order, j_starts, j_data, j_start, j_len, j_hash, rel,
    keys, label, match,
):  # pragma: no cover - compiled  # fmt: skip
    """Chunk ``chunk`` of the run's query blocks (block ``b``'s judgments are
    qrels block ``r2j[b]``): _GIVE_UP on a repeated document or a hash
    collision, else _OK. ``keys`` (row numbers on entry) are permuted within
    rows whose scores tie as float32 into docno order; ``label`` gets each
    run row's judgment, ``match`` each judgment's run row (else -1)."""
    n_blocks = starts.size - 1
    b0, b1 = n_blocks * chunk // n_chunks, n_blocks * (chunk + 1) // n_chunks
    widest = 1
    for b in range(b0, b1):
        widest = max(widest, starts[b + 1] - starts[b])
    size = table_size(widest)
    doc_pos = np.empty(size, dtype=np.int64)  # a slot's place in the block
    row_hash = np.empty(widest, dtype=np.uint64)
    tie_bits = np.empty(size, dtype=np.uint32)
    tie_count = np.empty(size, dtype=np.int64)
    member_slot = np.empty(widest, dtype=np.int64)
    tied = np.empty(widest, dtype=np.int64)
    tmp = np.empty(widest, dtype=np.int64)
    single = np.empty(1, dtype=np.float32)
    bits = single.view(np.uint32)
    for b in range(b0, b1):
        lo, m = starts[b], starts[b + 1] - starts[b]
        block = order[lo : lo + m] if order.size else np.arange(lo, lo + m)
        cap = table_size(m)
        mask = cap - 1
        doc_pos[:cap] = -1
        tie_count[:cap] = 0
        for t in range(m):
            r = block[t]
            # a document twice in this query: the DataFrame path decides
            h = fnv1a(r_data, r_start[r], r_start[r] + r_len[r])
            row_hash[t] = h
            at = slot(h, mask)
            while doc_pos[at] >= 0:
                if row_hash[doc_pos[at]] == h:
                    return _GIVE_UP
                at = (at + 1) & mask
            doc_pos[at] = t
            # ties on float32 scores (-0.0 counts as 0.0)
            single[0] = np.float32(score[r]) + np.float32(0.0)
            at = slot(np.uint64(bits[0]) * FNV_PRIME + np.uint64(1), mask)
            while tie_count[at] > 0 and tie_bits[at] != bits[0]:
                at = (at + 1) & mask
            tie_bits[at] = bits[0]
            tie_count[at] += 1
            member_slot[t] = at
        # the judgments of this query, looked up among its documents
        jb = r2j[b]
        if jb >= 0:
            for u in range(j_starts[jb], j_starts[jb + 1]):
                i = j_order[u] if j_order.size else u
                at = slot(j_hash[i], mask)
                while doc_pos[at] >= 0:
                    r = block[doc_pos[at]]
                    if row_hash[doc_pos[at]] == j_hash[i]:
                        if not same_bytes(
                            r_data, r_start[r], r_len[r], j_data, j_start[i], j_len[i]
                        ):
                            return _GIVE_UP  # a collision
                        label[r] = rel[i]
                        match[i] = r
                        break
                    at = (at + 1) & mask
        n_tied = 0
        for t in range(m):
            if tie_count[member_slot[t]] > 1:
                tied[n_tied] = t
                n_tied += 1
        if n_tied == 0:
            continue
        # members grouped by score, each group in row order
        tied_now = tied[:n_tied]
        grouped = tied_now[np.argsort(member_slot[tied_now], kind="mergesort")]
        g = 0
        while g < n_tied:
            h = g
            while h < n_tied and member_slot[grouped[h]] == member_slot[grouped[g]]:
                h += 1
            rows = block[grouped[g:h]]  # ascending row numbers
            by_doc = rows.copy()
            _sort_by_doc(by_doc, r_data, r_start, r_len, tmp)
            for i in range(h - g):
                keys[by_doc[i]] = rows[i]
            g = h
    return _OK


@jit
def _blocks(codes, n_codes):  # pragma: no cover - compiled
    """(order, starts): rows grouped by code (codes number the queries by first
    appearance); ``order`` is empty when each query is already one piece."""
    starts = np.zeros(n_codes + 1, dtype=np.int64)
    pieces = 0
    for i in range(codes.size):
        starts[codes[i] + 1] += 1
        pieces += i == 0 or codes[i] != codes[i - 1]
    for c in range(n_codes):
        starts[c + 1] += starts[c]
    if pieces == n_codes:
        return np.empty(0, dtype=np.int64), starts
    order = np.empty(codes.size, dtype=np.int64)
    cursor = starts[:-1].copy()
    for i in range(codes.size):
        order[cursor[codes[i]]] = i
        cursor[codes[i]] += 1
    return order, starts


def join_files(run_path, qrels_path, *, depth=None, by_docno=False, doc_order=True):
    """``(CodedRanking, run tag)`` of a run file joined with its qrels file, or None
    for the DataFrame path: each query's retrieved rows (in run order, or with
    ``by_docno`` in descending ``doc_order``), then its unretrieved judgments;
    ``doc_order=False`` leaves ``CodedRanking.doc_order`` None."""
    run_path = _text.check_path(run_path, "run file")
    qrels_path = _text.check_path(qrels_path, "qrels file")
    # The run is read (a gzip file decompressed) while the qrels are scanned.
    with ThreadPoolExecutor(1, thread_name_prefix="skndcg-read") as pool:
        reading = pool.submit(_text.map_bytes, run_path)
        try:
            qrels = _scan.scan_fast(qrels_path, _text.QRELS)
            if qrels is None:
                return None
            j_order, j_starts = _blocks(qrels.qcode, len(qrels.names))
            j_hash = _hashing.doc_hashes(qrels.data, qrels.doc_start, qrels.doc_len)
            # a document twice in a query (or a rare clash of the mixed keys)
            if _hashing.repeated(_hashing.mix(qrels.qcode, j_hash)).any():
                return None
        finally:
            raw = reading.result()
            del reading  # (it would keep the bytes)
    run = _scan.scan_fast(run_path, _text.RUN, raw)
    del raw
    if run is None:
        return None
    order, starts = _blocks(run.qcode, len(run.names))
    j_code = {name: c for c, name in enumerate(qrels.names)}
    r2j = np.array([j_code.get(name, -1) for name in run.names], dtype=np.int64)
    keys = np.arange(len(run.qcode), dtype=np.int64)
    label = np.zeros(len(run.qcode), dtype=np.int64)
    match = np.full(len(qrels.qcode), -1, dtype=np.int64)
    n_chunks = row_chunks(len(run.qcode))
    status = run_chunks(
        _join_blocks, n_chunks, n_chunks, order, starts, run.value, run.data,
        run.doc_start, run.doc_len, r2j, j_order, j_starts,
        qrels.data, qrels.doc_start, qrels.doc_len, j_hash, qrels.value,
        keys, label, match,
    )  # fmt: skip
    if any(s != _OK for s in status):
        return None
    # The file's text is freed before the outputs exist.
    r_code, score, tag, r_names = run.qcode, run.value, run.tag, run.names
    del run
    names = np.array(sorted(set(r_names) | set(qrels.names)), dtype=object)
    name_run, name_qrels = np.full((2, len(names)), -1, dtype=np.int64)
    name_run[np.searchsorted(names, r_names)] = np.arange(len(r_names))
    name_qrels[np.searchsorted(names, qrels.names)] = np.arange(len(qrels.names))
    keep = r2j[r_code] >= 0  # queries nobody judged are dropped
    del r_code
    if depth is not None:
        depth_keep(order, starts, score, keys, depth, keep)
    retrieved = match >= 0
    retrieved[retrieved] = keep[match[retrieved]]
    at = query_offsets(
        name_run, name_qrels, starts, order, keep, j_starts, j_order, retrieved
    )
    n = int(at[-1])
    qid, y_true = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    y_score = np.empty(n)
    order_out = np.empty(n if doc_order else 0, dtype=np.int64)
    n_chunks = row_chunks(n)
    run_chunks(
        assemble, n_chunks, n_chunks, at, by_docno, name_run, starts, order,
        keep, label, score, keys, name_qrels, j_starts, j_order, qrels.value,
        retrieved, len(keys), qid, y_true, y_score, order_out,
    )  # fmt: skip
    order_out = order_out if doc_order else None
    return CodedRanking(qid, names, None, y_true, y_score, order_out), tag
