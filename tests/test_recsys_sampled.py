"""Sampled metrics, raw and corrected: hand cases, brute force, simulation."""

from math import comb

import numpy as np
import pandas as pd
import pytest

from skndcg.evaluation import sampled_metric_estimates
from skndcg.evaluation._protocols._sampled import correction_table, metric_of_rank


def _pmf(j, K, N, m):
    """P(j of m drawn without replacement from N are among the K above)."""
    return comb(K, j) * comb(N - K, m - j) / comb(N, m)


def test_no_sampling_is_exact():
    # m = N: the sample is the catalogue, every estimate is the metric itself.
    for estimate in ("raw", "adjusted", "bv"):
        table = correction_table("ndcg", 3, 6, 6, estimate, 0.3)
        np.testing.assert_allclose(table, metric_of_rank("ndcg", 3, np.arange(1, 8)))


def test_adjusted_by_hand():
    # N = 3, m = 1: full positions K = 0..3 in two blocks {0, 1} and {2, 3}.
    np.testing.assert_allclose(
        correction_table("recall", 1, 3, 1, "adjusted"), [0.5, 0.0]
    )
    np.testing.assert_allclose(
        correction_table("mrr", 2, 3, 1, "adjusted"), [0.75, 0.0]
    )


def test_bv_limits_against_brute_force():
    N, m, k = 7, 3, 2
    b = [1.0 / np.log2(r + 1) if r <= k else 0.0 for r in range(1, N + 2)]
    A = np.array([[_pmf(j, K, N, m) for j in range(m + 1)] for K in range(N + 1)])
    # lambda = 1: the posterior mean of the metric given j, uniform prior on K.
    posterior = [
        sum(A[K, j] * b[K] for K in range(N + 1)) / sum(A[:, j]) for j in range(m + 1)
    ]
    np.testing.assert_allclose(correction_table("ndcg", k, N, m, "bv", 1.0), posterior)

    # Any lambda: the table minimises sum_K bias^2 + lambda var, so no step
    # away from it lowers that objective.
    def objective(x, lam):
        mean = A @ x
        var = A @ x**2 - mean**2
        return float(np.sum((mean - b) ** 2 + lam * var))

    rng = np.random.default_rng(0)
    for lam in (0.0, 0.1, 0.5):
        x = correction_table("ndcg", k, N, m, "bv", lam)
        best = objective(x, lam)
        for _ in range(50):
            assert objective(x + rng.normal(0, 1e-3, m + 1), lam) >= best - 1e-12


def test_report_by_hand():
    # Query 1: relevant items score 0.5 and 0.95 among negatives 0.9, 0.1, 0.2
    # -> sampled ranks 2 and 1; query 2: rank 3.
    y = [1, 0, 0, 0, 1, 1, 0, 0]
    s = [0.5, 0.9, 0.1, 0.2, 0.95, 0.1, 0.3, 0.4]
    q = [1, 1, 1, 1, 1, 2, 2, 2]
    report = sampled_metric_estimates(
        y, s, q, n_negatives={1: 3, 2: 2}, metrics=["mrr@3", "hit@1"]
    )
    raw = report[report["estimate"] == "raw"].set_index("qid")
    assert raw.loc[1, "mrr@3"] == pytest.approx((1 / 2 + 1) / 2)
    assert raw.loc[2, "mrr@3"] == pytest.approx(1 / 3)
    assert raw.loc[1, "hit@1"] == 0.5
    # No sampling at all (m = N): every estimate equals the raw one.
    for estimate in ("adjusted", "bv"):
        got = report[report["estimate"] == estimate].set_index("qid")
        pd.testing.assert_frame_equal(
            got.drop(columns="estimate"), raw.drop(columns="estimate")
        )


def test_ties_take_the_mean_over_random_orders():
    # Every score equal: the relevant item is equally likely at ranks 1..4.
    report = sampled_metric_estimates(
        [1, 0, 0, 0], [0.0] * 4, [1] * 4, n_negatives=3, metrics=["mrr@4", "hit@2"]
    )
    raw = report[report["estimate"] == "raw"].iloc[0]
    assert raw["mrr@4"] == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    assert raw["hit@2"] == pytest.approx(0.5)


def _simulate(seed, popularity, n_users=150, n_neg=400, m=25):
    """Users whose full rank is known; their candidates drawn as a study would."""
    rng = np.random.default_rng(seed)
    weight = rng.pareto(1.2, n_neg) + 0.05 if popularity else np.ones(n_neg)
    y, s, q, prob = [], [], [], []
    full = []
    for u in range(n_users):
        # Scores of all negatives, and of the held-out item: a model of some skill.
        neg_scores = rng.normal(size=n_neg) + (
            0.6 * np.log(weight) if popularity else 0
        )
        pos_score = rng.normal(1.5 + seed % 3 * 0.3)
        rank = 1 + int((neg_scores > pos_score).sum())
        full.append(rank)
        keys = rng.exponential(size=n_neg) / weight
        pick = np.argpartition(keys, m - 1)[:m]
        pi = np.minimum(m * weight / weight.sum(), 1.0)
        y += [1] + [0] * m
        s += [pos_score, *neg_scores[pick]]
        q += [u] * (m + 1)
        prob += [1.0, *pi[pick]]
    return np.array(y), np.array(s), np.array(q), np.array(prob), np.array(full)


@pytest.mark.parametrize("popularity", [False, True])
def test_corrected_closer_to_full_than_raw(popularity):
    metrics = ["ndcg@10", "recall@10", "mrr@10"]
    errors = {e: {m: [] for m in metrics} for e in ("raw", "adjusted", "bv")}
    for seed in range(12):
        y, s, q, prob, full_rank = _simulate(seed, popularity)
        report = sampled_metric_estimates(
            y,
            s,
            q,
            n_negatives=400,
            metrics=metrics,
            inclusion_probability=prob if popularity else None,
        )
        means = report.groupby("estimate")[metrics].mean()
        for metric in metrics:
            kind, k = metric.split("@")
            kind = {"recall": "recall"}.get(kind, kind)
            truth = metric_of_rank(kind, int(k), full_rank).mean()
            for e in errors:
                errors[e][metric].append(means.loc[e, metric] - truth)
    for metric in metrics:
        raw = np.mean(np.abs(errors["raw"][metric]))
        for e in ("adjusted", "bv"):
            assert np.mean(np.abs(errors[e][metric])) < raw, (e, metric, errors)


def test_errors():
    y, s, q = [1, 0, 0], [0.3, 0.2, 0.1], [1, 1, 1]
    with pytest.raises(ValueError, match="2 sampled negatives but n_negatives=1"):
        sampled_metric_estimates(y, s, q, n_negatives=1)
    with pytest.raises(ValueError, match="not supported for sampled estimates"):
        sampled_metric_estimates(y, s, q, n_negatives=10, metrics="p@5")
    with pytest.raises(ValueError, match=r"bv_lambda must be in \[0, 1\], got 2"):
        sampled_metric_estimates(y, s, q, n_negatives=10, bv_lambda=2)
    with pytest.raises(ValueError, match="query 5 has no sampled negative"):
        sampled_metric_estimates([1], [0.1], [5], n_negatives=10)
    with pytest.raises(ValueError, match="no entry for query 1"):
        sampled_metric_estimates(y, s, q, n_negatives={2: 10})
    with pytest.raises(ValueError, match="estimates must be among"):
        sampled_metric_estimates(y, s, q, n_negatives=10, estimates=["full"])
    with pytest.raises(ValueError, match="y_score must be finite"):
        sampled_metric_estimates(y, [np.nan, 0.2, 0.1], q, n_negatives=10)
