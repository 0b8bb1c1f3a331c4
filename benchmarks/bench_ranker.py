"""Overhead of QueryRanker over a hand-sorted, direct LGBMRanker fit.

Two comparisons on synthetic data (default 1,000,000 rows in 20,000 queries,
five float features, graded labels 0-4), same LightGBM parameters everywhere:

1. rows already grouped by query: ``QueryRanker(LGBMRanker()).fit(X_with_qid, y)``
   against ``LGBMRanker().fit(X, y, group=sizes)``; this isolates the wrapper's
   own work (reading and dropping the qid column, factorizing, checks).
2. rows shuffled: the wrapper against a user who sorts by hand (factorize,
   stable argsort, reindex, group sizes) and then fits directly. The sort is
   timed as part of the direct fit.

Each timing is the median of ``--repeats`` runs, the direct and wrapped fits
alternating so that load on a shared machine affects both alike. The script
prints both ratios (target: at most 1.1), the ratio of the fastest runs (less
sensitive to a busy second core), and whether the predictions agree exactly.

Rerun with::

    python benchmarks/bench_ranker.py                 # defaults, about 1-2 min
    python benchmarks/bench_ranker.py --rows 200000 --queries 4000 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

from skndcg.ranker import QueryRanker


def make_data(n_rows, n_queries, seed=0):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n_rows)
    X = pd.DataFrame(rng.normal(size=(n_rows, 5)), columns=[f"f{i}" for i in range(5)])
    signal = X["f0"].to_numpy() + 0.5 * X["f1"].to_numpy() + rng.normal(0, 1, n_rows)
    y = np.digitize(signal, [-1.0, 0.0, 1.0, 2.0])
    X.insert(0, "qid", qid)
    return X, y


def hand_sort(X, y):
    codes, _ = pd.factorize(X["qid"])
    order = np.argsort(codes, kind="stable")
    features = X.drop(columns="qid").iloc[order]
    return features, y[order], np.bincount(codes)


def paired_medians(direct_fn, wrapped_fn, repeats):
    """Alternate the two fits so machine load drifts affect both alike."""
    times = {"direct": [], "wrapped": []}
    results = {}
    for _ in range(repeats):
        for name, fn in (("direct", direct_fn), ("wrapped", wrapped_fn)):
            start = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - start)
    return (
        statistics.median(times["direct"]),
        statistics.median(times["wrapped"]),
        min(times["wrapped"]) / min(times["direct"]),
        results["direct"],
        results["wrapped"],
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-estimators", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args(argv)

    import lightgbm as lgb

    params = dict(
        n_estimators=args.n_estimators,
        num_leaves=31,
        deterministic=True,
        force_row_wise=True,
        n_jobs=args.n_jobs,
        verbose=-1,
    )
    X_shuffled, y_shuffled = make_data(args.rows, args.queries)
    X_sorted_feat, y_sorted, sizes = hand_sort(X_shuffled, y_shuffled)
    codes, _ = pd.factorize(X_shuffled["qid"])
    X_sorted = X_sorted_feat.copy()
    X_sorted.insert(0, "qid", np.sort(codes, kind="stable"))

    print(
        f"data: {args.rows:,} rows, {sizes.size:,} queries, 5 features; "
        f"LGBMRanker n_estimators={args.n_estimators}, n_jobs={args.n_jobs}; "
        f"median of {args.repeats} runs"
    )

    direct_t, wrapped_t, fastest, direct, wrapped = paired_medians(
        lambda: lgb.LGBMRanker(**params).fit(X_sorted_feat, y_sorted, group=sizes),
        lambda: QueryRanker(lgb.LGBMRanker(**params)).fit(X_sorted, y_sorted),
        args.repeats,
    )
    same = np.array_equal(direct.predict(X_sorted_feat), wrapped.predict(X_sorted))
    print(
        f"[sorted input]   direct {direct_t:7.2f}s  QueryRanker {wrapped_t:7.2f}s  "
        f"ratio {wrapped_t / direct_t:.3f} (fastest runs {fastest:.3f})  "
        f"identical predictions: {same}"
    )

    def direct_with_sort():
        features, y_o, group = hand_sort(X_shuffled, y_shuffled)
        return lgb.LGBMRanker(**params).fit(features, y_o, group=group)

    direct_t, wrapped_t, fastest, direct, wrapped = paired_medians(
        direct_with_sort,
        lambda: QueryRanker(lgb.LGBMRanker(**params)).fit(X_shuffled, y_shuffled),
        args.repeats,
    )
    same = np.array_equal(
        direct.predict(X_shuffled.drop(columns="qid")), wrapped.predict(X_shuffled)
    )
    print(
        f"[shuffled input] sort+direct {direct_t:7.2f}s  "
        f"QueryRanker {wrapped_t:7.2f}s  "
        f"ratio {wrapped_t / direct_t:.3f} (fastest runs {fastest:.3f})  "
        f"identical predictions: {same}"
    )
    print("target: ratio <= 1.1 in both rows")


if __name__ == "__main__":
    main()
