"""Coverage of prediction-powered intervals over repeats, with known truth (slow).

Each repeat draws a fresh collection from the simulator (human labels are the
truth; the model's labels are biased and noisy by grade), has humans judge
5%, 10% or 20% of its queries, and checks whether the 95% PPI++ intervals
cover the population values (computed once on 20,000 queries) of NDCG@10, AP
and P@10 for one system and of the difference between two systems. Run it
alone with ``python tests/test_ppi_coverage.py`` to print the table.
"""

import warnings

import numpy as np
import pytest
from ppi_sim import simulate, truth

from skndcg.evaluation import compare_scores, prediction_powered_report

METRICS = ["ndcg@10", "map", "p@10"]
SHARES = (0.05, 0.1, 0.2)
N_QUERIES = 800


def coverage(n_repeats, seed=2024):
    true = truth(METRICS)
    rng = np.random.default_rng(seed)
    hits = {(m, what): 0 for m in METRICS for what in ("a", "a-b")}
    for r in range(n_repeats):
        s = simulate(N_QUERIES, rng, judged_share=SHARES[r % len(SHARES)])
        rep = prediction_powered_report(
            s["y_true"], s["y_model"], s["score_a"], s["qid"], metrics=METRICS
        )
        for _, row in rep.iterrows():
            hits[row["metric"], "a"] += (
                row["low"] <= true[row["metric"], "a"] <= row["high"]
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an order flip is not the point here
            cmp = compare_scores(
                s["y_true"], {"a": s["score_a"], "b": s["score_b"]}, s["qid"],
                y_model=s["y_model"], metrics=METRICS, baseline="b", test="t",
                correction=None,
            )  # fmt: skip
        for _, row in cmp.to_frame(pairs=True).iterrows():
            t = true[row["metric"], "a-b"]
            hits[row["metric"], "a-b"] += row["diff_low"] <= t <= row["diff_high"]
    return {key: v / n_repeats for key, v in hits.items()}


@pytest.mark.slow
def test_coverage_of_nominal_95_percent_intervals():
    cov = coverage(600)
    for key, value in cov.items():
        assert 0.93 <= value <= 0.97, (key, value)


if __name__ == "__main__":
    for (metric, what), value in coverage(600).items():
        print(f"{metric:8s} {what:4s} {value:.3f}")
