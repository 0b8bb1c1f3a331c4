"""Hold-out intervals over queries and over users, and paired differences.

A query is one user in one month, so the queries of one user are not
independent draws: resampling whole users (a cluster bootstrap) gives the
interval for "other users like these", resampling queries the interval for
"other months of these users".
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _resampled_means(values, cluster, n_resamples, rng):
    """Bootstrap means of the columns of ``values``, resampling clusters.

    Each resample draws as many clusters as there are, with replacement, and
    takes the mean over all their queries. Every column sees the same
    resamples, so differences of columns are paired.
    """
    _, code = np.unique(cluster, return_inverse=True)
    n_clusters = int(code.max()) + 1
    sums = np.zeros((n_clusters, values.shape[1]))
    np.add.at(sums, code, values)
    sizes = np.bincount(code, minlength=n_clusters).astype(np.float64)
    counts = rng.multinomial(
        n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=n_resamples
    ).astype(np.float64)
    return (counts @ sums) / (counts @ sizes)[:, None]


def _p_value(draws):
    """Two-sided bootstrap p-value for "the mean difference is zero"."""
    below = np.mean(draws <= 0, axis=0)
    above = np.mean(draws >= 0, axis=0)
    return np.minimum(1.0, 2.0 * np.minimum(below, above))


def holm(p_values):
    """Holm's step-down adjustment of a set of p-values."""
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    m = p.size
    steps = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, steps)
    return out


def holdout_intervals(
    reports, users, *, metrics, ranker, n_resamples, confidence, random_state
):
    """Every hold-out number with a query and a user interval.

    ``reports`` maps a model name to its :func:`~skndcg.metrics.ranking_report`
    on the hold-out (the same queries in the same order), ``users`` gives the
    user of every query. Returns one row per (model, metric), and one row per
    (``ranker - baseline``, metric) for the paired differences, whose
    p-values (from the user resampling) are Holm-adjusted over every
    comparison made.
    """
    names = list(reports)
    columns = [(n, m) for n in names for m in metrics]
    values = np.column_stack([reports[n][m].to_numpy(np.float64) for n, m in columns])
    others = [n for n in names if n != ranker]
    diff_cols = [(n, m) for n in others for m in metrics]
    diffs = np.column_stack(
        [
            values[:, columns.index((ranker, m))] - values[:, columns.index((n, m))]
            for n, m in diff_cols
        ]
    )
    both = np.hstack([values, diffs])
    rng = np.random.default_rng(random_state)
    alpha = (1.0 - confidence) / 2.0
    queries = np.arange(both.shape[0])
    by_query = _resampled_means(both, queries, n_resamples, rng)
    by_user = _resampled_means(both, np.asarray(users), n_resamples, rng)
    q_low, q_high = np.quantile(by_query, [alpha, 1.0 - alpha], axis=0)
    u_low, u_high = np.quantile(by_user, [alpha, 1.0 - alpha], axis=0)
    mean = both.mean(axis=0)
    n_val = len(columns)
    p = _p_value(by_user[:, n_val:])
    rows = [
        (n, m, mean[j], q_low[j], q_high[j], u_low[j], u_high[j], np.nan, np.nan)
        for j, (n, m) in enumerate(columns)
    ]
    p_adj = holm(p)
    for i, (n, m) in enumerate(diff_cols):
        j = n_val + i
        rows.append(
            (
                f"{ranker} - {n}",
                m,
                mean[j],
                q_low[j],
                q_high[j],
                u_low[j],
                u_high[j],
                p[i],
                p_adj[i],
            )
        )
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "metric",
            "value",
            "low",
            "high",
            "user_low",
            "user_high",
            "p_value",
            "p_adjusted",
        ],
    )
