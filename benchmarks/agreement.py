"""Agreement table: each convention preset against the peer library it reproduces.

Runs the same seeded random cases as the agreement tests (interleaved queries of
1-10 rows, exact ties, float32-only ties, empty and one-row queries, k in
{1, 2, 3, 5, 10, 20, None}) and prints, per peer and metric, the largest absolute
difference between the peer's own number and skndcg's preset.

    python benchmarks/agreement.py            # 100 cases per row (a few minutes)
    python benchmarks/agreement.py --cases 20
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from cases import random_case
from peers import (
    lightgbm_metric,
    ranx_metric,
    sklearn_ndcg,
    torchmetrics_metric,
    trec_eval_metric,
    xgboost_metric,
)

from skndcg.metrics import (
    grouped_map_score,
    grouped_mrr_score,
    grouped_ndcg_score,
    grouped_precision_score,
)


def _at(k):
    return "" if k is None else f"@{k}"


def _no_negative_only_queries(y, q):
    for key in np.unique(q):
        rows = np.flatnonzero(q == key)
        if (y[rows] < 0).all():
            y[rows[0]] = 0
    return y


ROWS = [
    # (peer, metric as the peer names it, case options, peer call, skndcg call)
    (
        "scikit-learn",
        "ndcg_score",
        {},
        lambda y, s, q, k: sklearn_ndcg(y, s, q, k),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="sklearn"),
    ),
    (
        "LightGBM",
        "ndcg (label_gain 2^i-1)",
        {},
        lambda y, s, q, k: lightgbm_metric(y, s, q, "ndcg", k),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="lightgbm"),
    ),
    (
        "LightGBM",
        "ndcg (linear label_gain)",
        {},
        lambda y, s, q, k: lightgbm_metric(y, s, q, "ndcg", k, linear=True),
        lambda y, s, q, k: grouped_ndcg_score(
            y, s, q, k=k, convention="lightgbm", gain="linear"
        ),
    ),
    (
        "LightGBM",
        "map",
        {"labels": (0, 2)},
        lambda y, s, q, k: lightgbm_metric(y, s, q, "map", k),
        lambda y, s, q, k: grouped_map_score(y, s, q, k=k, convention="lightgbm"),
    ),
    (
        "XGBoost",
        "ndcg@k",
        {},
        lambda y, s, q, k: xgboost_metric(y, s, q, "ndcg" + _at(k)),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="xgboost"),
    ),
    (
        "XGBoost",
        "ndcg@k-",
        {},
        lambda y, s, q, k: xgboost_metric(y, s, q, "ndcg" + _at(k) + "-"),
        lambda y, s, q, k: grouped_ndcg_score(
            y, s, q, k=k, convention="xgboost", empty="zero"
        ),
    ),
    (
        "pytrec_eval",
        "ndcg_cut",
        {"labels": (-1, 4)},
        lambda y, s, q, k: trec_eval_metric(
            y, s, q, "ndcg" if k is None else f"ndcg_cut_{k}"
        ),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="trec_eval"),
    ),
    (
        "pytrec_eval",
        "map_cut / P",
        {"labels": (0, 3), "need_k": True},
        lambda y, s, q, k: (
            trec_eval_metric(y, s, q, f"map_cut_{k}")
            + trec_eval_metric(y, s, q, f"P_{k}")
        ),
        lambda y, s, q, k: (
            grouped_map_score(y, s, q, k=k, convention="trec_eval")
            + grouped_precision_score(y, s, q, k=k, convention="trec_eval")
        ),
    ),
    (
        "ranx",
        "ndcg",
        {"max_size": 30},
        lambda y, s, q, k: ranx_metric(y, s, q, "ndcg" + _at(k)),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="ranx"),
    ),
    (
        "ranx",
        "ndcg_burges",
        {"max_size": 30},
        lambda y, s, q, k: ranx_metric(y, s, q, "ndcg_burges" + _at(k)),
        lambda y, s, q, k: grouped_ndcg_score(
            y, s, q, k=k, convention="ranx", gain="exponential"
        ),
    ),
    (
        "ranx",
        "mrr",
        {"max_size": 20, "labels": (0, 3)},
        lambda y, s, q, k: ranx_metric(y, s, q, "mrr" + _at(k)),
        lambda y, s, q, k: grouped_mrr_score(y, s, q, k=k, convention="ranx"),
    ),
    (
        "torchmetrics",
        "RetrievalNormalizedDCG",
        {},
        lambda y, s, q, k: torchmetrics_metric(y, s, q, "ndcg", k),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="torchmetrics"),
    ),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100)
    args = parser.parse_args(argv)
    print("| peer | metric | cases | max abs difference |")
    print("|---|---|---|---|")
    for peer, metric, opts, theirs, ours in ROWS:
        opts = dict(opts)
        need_k = opts.pop("need_k", False)
        worst = 0.0
        for seed in range(args.cases):
            y, s, q, k = random_case(seed, **opts)
            if need_k and k is None:
                k = 5
            y = _no_negative_only_queries(y, q)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                worst = max(worst, abs(theirs(y, s, q, k) - ours(y, s, q, k)))
        print(f"| {peer} | {metric} | {args.cases} | {worst:.1e} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
