"""Step 2 of the engine: rows grouped by query (kernels in ``_group_kernels.py``).

The queries come in a canonical order (sorted ids when orderable, else first
appearance), whatever the order of the rows. Sorted or contiguous ids need no
copy; others a stable counting sort (rows of a query keep their order, as
``"stable"`` ties need), through buckets of consecutive queries past 128.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ..._native._threads import PARALLEL_ROWS, num_threads, row_chunks, run_chunks
from . import _group_kernels as GK
from ._validate import (
    as_1d,
    check_finite,
    check_length,
    chunked,
    is_categorical,
    isna,
    missing_error,
    py,
)

# A counting sort over raw integer keys is used while the key range stays below
# this many bins per row (plus a constant); wider ranges are factorised first.
_MAX_BINS_PER_ROW = 0.5
# The parallel scatter keeps one offset per (thread, bin); it is used while there is
# at most one such offset per eight rows, so its memory stays small.
_MAX_OFFSETS_PER_ROW = 8
# A counting sort scatters straight into at most 2**_BUCKET_BITS bins (so many
# write streams stay cheap); more bins go through as many buckets of consecutive
# bins first. A row's bin within its bucket is kept as uint16: 2**16 bins at most.
_BUCKET_BITS = 7
_MAX_SHIFT = 16


@dataclass(frozen=True)
class Grouping:
    """Bounds of each query in the grouped arrays, in canonical query order."""

    starts: np.ndarray
    ends: np.ndarray
    keys: np.ndarray
    # Permutation of the rows into grouped order, applied lazily by ``take``;
    # ``None`` when the input arrays are already grouped. Row ``i`` goes to bin
    # ``_codes[i] - _base``; bins are scattered in buckets of ``2**_shift`` bins.
    _codes: np.ndarray | None = None
    _base: int = 0
    _shift: int = 0
    # Where each row chunk writes each bucket, and the first row of each bin.
    _offsets: np.ndarray | None = None
    _bin_start: np.ndarray | None = None
    # Small input: the permutation itself (numpy, nothing to compile).
    _perm: np.ndarray | None = None

    @property
    def n_groups(self) -> int:
        return int(self.starts.shape[0])

    @cached_property
    def sizes(self) -> np.ndarray:
        """Rows of each query (computed once, then kept)."""
        return self.ends - self.starts

    def take(self, a: np.ndarray) -> np.ndarray:
        """``a`` (one value per row, input order) laid out in grouped order."""
        if self._perm is not None:
            return a[self._perm]
        if self._codes is None:
            return a
        if a.dtype.itemsize != 8 or a.dtype.kind not in "iuf":
            return a[self.take(np.arange(a.shape[0], dtype=np.int64))]
        return self._scatter(a)[0]

    def take_pair(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(take(a), take(b))``, in one pass over the rows when both are scattered."""
        if (
            self._codes is None
            or self._perm is not None
            or any(x.dtype.itemsize != 8 or x.dtype.kind not in "iuf" for x in (a, b))
        ):
            return self.take(a), self.take(b)
        return self._scatter(a, b)

    def _scatter(self, a, b=None):
        """The compiled counting sort of ``a`` (and ``b``), moved as int64."""
        a = np.ascontiguousarray(a)
        b = np.ascontiguousarray(np.empty(0, dtype=np.int64) if b is None else b)
        out_a, out_b = np.empty_like(a), np.empty_like(b)
        src_a, src_b = a.view(np.int64), b.view(np.int64)
        dst_a, dst_b = out_a.view(np.int64), out_b.view(np.int64)
        sub = np.empty(a.shape[0] if self._shift else 0, dtype=np.uint16)
        n_chunks = self._offsets.shape[0]
        run_chunks(
            GK.scatter, n_chunks, self._codes, n_chunks, self._base,
            self._shift, self._offsets, src_a, src_b, dst_a, dst_b, sub,
        )  # fmt: skip
        if self._shift:
            n_sort = row_chunks(a.shape[0])
            run_chunks(
                GK.sort_buckets, n_sort, n_sort, dst_a, dst_b, sub,
                self._shift, self._bin_start,
            )  # fmt: skip
        return out_a, out_b

    @cached_property
    def row_query(self) -> np.ndarray:
        """Canonical query index of each grouped row (computed once, then kept)."""
        order = np.argsort(self.starts, kind="stable")
        return np.repeat(order, self.sizes[order]).astype(np.int64, copy=False)

    def count(self, mask: np.ndarray) -> np.ndarray:
        """How many rows of each query are set in ``mask`` (grouped rows)."""
        n = np.bincount(self.row_query, weights=mask, minlength=self.n_groups)
        return n.astype(np.int64)


def _scan(q: np.ndarray):
    parts = chunked(GK.scan_keys, q)
    runs = np.array([p[0] for p in parts], dtype=np.int64)
    ok = all(p[1] for p in parts)
    return ok, runs, min(p[2] for p in parts), max(p[3] for p in parts)


