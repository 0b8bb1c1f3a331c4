"""The numbers behind :func:`compare`: means, differences, intervals, p-values."""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._stats._resampling import (
    as_generator,
    bca_interval,
    bootstrap_ratios,
    jackknife_ratios,
    percentile_interval,
    unit_sums,
)
from .._stats._significance import (
    adjust_p_values,
    bootstrap_p_value,
    corrected_confidence,
    randomization_test,
    t_test,
    wilcoxon_test,
)
from ._inputs import Scores


def pairs_of(models, baseline):
    """Index pairs ``(a, b)``: each model against the baseline, or all pairs."""
    n = len(models)
    if baseline is not None:
        b = models.index(baseline)
        return [(a, b) for a in range(n) if a != b]
    return [(a, b) for a in range(n) for b in range(a + 1, n)]


def interval_of(dist, estimate, jack, confidence, method, n_units=None):
    """Bootstrap interval of every column; ``"expanded"`` (Hesterberg, 2015): the
    percentile interval at the level whose normal quantile is ``sqrt(n / (n - 1))
    * t[n - 1]``, ``n`` the units (``n_units``, one per column)."""
    if method == "bca":
        return bca_interval(dist, estimate, jack, confidence)
    if method == "expanded":
        n = np.asarray(n_units, dtype=float)
        alpha = 1.0 - np.asarray(confidence, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.sqrt(n / (n - 1)) * stats.t.ppf(1 - alpha / 2, n - 1)
        confidence = np.where(n > 1, 1.0 - 2.0 * stats.norm.sf(z), np.nan)
    return percentile_interval(dist, confidence)


def run(
    s: Scores,
    *,
    baseline,
    test,
    correction,
    confidence,
    n_resamples,
    interval,
    random_state,
    min_queries=0,
):
    """All numbers of a comparison, as a dict of arrays; a metric counted on fewer
    than ``min_queries`` units gets no bootstrap interval (NaN) and, under the
    bootstrap test, the randomization test's p-value (see :func:`warn_small`)."""
    M, Q, K = s.values.shape
    rng = as_generator(random_state)
    wk = s.weights[:, None] * s.keep  # (Q, K)
    wv = np.where(s.keep[None], s.values, 0.0) * wk[None]  # (M, Q, K)
    n_units = Q if s.clusters is None else int(s.clusters.max()) + 1
    num = unit_sums(wv.transpose(1, 0, 2), s.clusters, n_units)  # (G, M, K)
    den = unit_sums(wk, s.clusters, n_units)  # (G, K)
    G = num.shape[0]
    means = num.sum(0) / den.sum(0)  # (M, K)

    den_index = np.tile(np.arange(K), M)
    n_units_k = (den > 0).sum(0)  # (K,)
    dist = bootstrap_ratios(num.reshape(G, M * K), den, n_resamples, rng, den_index)
    dist = dist.reshape(n_resamples, M, K)
    jack = jack_mk = None
    if interval == "bca":
        jack_mk = jackknife_ratios(num.reshape(G, M * K), den[:, den_index])
        jack = jack_mk.reshape(G, M, K)
    dist_mk, n_units_mk = dist.reshape(n_resamples, M * K), np.tile(n_units_k, M)
    low, high = interval_of(
        dist_mk, means.reshape(-1), jack_mk, confidence, interval, n_units_mk
    )

    pairs = pairs_of(s.models, baseline)
    a_idx = np.array([a for a, _ in pairs], dtype=np.intp)
    b_idx = np.array([b for _, b in pairs], dtype=np.intp)
    P = len(pairs)
    diff = means[a_idx] - means[b_idx]  # (P, K)
    with np.errstate(invalid="ignore", divide="ignore"):
        lift = diff / means[b_idx]
        diff_dist = (dist[:, a_idx] - dist[:, b_idx]).reshape(n_resamples, P * K)
        lift_dist = diff_dist / dist[:, b_idx].reshape(n_resamples, P * K)
        diff_jack = lift_jack = None
        if jack is not None:
            diff_jack = (jack[:, a_idx] - jack[:, b_idx]).reshape(G, P * K)
            lift_jack = diff_jack / jack[:, b_idx].reshape(G, P * K)
    n_units_pk = np.tile(n_units_k, P)
    d_low, d_high = interval_of(
        diff_dist, diff.reshape(-1), diff_jack, confidence, interval, n_units_pk
    )
    l_low, l_high = interval_of(
        lift_dist, lift.reshape(-1), lift_jack, confidence, interval, n_units_pk
    )

    D = (num[:, a_idx] - num[:, b_idx]).reshape(G, P * K)
    W = np.broadcast_to(den[:, None, :], (G, P, K)).reshape(G, P * K)
    if test == "paired_bootstrap":
        p = bootstrap_p_value(diff_dist, diff.reshape(-1))
    elif test == "t":
        p = t_test(D, W)
    elif test == "wilcoxon":
        p = wilcoxon_test(D, W)
    else:
        p = randomization_test(D, W, n_resamples, rng)
    small = n_units_k < min_queries
    small_pk = np.tile(small, P)
    if small.any() and test == "paired_bootstrap":
        rand = randomization_test(D[:, small_pk], W[:, small_pk], n_resamples, rng)
        p = p.copy()
        p[small_pk] = rand
    p_adj = adjust_p_values(p, correction)
    for arr in (low, high):
        arr[np.tile(small, M)] = np.nan
    for arr in (d_low, d_high, l_low, l_high):
        arr[small_pk] = np.nan
    dv = s.values[a_idx] - s.values[b_idx]  # (P, Q, K)
    kept = s.keep[None]
    result = {
        "pairs": pairs,
        "means": means,
        "low": low.reshape(M, K),
        "high": high.reshape(M, K),
        "n_queries": s.keep.sum(0),
        "n_units": n_units_k,
        "small": small,
        "diff_dist": diff_dist,
        "diff_jack": diff_jack,
        "diff": diff,
        "diff_low": d_low.reshape(P, K),
        "diff_high": d_high.reshape(P, K),
        "lift": lift,
        "lift_low": l_low.reshape(P, K),
        "lift_high": l_high.reshape(P, K),
        "p_value": p.reshape(P, K),
        "wins": ((dv > 0) & kept).sum(1),
        "ties": ((dv == 0) & kept).sum(1),
        "losses": ((dv < 0) & kept).sum(1),
    }
    conf_adj = corrected_confidence(p_adj, correction, confidence, n_resamples)
    correct(result, p_adj.reshape(P, K), conf_adj, interval)
    return result


def correct(r, p_adjusted, conf_adj, interval):
    """Store in the numbers ``r`` of :func:`run` the corrected p-values, the
    corrected level and the intervals of the differences at that level (NaN
    where a metric has too few units)."""
    r["p_adjusted"] = p_adjusted
    r["confidence_adjusted"] = conf_adj
    P = len(r["pairs"])
    diff, n_units = r["diff"].reshape(-1), np.tile(r["n_units"], P)
    low, high = interval_of(
        r["diff_dist"], diff, r["diff_jack"], conf_adj, interval, n_units
    )
    small_pk = np.tile(r["small"], P)
    low[small_pk] = high[small_pk] = np.nan
    r["diff_low_adjusted"] = low.reshape(r["diff"].shape)
    r["diff_high_adjusted"] = high.reshape(r["diff"].shape)
