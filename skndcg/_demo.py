"""A short grouped NDCG walk-through on generated data."""

from __future__ import annotations

import time

import numpy as np


def run_demo(*, quick: bool = False) -> None:
    from .metrics import grouped_ranking_scores, ranking_report

    rng = np.random.default_rng(0)
    n_queries = 2_000 if quick else 20_000
    sizes = rng.integers(1, 60, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    rng.shuffle(qid)
    y_true = rng.choice(5, size=qid.size, p=[0.6, 0.18, 0.11, 0.07, 0.04])
    y_score = np.round(0.5 * y_true + rng.normal(size=qid.size), 2)
    print(f"{qid.size:,} rows in {n_queries:,} queries of 1..59 items, rows shuffled")
    t0 = time.perf_counter()
    scores = grouped_ranking_scores(
        y_true, y_score, qid, ["ndcg@5", "ndcg@10", "map@10", "mrr", "p@10"]
    )
    took = time.perf_counter() - t0
    for name, value in scores.items():
        print(f"  {name:8s} {value:.4f}")
    print(f"  (one call, {took:.3f} s including compilation on first use)")
    report = ranking_report(y_true, y_score, qid, metrics="ndcg@10")
    print(f"  skipped queries (nothing relevant): {(report['skipped'] != '').sum()}")