def _bounds(q: np.ndarray, runs: np.ndarray) -> np.ndarray:
    if q.shape[0] < PARALLEL_ROWS:
        starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        return np.append(starts, q.shape[0]).astype(np.int64)
    n_chunks = runs.shape[0]
    first = np.zeros(n_chunks + 1, dtype=np.int64)
    first[1:] = np.cumsum(runs)
    out = np.empty(first[-1] + 1, dtype=np.int64)
    out[0] = 0
    out[-1] = q.shape[0]
    run_chunks(GK.run_starts, n_chunks, q, n_chunks, first, out)
    return out


def _counting(q: np.ndarray, base: int, n_bins: int, keys_of_bins) -> Grouping:
    n = q.shape[0]
    if n < PARALLEL_ROWS:
        counts = np.bincount(q - base, minlength=n_bins)
    else:
        n_chunks = row_chunks(n)
        if n_chunks * n_bins * _MAX_OFFSETS_PER_ROW > n:
            n_chunks = 1
        per_chunk = np.zeros((n_chunks, n_bins), dtype=np.int64)
        run_chunks(GK.count_keys, n_chunks, q, n_chunks, base, per_chunk)
        counts = per_chunk.sum(axis=0)
    bin_start = np.zeros(n_bins, dtype=np.int64)
    np.cumsum(counts[:-1], out=bin_start[1:])
    used = np.flatnonzero(counts)
    starts = bin_start[used]
    ends = starts + counts[used]
    if n < PARALLEL_ROWS:
        perm = np.argsort(q, kind="stable")
        return Grouping(starts, ends, keys_of_bins(used), _perm=perm)
    # Past a hundred or so bins, rows go first to buckets of consecutive bins.
    shift = min(_MAX_SHIFT, max(0, (n_bins - 1).bit_length() - _BUCKET_BITS))
    firsts = np.arange(0, n_bins, 1 << shift)
    per_bucket = np.add.reduceat(per_chunk, firsts, axis=1)
    # Chunk t writes bucket c after the rows of c in the earlier chunks.
    offsets = np.cumsum(per_bucket, axis=0) - per_bucket + bin_start[firsts]
    offsets, bins = np.ascontiguousarray(offsets), bin_start if shift else None
    return Grouping(starts, ends, keys_of_bins(used), q, base, shift, offsets, bins)


def _factorized(values: np.ndarray) -> Grouping:
    import pandas as pd

    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        # Ids that cannot be ordered among themselves: first-appearance order.
        codes, uniques = pd.factorize(values, sort=False)
    uniques = np.asarray(uniques)
    # The codes take the integer paths: sorted or contiguous ids move nothing.
    g = _group_int(codes.astype(np.int64, copy=False), dense=True)
    return replace(g, keys=uniques[g.keys])


def group_rows(qid, n_rows: int, *, name: str = "qid") -> Grouping:
    """Group the rows ``0..n_rows-1`` by ``qid`` (any hashable dtype, checked
    to have ``n_rows`` entries; ``name`` is the argument in messages)."""
    if is_categorical(qid):
        cat = qid.cat if hasattr(qid, "cat") else qid
        codes = np.asarray(cat.codes)
        check_length(name, codes.shape[0], n_rows)
        if (codes < 0).any():
            raise missing_error(name, codes < 0, "a query id")
        g = _group_int(codes.astype(np.int64))
        return replace(g, keys=np.asarray(cat.categories)[g.keys])
    q = as_1d(qid, name, allow_object=True, what="a query id")
    check_length(name, q.shape[0], n_rows)
    kind = q.dtype.kind
    if kind == "b":
        q = q.astype(np.int64)
        kind = "i"
    if kind == "u" and q.max() > np.iinfo(np.int64).max:
        return _factorized(q)
    if kind in "iu":
        return _group_int(q.astype(np.int64, copy=False), keys_dtype=q.dtype)
    if kind in "Mm":
        ints = q.view(np.int64)
        if (ints == np.iinfo(np.int64).min).any():
            raise missing_error(name, ints == np.iinfo(np.int64).min, "a query id")
        g = _group_int(ints)
        return replace(g, keys=g.keys.view(q.dtype))
    missing = np.isnan(q) if kind == "f" else isna(q)
    if missing.any():
        raise missing_error(name, missing, "a query id")
    return _factorized(q)


