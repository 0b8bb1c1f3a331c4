"""Vectorised bootstrap and sign-flip resampling of weighted means.

Every statistic resampled is a ratio of sums over units (queries, or clusters):
``sum(w * v) / sum(w)``. A block of resamples is a count matrix ``C`` of shape
``(n_block, n_units)``, and all resampled means come from ``C @ numerators`` and
``C @ denominators``. Resample ``b`` draws its units from its own SplitMix64
stream, seeded in resample order (a 32-bit draw picks a unit by multiply-shift:
its probability is off by less than ``n_units / 2**32`` of itself), so it is the
same for any block size or number of threads. Sign flips are the bits of a fixed
stretch of the generator's raw words per resample. Large problems use float32
products on centred values (measured error below 1e-8 on the metric scale).
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from ..._native._jit import jit
from ..._native._threads import num_threads, run_chunks
from ...utils._counts import check_integer
from ...utils._seeds import check_seed

_BLOCK_CELLS = 16_000_000  # count-matrix cells drawn at once (64 MB in float32)
_FLOAT32_FROM = 20_000_000  # resamples x units from which products use float32


def as_generator(random_state):
    """A numpy ``Generator`` from an int, RandomState, Generator or None."""
    rs = check_seed(random_state)
    if isinstance(rs, np.random.Generator):
        return rs
    return np.random.default_rng(rs.randint(np.iinfo(np.int32).max))


@jit(inline="always")
def _splitmix(x):  # pragma: no cover - compiled
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit(inline="always")
def _count_row(seed, n_units, row):  # pragma: no cover - compiled
    n = np.uint64(n_units)
    s32 = np.uint64(32)
    low = np.uint64(0xFFFFFFFF)
    golden = np.uint64(0x9E3779B97F4A7C15)
    row[:] = 0
    x = seed
    i = 0
    while i < n_units:
        x += golden
        z = _splitmix(x)
        row[np.intp(((z & low) * n) >> s32)] += 1
        i += 1
        if i < n_units:
            row[np.intp(((z >> s32) * n) >> s32)] += 1
            i += 1


@jit
def _count_rows(t, n_chunks, seeds, n_units, out):  # pragma: no cover - compiled
    n = out.shape[0]
    for b in range(n * t // n_chunks, n * (t + 1) // n_chunks):
        _count_row(seeds[b], n_units, out[b])


_PARALLEL_FROM = 1_000_000  # cells from which a block is filled by all threads


def multinomial_counts(rng, n_rows, n_units, dtype=np.float64):
    """Bootstrap counts, shape ``(n_rows, n_units)``: ``n_rows`` resamples of
    ``n_units`` units with replacement (each row sums to ``n_units``)."""
    out = np.empty((n_rows, n_units), dtype=dtype)
    seeds = rng.integers(
        0, np.iinfo(np.uint64).max, size=n_rows, dtype=np.uint64, endpoint=True
    )
    n_chunks = num_threads() if out.size >= _PARALLEL_FROM else 1
    run_chunks(_count_rows, n_chunks, n_chunks, seeds, n_units, out)
    return out


def random_bits(rng, n_rows, n_units, dtype=np.float64):
    """Fair random bits (0 or 1) of shape ``(n_rows, n_units)``, ``ceil(n_units /
    64)`` raw words of the generator per row."""
    words = -(-n_units // 64)
    raw = rng.bit_generator.random_raw(n_rows * words)
    bits = np.unpackbits(raw.view(np.uint8), bitorder="little")
    return bits.reshape(n_rows, words * 64)[:, :n_units].astype(dtype)


def _dtype(n_rows, n_units):
    return np.float32 if n_rows * n_units >= _FLOAT32_FROM else np.float64


def blocks(n_rows, n_units, cells):
    """``(lo, hi)``: the rows in blocks of ``cells // n_units`` (at least one)."""
    step = max(1, cells // max(n_units, 1))
    for lo in range(0, n_rows, step):
        yield lo, min(lo + step, n_rows)


def bootstrap_ratios(num, den, n_resamples, rng, den_index=None):
    """Resampled ratios ``(C @ num) / (C @ den)``, shape ``(n_resamples,
    n_series)``: ``num`` (n_units, n_series) holds per-unit sums of ``w * v``,
    ``den`` (n_units, n_den) those of ``w``, its column ``den_index[j]`` (``j``
    when None) dividing series ``j``."""
    n_units = num.shape[0]
    if den_index is None:
        den_index = np.arange(num.shape[1])
    den_total = den.sum(0)[den_index]
    # Centring each series on its ratio keeps the products well conditioned.
    center = num.sum(0) / np.where(den_total == 0, 1.0, den_total)
    resid = num - den[:, den_index] * center
    dtype = _dtype(n_resamples, n_units)
    n_series = num.shape[1]
    # One product per block: numerators and denominators side by side.
    both = np.hstack([resid, den]).astype(dtype)
    out = np.empty((n_resamples, n_series))
    for lo, hi in blocks(n_resamples, n_units, _BLOCK_CELLS):
        sums = multinomial_counts(rng, hi - lo, n_units, dtype) @ both
        with np.errstate(invalid="ignore", divide="ignore"):
            out[lo:hi] = center + sums[:, :n_series] / sums[:, n_series:][:, den_index]
    return out


def sign_flip_means(num, den_total, n_resamples, rng):
    """Means ``(S @ num) / den_total`` under random sign vectors ``S``, or every
    one when ``2**n_units <= n_resamples`` (then the second value is True)."""
    n_units = num.shape[0]
    if n_units < 63 and 2**n_units <= n_resamples:
        codes = np.arange(2**n_units, dtype=np.int64)[:, None]
        signs = 1.0 - 2.0 * ((codes >> np.arange(n_units)) & 1)  # identity first
        return (signs @ num) / den_total, True
    dtype = _dtype(n_resamples, n_units)
    # With bits u (sign 2u - 1) and num = c + r:
    # S @ num = 2 * (u @ r + c * u.sum()) - num.sum(), with small products u @ r.
    center = num.mean(0)
    resid = (num - center).astype(dtype)
    total = num.sum(0)
    out = np.empty((n_resamples, num.shape[1]))
    for lo, hi in blocks(n_resamples, n_units, _BLOCK_CELLS):
        bits = random_bits(rng, hi - lo, n_units, dtype)
        ones = bits.sum(1, dtype=np.float64)[:, None]
        out[lo:hi] = (2.0 * (bits @ resid + ones * center) - total) / den_total
    return out, False


def unit_sums(x, codes, n_units):
    """Sum the rows of ``x`` (n_queries, ...) within each unit."""
    if codes is None:
        return x
    out = np.zeros((n_units, *x.shape[1:]))
    np.add.at(out, codes, x)
    return out


def jackknife_ratios(num, den):
    """Leave-one-unit-out ratios, shape ``(n_units, n_series)``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (num.sum(0) - num) / (den.sum(0) - den)


def percentile_interval(dist, confidence):
    """Percentile interval of each column of ``dist`` (NaN rows ignored)."""
    alpha = 1.0 - np.asarray(confidence, dtype=float)
    return _quantiles(dist, alpha / 2), _quantiles(dist, 1 - alpha / 2)


def check_resamples(n_resamples, confidence, tails=2, level=None):
    """``n_resamples`` as an int; raise unless each of the ``tails`` tails (2, 1,
    or 0 where no interval is drawn) of a ``confidence`` percentile interval
    holds a resample beyond its bound: ``np.percentile`` puts quantile ``q`` at
    sorted position ``q * (B - 1)``, so ``B >= 1 + tails / (1 - confidence)``.
    ``level`` names the confidence in the message."""
    n = check_integer("n_resamples", n_resamples, 1)
    # Less a hair, so that 1 - 0.95 rounding up in floats does not add one.
    least = math.ceil(1 + tails / (1 - confidence) - 1e-9)
    if n < least:
        raise ValueError(
            f"n_resamples={n} is too few for {level or f'confidence={confidence}'}: "
            "each tail of the percentile interval must hold at least one resample "
            f"beyond its bound, which takes n_resamples={least} or more."
        )
    return n


def _quantiles(dist, q):
    """Quantile ``q[j]`` (a scalar or one per column) of every column of ``dist``."""
    q = np.broadcast_to(np.asarray(q, dtype=float), (dist.shape[1],))
    out = np.full(dist.shape[1], np.nan)
    for j in range(dist.shape[1]):
        col = dist[:, j]
        col = col[~np.isnan(col)]
        if col.size and np.isfinite(q[j]):
            out[j] = np.percentile(col, 100 * q[j])
    return out


def bca_interval(dist, estimate, jackknife, confidence):
    """Bias-corrected and accelerated interval (Efron, 1987) of every column;
    ``z0`` counts ties with the estimate as half below."""
    alpha = 1.0 - np.asarray(confidence, dtype=float)
    valid = ~np.isnan(dist)
    n_valid = valid.sum(0)
    below = ((dist < estimate) & valid).sum(0)
    below = below + 0.5 * ((dist == estimate) & valid).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        # All resampled values on one side: the share is 0 or 1 and z0 would be
        # infinite; it is kept half a resample inside.
        share = np.clip(below / n_valid, 0.5 / n_valid, 1 - 0.5 / n_valid)
        z0 = ndtri(share)
        dev = np.nanmean(jackknife, axis=0) - jackknife
        accel = np.nansum(dev**3, 0) / (6.0 * np.nansum(dev**2, 0) ** 1.5)
    accel = np.where(np.isfinite(accel), accel, 0.0)
    bounds = []
    for q in (alpha / 2, 1 - alpha / 2):
        z = ndtri(q)
        with np.errstate(invalid="ignore", divide="ignore"):
            adj = ndtr(z0 + (z0 + z) / (1 - accel * (z0 + z)))
        bounds.append(_quantiles(dist, adj))
    return tuple(bounds)


def check_choice(name, value, choices):
    """Raise unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}.")


def check_share(name, value):
    """``value`` as a float; raise unless it is a number strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < 1:
        raise ValueError(
            f"{name} must be a number strictly between 0 and 1, got {value!r}."
        )
    return float(value)


def align_on(x, index, name, on):
    """``x`` itself, or a Series ``x`` put in the order of ``index`` (that of
    the argument ``on``) by label; raise unless its labels are those of
    ``index``, each once. An array is read by position."""
    if not isinstance(x, pd.Series) or index is None or x.index.equals(index):
        return x
    if not (len(x) == len(index) and x.index.is_unique and index.is_unique
            and index.isin(x.index).all()):  # fmt: skip
        raise ValueError(
            f"{name} is a Series whose index does not hold the labels of the "
            f"index of {on}, each once; a Series is aligned on {on} by label: "
            "give it the same labels, or pass an array (read by position)."
        )
    return x.reindex(index)


def check_length(values, n, must, dtype=None):
    """``values`` as an array of shape ``(n,)``; else raise ``must`` (what the
    argument must hold) with the shape it has."""
    arr = np.asarray(values, dtype=dtype)
    if arr.shape != (n,):
        raise ValueError(f"{must}, got shape {arr.shape}.")
    return arr
