"""Paired tests on per-unit difference totals, and multiple-testing corrections.

Each test sees, per comparison (a column), the per-unit (query or cluster) sums
``D[u] = sum(w * (a - b))`` and ``W[u] = sum(w)``; without weights and clusters
every test reduces to its textbook form (checked against scipy in the tests).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from ._resampling import check_resamples, sign_flip_means
from ._small_sample import SmallSampleWarning, outside_level

TESTS = ("paired_bootstrap", "randomization", "t", "wilcoxon")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh")


def bootstrap_p_value(dist, observed):
    """Twice the share ``(far + 1) / (B + 1)`` of ``B`` resampled differences on
    the far side of zero, the observed one counted in (so never below ``1 / (B +
    1)``), capped at 1."""
    out = np.full(observed.shape, np.nan)
    for j, obs in enumerate(observed):
        col = dist[:, j]
        col = col[~np.isnan(col)]
        if col.size == 0 or np.isnan(obs):
            continue
        if obs == 0:
            out[j] = 1.0
            continue
        far = np.sum(col <= 0) if obs > 0 else np.sum(col >= 0)
        out[j] = min(1.0, 2.0 * (far + 1) / (col.size + 1))
    return out


def t_test(D, W):
    """Paired t-test of the weighted mean difference ``d``, cluster-robust: the
    standard error is ``sqrt(G / (G - 1) * sum((D - d * W) ** 2)) / sum(W)`` with
    ``G - 1`` degrees of freedom for ``G`` units."""
    # Units without weight for a comparison (every query NaN there) do not count.
    n_units = (W > 0).sum(0)
    total = W.sum(0)
    mean = D.sum(0) / total
    resid = D - W * mean
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(n_units / (n_units - 1) * (resid**2).sum(0)) / total
        t = mean / se
        p = 2 * stats.t.sf(np.abs(t), n_units - 1)
    p = np.where(se == 0, np.where(mean == 0, 1.0, 0.0), p)
    return np.where(n_units > 1, p, np.nan)


def wilcoxon_test(D, W):
    """Wilcoxon signed-rank test of the per-unit mean differences ``D / W``; zero
    differences are dropped (scipy's default), all zero gives p = 1."""
    out = np.ones(D.shape[1])
    for j in range(D.shape[1]):
        has = W[:, j] > 0
        d = D[has, j] / W[has, j]
        if np.any(d != 0):
            out[j] = stats.wilcoxon(d).pvalue
    return out


def randomization_test(D, W, n_resamples, rng):
    """Two-sided sign-flip test of the weighted mean difference: exact (every
    sign vector) when ``2**n_units <= n_resamples``, else ``n_resamples`` random
    ones plus the observed one, as scipy's ``permutation_test`` counts."""
    total = W.sum(0)
    observed = D.sum(0) / total
    null, exact = sign_flip_means(D, total, n_resamples, rng)
    adjust = 0 if exact else 1
    n_null = null.shape[0]
    gamma = np.abs(1e-14 * observed)
    less = ((null <= observed + gamma).sum(0) + adjust) / (n_null + adjust)
    greater = ((null >= observed - gamma).sum(0) + adjust) / (n_null + adjust)
    return np.minimum(1.0, 2.0 * np.minimum(less, greater))


def adjust_p_values(p, method):
    """Adjusted p-values over all non-NaN entries of ``p`` (``fdr_bh``: the
    Benjamini-Hochberg step-up; ``None``: unchanged)."""
    p = np.asarray(p, dtype=float)
    out = p.copy()
    if method is None:
        return out
    ok = ~np.isnan(p)
    vals = p[ok]
    m = vals.size
    if m == 0:
        return out
    order = np.argsort(vals, kind="mergesort")
    ranked = vals[order]
    if method == "bonferroni":
        adj = np.minimum(1.0, ranked * m)
    elif method == "holm":
        adj = np.minimum(1.0, np.maximum.accumulate(ranked * (m - np.arange(m))))
    else:  # fdr_bh
        scaled = ranked * m / np.arange(1, m + 1)
        adj = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out[np.flatnonzero(ok)[order]] = adj
    return out


def corrected_confidence(p_adjusted, method, confidence, n_resamples=None):
    """Confidence level of the intervals that go with the corrected p-values:
    ``1 - alpha / m`` (Bonferroni, also for Holm), ``1 - R * alpha / m`` with
    ``R >= 1`` rejections for ``fdr_bh`` (Benjamini & Yekutieli, 2005). With
    ``n_resamples``, warn when too few resamples lie beyond the bounds at that
    level (the intervals are still reported)."""
    alpha = 1.0 - confidence
    m = int(np.sum(~np.isnan(p_adjusted)))
    if method is None or m == 0:
        return confidence
    kind, rejected = "Bonferroni", 1
    if method == "fdr_bh":
        rejected = int(np.sum(p_adjusted <= alpha))
        kind = f"false-coverage-rate ({rejected} significant)"
    level = 1.0 - max(rejected, 1) * alpha / m
    if n_resamples is not None:
        try:
            check_resamples(n_resamples, level, level=(
                f"the {kind}-corrected confidence {level:.6g} of {m} comparisons "
                f"(correction={method!r} raised confidence={confidence:g})"
            ))  # fmt: skip
        except ValueError as exc:
            warnings.warn(
                f"{exc} The corrected intervals are reported with the most "
                "extreme resamples as bounds, so they are too narrow; the "
                "corrected p-values do not depend on it.",
                SmallSampleWarning,
                stacklevel=outside_level(),
            )
    return level