def _group_int(q: np.ndarray, keys_dtype=None, *, dense: bool = False) -> Grouping:
    """Group integer keys; ``dense`` keys (codes ``0..n_keys-1``) never refactorise."""
    n = q.shape[0]
    ok, runs, lo, hi = _scan(q)
    n_runs = int(runs.sum())
    if ok:
        bounds = _bounds(q, runs)
        g = Grouping(bounds[:-1], bounds[1:], q[bounds[:-1]])
    else:
        g = None
        if n_runs * 4 <= n:
            # Possibly contiguous: each run a distinct query?
            bounds = _bounds(q, runs)
            run_keys = q[bounds[:-1]]
            perm = np.argsort(run_keys, kind="stable")
            sorted_keys = run_keys[perm]
            if n_runs < 2 or (sorted_keys[1:] != sorted_keys[:-1]).all():
                g = Grouping(bounds[:-1][perm], bounds[1:][perm], sorted_keys)
        if g is None:
            span = int(hi) - int(lo) + 1
            if dense or span <= _MAX_BINS_PER_ROW * n + 4096:
                g = _counting(q, int(lo), span, lambda used: used + lo)
            else:
                g = _factorized(q)
    if keys_dtype is not None and g.keys.dtype != keys_dtype:
        g = replace(g, keys=g.keys.astype(keys_dtype))
    return g


def group_constant(values: np.ndarray, grouping: Grouping, name: str) -> np.ndarray:
    """The per-query value of a per-row array that must be constant in a query."""
    grouped = grouping.take(values)
    per_query = grouped[grouping.starts]
    owner = grouping.row_query
    bad = np.flatnonzero(grouped != per_query[owner])
    if bad.size:
        g = int(owner[bad[0]])
        raise ValueError(
            f"{name} varies within query {py(grouping.keys[g])!r}; it is per "
            "query, so give every row of a query the same value."
        )
    return per_query


def query_weights(sample_weight, grouping: Grouping, n_rows: int) -> np.ndarray:
    """One weight per query of ``grouping`` (canonical order) from ``sample_weight``:
    one weight per row (constant within a query) or a mapping from query id to
    weight (a dict or a pandas Series). Weights must be finite and >= 0."""
    if isinstance(sample_weight, dict) or (
        hasattr(sample_weight, "index") and hasattr(sample_weight, "reindex")
    ):
        if (
            not isinstance(sample_weight, dict)
            and len(sample_weight) == n_rows
            and n_rows > grouping.keys.shape[0]
        ):
            raise ValueError(
                f"sample_weight is a pandas Series with one entry per row "
                f"({n_rows} rows, {grouping.keys.shape[0]} queries), but a Series "
                "is read as a mapping from query id (its index) to weight; pass "
                "per-row weights as an array (sample_weight.to_numpy()) or "
                "per-query weights as a dict or a Series indexed by query id."
            )
        mapping = dict(sample_weight.items())
        missing = [k for k in grouping.keys if k not in mapping]
        if missing:
            raise ValueError(
                f"sample_weight given per query lacks a weight for query "
                f"{py(missing[0])!r}; every query needs one."
            )
        values = [mapping[k] for k in grouping.keys]
        boxed = np.empty(len(values), dtype=object)
        boxed[:] = values
        none = np.flatnonzero(isna(boxed))
        if none.size:
            raise ValueError(
                f"sample_weight given per query has a missing weight for query "
                f"{py(grouping.keys[none[0]])!r} (got {py(values[none[0]])!r}); "
                "every query needs a finite weight >= 0."
            )
        w = as_1d(values, "sample_weight").astype(np.float64)
    else:
        rows = as_1d(sample_weight, "sample_weight")
        if rows.shape[0] != n_rows:
            raise ValueError(
                f"sample_weight has {rows.shape[0]} rows but y_true has {n_rows}; "
                "pass one weight per row (constant within a query) or a mapping "
                "from query id to weight."
            )
        if rows.dtype.kind not in "biuf":
            raise TypeError(f"sample_weight must be numeric, got dtype {rows.dtype}.")
        rows = rows.astype(np.float64, copy=False)
        check_finite(rows, "sample_weight")
        w = group_constant(rows, grouping, "sample_weight")
    bad = np.flatnonzero(~np.isfinite(w))
    if bad.size:
        raise ValueError(
            f"sample_weight must be finite and >= 0, got {py(w[bad[0]])!r} for "
            f"query {py(grouping.keys[bad[0]])!r}."
        )
    if (w < 0).any():
        raise ValueError(
            f"sample_weight must be finite and >= 0, got min {py(np.nanmin(w))!r}."
        )
    return w


def chunk_bounds(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Split the queries into contiguous chunks of about equal row counts."""
    n_groups = starts.shape[0]
    n_threads = num_threads()
    # A few chunks per thread balance uneven queries; each chunk is one call.
    n_chunks = max(1, min(n_groups, 8 * n_threads)) if n_threads > 1 else 1
    if n_chunks == 1:
        return np.array([0, n_groups], dtype=np.int64)
    cum = np.cumsum(ends - starts)
    targets = np.linspace(0, cum[-1], n_chunks + 1)[1:-1]
    inner = np.searchsorted(cum, targets, side="left") + 1
    bounds = np.concatenate(([0], inner, [n_groups])).astype(np.int64)
    return bounds[np.diff(bounds, prepend=-1) > 0]  # sorted: drop repeats
