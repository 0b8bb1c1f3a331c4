"""Turning flat inputs into arrays grouped by query.

``qid`` may be of any hashable dtype and need not be sorted or contiguous. The result
lists the queries in a canonical order (sorted by query id when the ids are mutually
orderable, else by first appearance), so that per-query results, and the order in
which they are summed, do not depend on the order of the rows.

Three paths, from cheapest to dearest:

1. ``qid`` sorted (non-decreasing): group bounds from one pass, no copy.
2. ``qid`` contiguous but not sorted: bounds of the runs, reordered; no copy.
3. Otherwise a stable counting sort scatters each array into grouped order (rows of
   one query keep their input order, which the ``"stable"`` tie rule relies on). With
   several threads each scatters a contiguous chunk of rows from its own offsets.
   Past 128 queries the rows go first to at most 128 buckets of consecutive queries,
   then each bucket's rows to their queries: few write streams at a time, so the
   writes stay in cache.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numba
import numpy as np
import pandas as pd

from . import _kernels as K

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

# Whole-array passes run on all threads from this many rows on.
_PARALLEL_ROWS = 1 << 16


def row_chunks(n: int) -> int:
    """Number of row chunks a whole-array pass over ``n`` rows is split into."""
    return numba.get_num_threads() if n >= _PARALLEL_ROWS else 1


# Integer view and exponent mask of each float width: all exponent bits set means
# NaN or infinity.
_EXPONENT_BITS = {
    2: (np.int16, np.int16(0x7C00)),
    4: (np.int32, np.int32(0x7F800000)),
    8: (np.int64, np.int64(0x7FF0000000000000)),
}


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
    # Where each row chunk writes each bucket (one chunk per thread, or a single
    # one), and the first row of each bin.
    _offsets: np.ndarray | None = None
    _bin_start: np.ndarray | None = None

    @property
    def n_groups(self) -> int:
        return int(self.starts.shape[0])

    @property
    def sizes(self) -> np.ndarray:
        return self.ends - self.starts

    def take(self, a: np.ndarray) -> np.ndarray:
        """``a`` (one value per row, input order) laid out in grouped order."""
        if self._codes is None:
            return a
        out = np.empty(a.shape[0], dtype=a.dtype)
        sub = np.empty(a.shape[0] if self._shift else 0, dtype=np.uint16)
        K.scatter_chunked(
            self._codes, self._base, self._shift, self._offsets, a, out, sub
        )
        if self._shift:
            K.sort_buckets(out, sub, self._shift, self._bin_start)
        return out


def as_1d(x, name: str, *, allow_object: bool = False) -> np.ndarray:
    """A 1-D numpy view of an array-like, refusing 2-D and empty input."""
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        if isinstance(getattr(x, "dtype", None), pd.CategoricalDtype):
            arr = np.asarray(x)
        else:
            arr = x.to_numpy()
    else:
        arr = np.asarray(x)
    if arr.ndim == 0:
        raise ValueError(
            f"{name} must be a 1-D array-like, got a scalar {type(x).__name__}."
        )
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D (one value per row), got an array of shape "
            f"{arr.shape}; flatten it or pass one column."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one row is required.")
    if arr.dtype.kind in "OUS" and not allow_object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be numeric, got dtype {arr.dtype} "
                f"(first value {arr[0]!r})."
            ) from None
    return arr


def check_finite(arr: np.ndarray, name: str) -> None:
    """Raise if a float array holds NaN or infinity, naming the first bad row."""
    if arr.dtype.kind != "f":
        return
    if arr.itemsize in _EXPONENT_BITS:
        bits, mask = _EXPONENT_BITS[arr.itemsize]
        bad = K.first_nonfinite(
            np.ascontiguousarray(arr).view(bits), mask, row_chunks(arr.shape[0])
        )
    else:  # extended precision: no integer view of that width
        nonfinite = np.flatnonzero(~np.isfinite(arr))
        bad = int(nonfinite[0]) if nonfinite.size else -1
    if bad >= 0:
        n_bad = int((~np.isfinite(arr)).sum())
        raise ValueError(
            f"{name} contains {n_bad} NaN or infinite value(s) (first at row "
            f"{bad}: {arr[bad]!r}); every {name} value must be finite."
        )


def _missing_error(qid_name: str, mask: np.ndarray) -> ValueError:
    first = int(np.flatnonzero(mask)[0])
    return ValueError(
        f"{qid_name} has {int(mask.sum())} missing value(s) (first at row {first}); "
        f"every row needs a query id."
    )


def _from_runs(q: np.ndarray, chunk_runs: np.ndarray) -> Grouping:
    bounds = K.run_starts(q, chunk_runs)
    starts, ends = bounds[:-1], bounds[1:]
    return Grouping(starts, ends, q[starts])


def _counting(q: np.ndarray, base: int, n_bins: int, keys_of_bins) -> Grouping:
    # Each thread counts and scatters a contiguous chunk of rows with its own
    # counts and offsets; one chunk when its counts per bin would cost too much
    # memory.
    n = q.shape[0]
    n_chunks = numba.get_num_threads()
    if n_chunks * n_bins * _MAX_OFFSETS_PER_ROW > n:
        n_chunks = 1
    per_chunk = K.count_keys_chunked(q, base, n_bins, n_chunks)
    counts = per_chunk.sum(axis=0)
    bin_start = np.zeros(n_bins, dtype=np.int64)
    np.cumsum(counts[:-1], out=bin_start[1:])
    used = np.flatnonzero(counts)
    starts = bin_start[used]
    ends = starts + counts[used]
    # A scatter into many bins writes all over memory; past a hundred or so, the
    # rows go first to at most that many buckets of consecutive bins, then each
    # bucket's rows to their bins (``sort_buckets``, within the bucket's rows).
    shift = min(_MAX_SHIFT, max(0, (n_bins - 1).bit_length() - _BUCKET_BITS))
    firsts = np.arange(0, n_bins, 1 << shift)
    offsets = K.chunk_offsets(
        np.add.reduceat(per_chunk, firsts, axis=1), bin_start[firsts]
    )
    return Grouping(
        starts,
        ends,
        keys_of_bins(used),
        q,
        base,
        shift,
        offsets,
        bin_start if shift else None,
    )


def _factorized(values: np.ndarray) -> Grouping:
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        # Ids that cannot be ordered among themselves: first-appearance order.
        codes, uniques = pd.factorize(values, sort=False)
    codes = codes.astype(np.int64, copy=False)
    uniques = np.asarray(uniques)
    return _counting(codes, 0, uniques.shape[0], lambda used: uniques[used])


def group_rows(qid, n_rows: int, *, name: str = "qid") -> Grouping:
    """Group the row indices ``0..n_rows-1`` by ``qid``.

    Parameters
    ----------
    qid : array-like of shape (n_rows,)
        Query id of each row, of any hashable dtype.
    n_rows : int
        Expected length, checked against ``qid``.
    name : str
        Argument name used in error messages.
    """
    q = as_1d(qid, name, allow_object=True)
    if q.shape[0] != n_rows:
        raise ValueError(
            f"{name} has {q.shape[0]} rows but y_true has {n_rows}; they must match."
        )
    if isinstance(getattr(qid, "dtype", None), pd.CategoricalDtype):
        codes = np.asarray(qid.cat.codes if hasattr(qid, "cat") else qid.codes)
        if (codes < 0).any():
            raise _missing_error(name, codes < 0)
        cats = np.asarray(qid.cat.categories if hasattr(qid, "cat") else qid.categories)
        g = _group_int(codes.astype(np.int64))
        return replace(g, keys=cats[g.keys])
    kind = q.dtype.kind
    if kind == "b":
        q = q.astype(np.int64)
        kind = "i"
    if kind == "u":
        if q.shape[0] and q.max() > np.iinfo(np.int64).max:
            return _factorized(q)
        return _group_int(q.astype(np.int64), keys_dtype=q.dtype)
    if kind == "i":
        return _group_int(q)
    if kind == "M" or kind == "m":
        ints = q.view(np.int64)
        if (ints == np.iinfo(np.int64).min).any():
            raise _missing_error(name, ints == np.iinfo(np.int64).min)
        g = _group_int(ints)
        return replace(g, keys=g.keys.view(q.dtype))
    if kind == "f":
        nan = np.isnan(q)
        if nan.any():
            raise _missing_error(name, nan)
        ok, chunk_runs, _, _ = K.scan_keys(q, row_chunks(q.shape[0]))
        if ok:
            return _from_runs(q, chunk_runs)
        return _factorized(q)
    missing = pd.isna(q)
    if missing.any():
        raise _missing_error(name, missing)
    return _factorized(q)


def _group_int(q: np.ndarray, keys_dtype=None) -> Grouping:
    n = q.shape[0]
    ok, chunk_runs, lo, hi = K.scan_keys(q, row_chunks(n))
    n_runs = int(chunk_runs.sum())
    if ok:
        g = _from_runs(q, chunk_runs)
    else:
        g = None
        if n_runs * 4 <= n:
            # Possibly contiguous: each run a distinct query?
            bounds = K.run_starts(q, chunk_runs)
            run_keys = q[bounds[:-1]]
            perm = np.argsort(run_keys, kind="stable")
            sorted_keys = run_keys[perm]
            if n_runs < 2 or (sorted_keys[1:] != sorted_keys[:-1]).all():
                g = Grouping(bounds[:-1][perm], bounds[1:][perm], sorted_keys)
        if g is None:
            span = int(hi) - int(lo) + 1
            if span <= _MAX_BINS_PER_ROW * n + 4096:
                g = _counting(q, int(lo), span, lambda used: used + lo)
            else:
                g = _factorized(q)
    if keys_dtype is not None:
        g = replace(g, keys=g.keys.astype(keys_dtype))
    return g


def chunk_bounds(starts: np.ndarray, ends: np.ndarray, n_threads: int) -> np.ndarray:
    """Split the queries into contiguous chunks of about equal row counts."""
    n_groups = starts.shape[0]
    n_chunks = max(1, min(n_groups, 32 * n_threads))
    if n_chunks == 1:
        return np.array([0, n_groups], dtype=np.int64)
    cum = np.cumsum(ends - starts)
    targets = np.linspace(0, cum[-1], n_chunks + 1)[1:-1]
    inner = np.searchsorted(cum, targets, side="left") + 1
    bounds = np.concatenate(([0], inner, [n_groups])).astype(np.int64)
    return np.unique(bounds)
