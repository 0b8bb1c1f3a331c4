"""Plackett-Luce rankings: sampling, and each item's chance of being shown.

A Plackett-Luce ranking over items with weights ``lam_j`` is the order in which
independent exponential clocks ``T_j ~ Exp(lam_j)`` ring. Item ``i`` is among
the first ``m`` when fewer than ``m`` other clocks ring before ``T_i``:

    P(i shown) = int_0^inf lam_i exp(-lam_i t) P(N_i(t) < m) dt,

where ``N_i(t)`` counts the other clocks rung by ``t``, a sum of independent
Bernoulli(1 - exp(-lam_j t)) variables. It is computed as one minus the same
integral of ``P(N_i(t) >= m)``, whose integrand vanishes like ``t^(m + 1)`` near
zero rather than like ``t``, so the nodes start near the time of the ``m``-th
ring instead of far before the first. The integral is taken in ``z = log t``
by the trapezoidal rule, which converges geometrically for this smooth,
rapidly decaying integrand; ``P(N_i(t) < m)`` comes from prefix and suffix
distributions of the counts, so every item costs ``O(m)`` per node.
"""

from __future__ import annotations

import math

import numpy as np

from .._native._jit import jit
from .._native._threads import num_threads, run_chunks

_STEP = 0.35  # trapezoid step in log time: error below 1e-10 (see the tests)
_TAIL = 1e-13  # the part of P(i not shown) left out below the first node
_SURE = 42.0  # lam * t beyond which a clock counts as rung (exp(-42) < 1e-18)


@jit(fastmath=True)
def _inclusion(t_, n_chunks, lam, m, step, out):  # pragma: no cover - compiled
    n_q, n = lam.shape
    pre = np.zeros((n + 1, m))
    cdf = np.zeros((n + 1, m))
    q = np.zeros(n)
    e = np.zeros(n)
    us = np.zeros(n, np.int64)
    for g in range(n_q * t_ // n_chunks, n_q * (t_ + 1) // n_chunks):
        lo = lam[g, 0]
        total = 0.0
        for j in range(n):
            lo = min(lo, lam[g, j])
            total += lam[g, j]
        # the integrand of P(i not shown) is under x P(N_i(t) >= m), at most
        # (t * total)^(m + 1) / m!: below t_lo its integral is under _TAIL;
        # above t = 30 / lo under exp(-30)
        z_lo = (np.log(_TAIL) + math.lgamma(m + 1.0)) / (m + 1.0) - np.log(total)
        z_hi = np.log(30.0 / lo)
        n_nodes = int(np.ceil((z_hi - z_lo) / step)) + 1
        h = (z_hi - z_lo) / (n_nodes - 1)
        out[g, :] = 0.0
        for node in range(n_nodes):
            t = np.exp(z_lo + node * h)
            wt = h if 0 < node < n_nodes - 1 else 0.5 * h
            n_sure = 0  # clocks all but certain to have rung by t
            for j in range(n):
                x = lam[g, j] * t
                e[j] = np.exp(-x)
                q[j] = 1.0 - e[j]
                if x > _SURE:
                    n_sure += 1
            if n_sure > m:
                # every item has m others rung before t: P(N_i(t) >= m) = 1
                for i in range(n):
                    out[g, i] += wt * lam[g, i] * t * e[i]
                continue
            # the rung clocks only shift the count: the recursions run over
            # the others (us), counting up to mm = m - n_sure
            nu = 0
            for j in range(n):
                if lam[g, j] * t <= _SURE:
                    us[nu] = j
                    nu += 1
            mm = m - n_sure
            # pre[j]: distribution (truncated below mm) of the count among us[:j]
            pre[0, :mm] = 0.0
            pre[0, 0] = 1.0
            for r in range(nu):
                ej = e[us[r]]
                qj = q[us[r]]
                pre[r + 1, 0] = pre[r, 0] * ej
                top = min(mm, r + 2)  # r + 1 clocks count at most r + 1
                for c in range(1, top):
                    pre[r + 1, c] = pre[r, c] * ej + pre[r, c - 1] * qj
                if top < mm:
                    pre[r + 1, top] = 0.0
            # cdf[j, c]: P(count among us[j:] is at most c); the cumulative
            # follows the same recursion as the distribution
            cdf[nu, :mm] = 1.0
            for r in range(nu - 1, -1, -1):
                ej = e[us[r]]
                qj = q[us[r]]
                cdf[r, 0] = cdf[r + 1, 0] * ej
                top = min(mm, nu - r)  # nu - r clocks count at most nu - r
                for c in range(1, top):
                    cdf[r, c] = cdf[r + 1, c] * ej + cdf[r + 1, c - 1] * qj
                for c in range(top, mm):
                    cdf[r, c] = 1.0
            for r in range(nu):
                i = us[r]
                below = 0.0
                for a in range(mm):
                    below += pre[r, a] * cdf[r + 1, mm - 1 - a]
                out[g, i] += wt * lam[g, i] * t * e[i] * (1.0 - below)
        out[g, :] = 1.0 - out[g, :]


def inclusion_probability(log_weight, m):
    """P(item shown in the top ``m``) under Plackett-Luce weights
    ``exp(log_weight)``, of shape ``(n_queries, n_items)``."""
    lw = np.asarray(log_weight, dtype=np.float64)
    n = lw.shape[1]
    if m >= n:
        return np.ones_like(lw)
    lam = np.maximum(np.exp(lw - lw.max(axis=1, keepdims=True)), 1e-300)
    out = np.empty_like(lam)
    n_chunks = min(num_threads(), lam.shape[0])
    run_chunks(
        _inclusion, n_chunks, n_chunks, np.ascontiguousarray(lam), int(m), _STEP, out
    )
    return np.clip(out, 0.0, 1.0)


def sample_rankings(log_weight, m, rng):
    """Item indices of the top ``m`` of one Plackett-Luce ranking per query
    (Gumbel-max: sorting ``log_weight + Gumbel noise``)."""
    lw = np.asarray(log_weight, dtype=np.float64)
    keys = lw + rng.gumbel(size=lw.shape)
    return np.argsort(-keys, axis=1, kind="stable")[:, :m]
