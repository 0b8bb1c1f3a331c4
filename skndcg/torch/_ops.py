"""Tensor operations the measures' tensor kernels share, as ``ranked.ops`` (the
measure modules never import this package)."""

from __future__ import annotations

import math

import numpy as np
import torch


def segment_sum(values, segment, n):
    """Sum of ``values`` per segment id in ``[0, n)``, added in row order."""
    out = torch.zeros(n, dtype=values.dtype, device=values.device)
    return out.index_add_(0, segment, values)


def running_sum(values, segment, n):
    """Per row, the sum of ``values`` up to and including it within its
    (contiguous) segment; for integer values, exact."""
    cum = torch.cumsum(values, 0)
    total = segment_sum(values, segment, n)
    return cum - (torch.cumsum(total, 0) - total)[segment]


def take(values, index):
    """``values[index]`` for a 1-D integer index (index_select: a plain gather)."""
    return values.index_select(0, index)


def count(segment, flag, n):
    """Rows with ``flag`` per segment, without boolean-mask indexing."""
    return segment_sum(flag.to(torch.int64), segment, n)


def rank_within(segment, n_segments):
    """0-based position of each row inside its (contiguous) segment."""
    counts = torch.bincount(segment, minlength=n_segments)
    starts = torch.cumsum(counts, 0) - counts
    return torch.arange(segment.numel(), device=segment.device) - take(starts, segment)


def den(x):
    """``x`` where it is positive, else 1 (the value is masked out there)."""
    return torch.where(x > 0, x, torch.ones_like(x))


def zero_unless(cond, value):
    """``value`` where ``cond``, else 0 of its dtype."""
    zero = torch.zeros((), dtype=value.dtype, device=value.device)
    return torch.where(cond, value, zero)


def power(base: float, exponent, dtype):
    """``base ** exponent`` for an integer tensor, by squaring (numba's way)."""
    e = exponent.clone()
    out = torch.ones(e.shape, dtype=torch.float64, device=e.device)
    a = torch.full_like(out, base)
    while bool((e > 0).any()):
        out = torch.where((e & 1) == 1, out * a, out)
        e = e >> 1
        a = a * a
    return out.to(dtype)


def weights(p: float, length: int, dtype, device):
    """``p**i`` for ranks ``i < length``, each the previous one times ``p``."""
    w = np.cumprod(np.concatenate([[1.0], np.full(max(length - 1, 0), p)]))
    return torch.as_tensor(w[:length], device=device).to(dtype)


_COMPILED = {}


def _engine_math(values, name):
    """``math.<name>`` of each value, compiled by numba as the engine's kernels
    are (built on first use), on a CPU copy."""
    if name not in _COMPILED:
        from numba import njit

        fn = getattr(math, name)

        @njit
        def apply(x):
            out = np.empty_like(x)
            for i in range(x.shape[0]):
                out[i] = fn(x[i])
            return out

        _COMPILED[name] = apply
    flat = values.detach().to("cpu", torch.float64).contiguous().view(-1).numpy()
    out = _COMPILED[name](flat)
    return torch.as_tensor(out, device=values.device).view(values.shape)


def log2(values):
    """``math.log2`` of each value, by the engine's compiled code, on a CPU copy
    (torch's own ``log2`` may differ from it in the last bit)."""
    return _engine_math(values, "log2")


def log(values):
    """``math.log`` of each value, as :func:`log2`."""
    return _engine_math(values, "log")


def log2_table(n, device):
    """``math.log2(2.0 + i)`` for ``i = 0..n``, as the engine computes them."""
    return log2(torch.arange(n + 1, dtype=torch.float64, device=device) + 2.0)


_LGAMMA = {}


def lgamma_table(n, dtype, device):
    """``lgamma(i)`` for ``i = 0..n`` (``inf`` at 0), from the compiled
    ``math.lgamma`` the engine calls (torch's ``lgamma`` differs from it in the
    last bit, which differences of log-binomials turn into a visible error)."""
    key = (n, dtype, device)
    if key not in _LGAMMA:
        values = _engine_math(torch.arange(n + 1, dtype=torch.float64), "lgamma")
        values[0] = math.inf
        _LGAMMA[key] = values.to(device=device, dtype=dtype)
    return _LGAMMA[key]


def column(grid, t):
    """Column ``t`` of a (queries, ranks) grid; zeros past its last column."""
    if t < grid.shape[1]:
        return grid[:, t]
    return torch.zeros(grid.shape[0], dtype=grid.dtype, device=grid.device)


def grids(r, k):
    """``(retrieved, ideal, kk)`` for trec_eval's gain curves, in float64: per
    query and rank, the retrieved row's ``max(label, 0)`` and the ideal
    order's label where it is positive (0 elsewhere), and how many ranks are
    read; the engine's loops then run one rank at a time over every query."""
    dev, f64 = r.row_pos.device, torch.float64
    lab = torch.zeros((r.n_queries, max(r.max_retrieved, 1)), dtype=f64, device=dev)
    lab[r.row_query, r.row_pos] = torch.clamp(r.row_label.to(f64), min=0.0)
    query, pos, values = r.ideal_rows()
    values = values.to(f64)
    ideal = torch.zeros((r.n_queries, max(r.max_rows, 1) + 1), dtype=f64, device=dev)
    ideal[query, pos] = torch.where(values > 0, values, torch.zeros_like(values))
    return lab, ideal, r.kk(k)
