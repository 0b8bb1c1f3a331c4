"""Prediction-powered means of per-query values: the estimator and its interval.

Every estimate is a ratio of population means, ``E[a] / E[d]``: for a metric,
``a`` is the per-query value (0 where the query is skipped) and ``d`` is 1
where the query counts; for a difference between two systems, ``a`` is the
difference; for a relative lift, ``a`` and ``d`` are the two systems' values.
Each is known under the model's labels on every query (``a_f``, ``d_f``) and
under the humans' on the judged queries (``a_h``, ``d_h``).

With ``N`` queries, the judged ones drawn with inclusion probabilities ``pi``
(``n / N`` each for a uniform sample), ``M_f(x) = sum(x) / N`` and the
Horvitz-Thompson ``M_h(x) = sum_judged(x / pi) / N``, the estimate is

    theta(lam) = (lam * M_f(a_f) + M_h(a_h - lam * a_f))
               / (lam * M_f(d_f) + M_h(d_h - lam * d_f)),

ratio-consistent for the human-label value whatever the model's labels are.
``lam = 0`` is the human-only estimate, ``lam = 1`` PPI, and PPI++'s
variance-optimal ``lam`` the regression slope of ``z = a_h - theta * d_h`` on
``g = a_f - theta * d_f`` over the judged queries. With ``e = z - lam * g``,
the variance of the estimate of the population (superpopulation) mean is

    var = s2(z) / N + sum_judged((1 - pi) / pi**2 * (e - mean(e))**2) / N**2

divided by the squared denominator; with a uniform sample the second term is
``(1 - n / N) * s2(e) / n``, and ``lam = 0`` gives the human-only ``s2(z) / n``,
which the optimal ``lam`` never exceeds.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._stats._resampling import multinomial_counts, percentile_interval

METHODS = ("ppi++", "ppi", "human")


def _wmean(u, x):
    tot = u.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (u * x).sum(1) / tot


def _theta(lam, W, ht, a_h, d_h, a_f, d_f):
    n_all = W.sum(1)
    c = W * ht
    num = lam * (W @ a_f) + c @ a_h - lam * (c @ a_f)
    den = lam * (W @ d_f) + c @ d_h - lam * (c @ d_f)
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den, den / n_all


def _fit(method, W, ht, v, a_h, d_h, a_f, d_f):
    """Estimates, their ``lam`` and their denominators (``M(d)``) for each row
    of resampling counts ``W``."""
    lam = np.full(W.shape[0], 1.0 if method == "ppi" else 0.0)
    theta, den = _theta(lam, W, ht, a_h, d_h, a_f, d_f)
    if method == "ppi++":
        u = W * v
        # Two steps of the fixed point (theta, lam) suffice: lam depends on
        # theta only through the centring of a ratio's linearisation.
        for _ in range(2):
            t = np.nan_to_num(theta)
            z = a_h[None] - t[:, None] * d_h[None]
            g = a_f[None] - t[:, None] * d_f[None]
            zc = z - _wmean(u, z)[:, None]
            gc = g - _wmean(u, g)[:, None]
            var = (u * gc * gc).sum(1)
            with np.errstate(invalid="ignore", divide="ignore"):
                lam = (u * zc * gc).sum(1) / var
            lam = np.where(var > 0, lam, 0.0)
            theta, den = _theta(lam, W, ht, a_h, d_h, a_f, d_f)
    return theta, lam, den


def estimate(
    a_h, d_h, a_f, d_f, judged, pi, *, method, confidence, bootstrap, rng=None
):
    """The estimate of ``E[a] / E[d]`` by ``method`` with its interval: a dict of
    ``estimate``, ``se``, ``low``, ``high``, ``lam``, ``sd_human`` and
    ``sd_residual`` (per-query standard deviations of ``z`` and ``e``, over the
    denominator) and, with ``bootstrap`` (None or a number of resamples), the
    resampled ``dist``."""
    N = a_f.size
    n = int(judged.sum())
    ht = np.where(judged, 1.0 / pi, 0.0)
    v = np.where(judged, (1.0 - pi) / pi**2, 0.0)
    a_h = np.where(judged, a_h, 0.0)
    d_h = np.where(judged, d_h, 0.0)
    theta, lam, den = _fit(method, np.ones((1, N)), ht, v, a_h, d_h, a_f, d_f)
    theta, lam = float(theta[0]), float(lam[0])
    # The variance of the module's docstring, over the judged queries.
    z = (a_h - theta * d_h)[judged]
    e = z - lam * (a_f - theta * d_f)[judged]
    w, v_j = ht[judged], v[judged]
    z_bar = np.sum(w * z) / np.sum(w)
    s2_z = np.sum(w * (z - z_bar) ** 2) / np.sum(w) * n / (n - 1)
    e_bar = np.sum(v_j * e) / np.sum(v_j) if np.sum(v_j) > 0 else 0.0
    var = s2_z / N + np.sum(v_j * (e - e_bar) ** 2) / N**2 * n / (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        se, sd_h = np.sqrt(var) / abs(den[0]), np.sqrt(s2_z) / abs(den[0])
        sd_e = np.std(e, ddof=1) / abs(den[0])
    out = {"estimate": theta, "se": float(se), "lam": lam, "sd_human": float(sd_h)}
    out["sd_residual"] = float(sd_e)
    if bootstrap is None:
        q = stats.t.ppf(0.5 + confidence / 2, max(n - 1, 1))
        out["low"], out["high"] = theta - q * se, theta + q * se
    else:
        # Bootstrap counts resampling the judged and the other queries apart.
        W = np.zeros((bootstrap, judged.size))
        for part in (judged, ~judged):
            idx = np.flatnonzero(part)
            if idx.size:
                W[:, idx] = multinomial_counts(rng, bootstrap, idx.size)
        dist, _, _ = _fit(method, W, ht, v, a_h, d_h, a_f, d_f)
        low, high = percentile_interval(dist[:, None], confidence)
        out["low"], out["high"] = float(low[0]), float(high[0])
        out["dist"] = dist
    return out


def model_only(a_f, d_f, *, confidence, bootstrap, rng=None):
    """The model-label estimate ``M_f(a_f) / M_f(d_f)`` with its interval."""
    N = a_f.size
    den = d_f.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = float(a_f.sum() / d_f.sum())
        se = float(np.std(a_f - theta * d_f, ddof=1) / np.sqrt(N) / den)
    if bootstrap is None:
        q = stats.t.ppf(0.5 + confidence / 2, N - 1)
        return theta, theta - q * se, theta + q * se
    W = multinomial_counts(rng, bootstrap, N)
    with np.errstate(invalid="ignore", divide="ignore"):
        dist = (W @ a_f) / (W @ d_f)
    low, high = percentile_interval(dist[:, None], confidence)
    return theta, float(low[0]), float(high[0])
