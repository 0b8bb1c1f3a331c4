"""The joined rows' arrangement: the depth cut and the order they are handed on in."""

import numpy as np

from .._native._jit import jit
from . import _hashing


@jit
def depth_keep(order, starts, score, keys, depth, keep):  # pragma: no cover - compiled
    """Clear ``keep`` past each query's ``depth`` best rows (score, then key)."""
    for b in range(starts.size - 1):
        lo, m = starts[b], starts[b + 1] - starts[b]
        if m <= depth:
            continue
        block = order[lo : lo + m] if order.size else np.arange(lo, lo + m)
        ranked = block[np.argsort(-score[block], kind="mergesort")]
        i = 0
        while i < m:  # within equal scores, the larger key first
            j = i
            while j < m and score[ranked[j]] == score[ranked[i]]:
                j += 1
            if j - i > 1:
                run = ranked[i:j]
                by_key = run[np.argsort(-keys[run])]
                for u in range(j - i):  # (a slice assignment compiles more)
                    ranked[i + u] = by_key[u]
            i = j
        for t in range(depth, m):
            keep[ranked[t]] = False


@jit
def query_offsets(
    name_run, name_qrels, starts, order, keep, j_starts, j_order, retrieved
):  # pragma: no cover - compiled
    """First output row of each query (by sorted name), and the row count."""
    n_names = name_run.size
    at = np.zeros(n_names + 1, dtype=np.int64)
    for q in range(n_names):
        count = 0
        b = name_run[q]
        if b >= 0:
            for u in range(starts[b], starts[b + 1]):
                count += keep[order[u] if order.size else u]
        jb = name_qrels[q]
        if jb >= 0:
            for u in range(j_starts[jb], j_starts[jb + 1]):
                count += not retrieved[j_order[u] if j_order.size else u]
        at[q + 1] = at[q] + count
    return at


@jit
def assemble(
    chunk, n_chunks, at, by_key, name_run, starts, order, keep, label, score, keys,
    name_qrels, j_starts, j_order, rel, retrieved, n_run,
    qid, y_true, y_score, doc_order,
):  # pragma: no cover - compiled  # fmt: skip
    """Chunk ``chunk`` of the queries (by sorted name) written from ``at[q]``:
    each query's kept run rows (in run order, or with ``by_key`` by key,
    descending), then its unretrieved judgments; an empty ``doc_order`` is
    not written."""
    n_names = name_run.size
    q0, q1 = n_names * chunk // n_chunks, n_names * (chunk + 1) // n_chunks
    widest = 1
    for q in range(q0, q1):
        if name_run[q] >= 0:
            widest = max(widest, starts[name_run[q] + 1] - starts[name_run[q]])
    by_rank = np.empty(widest, dtype=np.int64)
    for q in range(q0, q1):
        p = at[q]
        b = name_run[q]
        if b >= 0:
            lo, m = starts[b], starts[b + 1] - starts[b]
            block = order[lo : lo + m] if order.size else np.arange(lo, lo + m)
            if by_key:  # keys are the block's rows, permuted: rank them
                for t in range(m):
                    k = keys[block[t]]
                    rank = k - lo if order.size == 0 else np.searchsorted(block, k)
                    by_rank[rank] = block[t]
                rows = by_rank[:m][::-1]
            else:
                rows = block
            for t in range(m):
                r = rows[t]
                if keep[r]:
                    qid[p], y_true[p], y_score[p] = q, max(label[r], 0), score[r]
                    if doc_order.size:
                        doc_order[p] = keys[r]
                    p += 1
        jb = name_qrels[q]
        if jb >= 0:
            n_j = j_starts[jb + 1] - j_starts[jb]
            for v in range(n_j):
                u = j_starts[jb] + (n_j - 1 - v if by_key else v)
                i = j_order[u] if j_order.size else u
                if not retrieved[i]:
                    # no rank is taken: the key only needs to be unique
                    qid[p], y_true[p], y_score[p] = q, max(rel[i], 0), np.nan
                    if doc_order.size:
                        doc_order[p] = n_run + i
                    p += 1


def docno_order(qid, score, doc, blocks=None):
    """An int64 key, unique within each query, that orders tied scores by
    docno (strcmp): a tied row's key is its docno's position among those of
    all tied rows (descending: trec_eval's order), every other row's a larger
    one of its own."""
    if blocks is None:
        blocks = _hashing.QueryBlocks(qid)
    # Ties on float32 scores (a superset of the float64 ties) serve the
    # float64 and float32 conventions alike; -0.0 counts as 0.0.
    single = score.astype(np.float32) + np.float32(0.0)
    tied = blocks.repeated(single.view(np.uint32).astype(np.uint64))
    n_tied = int(tied.sum())
    order = np.arange(n_tied, n_tied + len(score), dtype=np.int64)
    if n_tied:
        _, inverse = np.unique(
            np.asarray(doc[tied], dtype=object).astype(str), return_inverse=True
        )
        order[tied] = inverse.ravel()
    return order


def check_depth(depth):
    """Refuse a depth that is not a positive integer (nor a bool) or None."""
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1
    ):
        what = " (a bool, not a number of documents)" if isinstance(depth, bool) else ""
        raise ValueError(
            f"depth must be a positive integer or None, got {depth!r}{what}."
        )


def depth_cut(qid, score, doc_order, depth):
    """Rows among each query's ``depth`` best (score, then docno, descending)."""
    order = np.lexsort((-doc_order, -score, qid))
    sorted_q = qid[order]
    starts = np.flatnonzero(np.r_[True, sorted_q[1:] != sorted_q[:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    position = np.arange(len(order)) - np.repeat(starts, sizes)
    keep = np.zeros(len(qid), dtype=bool)
    keep[order[position < depth]] = True
    return keep
