"""Time skndcg.evaluation.compare on many models, queries and resamples.

The target of the comparison API: 10 models x 100,000 queries x 10,000
bootstrap resamples (one metric, every model against a baseline, paired
bootstrap test, Holm correction) in at most 10 seconds on two cores. The
per-query values are drawn at random (the work does not depend on them).
It also times the same call with a cluster bootstrap (2,000 clusters), with
BCa intervals, with the randomization test, and by three segments of
queries (``by=``), which must take at most twice the time of the plain call
(the ratio is printed). Wall times depend on what
else runs on the machine; the CPU time (summed over threads) of the best run
does much less, and half of it is the wall time two free cores would need.

Run from the project root::

    python benchmarks/bench_compare.py [--models 10] [--queries 100000]
        [--resamples 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
import pandas as pd

from skndcg.evaluation import compare


def make_scores(n_models, n_queries, seed=0):
    """A long frame: model, qid, ndcg@10 (models share a query difficulty)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 3, n_queries)
    frames = []
    for m in range(n_models):
        value = np.clip(difficulty + 0.01 * m + rng.normal(0, 0.1, n_queries), 0, 1)
        frames.append(
            pd.DataFrame(
                {"model": f"m{m}", "qid": np.arange(n_queries), "ndcg@10": value}
            )
        )
    return pd.concat(frames, ignore_index=True)


def best_of(func, repeat):
    """Best and median wall time, and the CPU time (all threads) of the best run."""
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        func()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    best = min(runs)
    return best[0], float(np.median([w for w, _ in runs])), best[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    scores = make_scores(args.models, args.queries)
    cluster = np.arange(args.queries) % 2_000
    # Three segments of unequal sizes (half, a third, a sixth of the queries).
    segments = np.select(
        [np.arange(args.queries) % 6 < 3, np.arange(args.queries) % 6 < 5],
        ["head", "torso"],
        "tail",
    )
    # Compile the resampling kernels (double and single precision) before timing.
    for n_queries, n_resamples in ((50, 10), (20_000, 1_000)):
        for test in ("paired_bootstrap", "randomization"):
            compare(
                make_scores(2, n_queries),
                baseline="m0",
                test=test,
                n_resamples=n_resamples,
                random_state=0,
            )
    cases = {
        "paired_bootstrap, percentile": {},
        "paired_bootstrap, cluster (2,000)": {"cluster": cluster},
        "paired_bootstrap, BCa": {"interval": "bca"},
        "randomization test, percentile": {"test": "randomization"},
        "paired_bootstrap, 3 segments (by=)": {"by": segments},
    }
    print(
        f"compare: {args.models} models x {args.queries:,} queries x "
        f"{args.resamples:,} resamples, baseline m0, holm"
    )
    print(f"python {platform.python_version()}, numpy {np.__version__}, {sys.platform}")
    # Other processes on the machine slow every case alike; the load says how much.
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print(f"{'case':36s} {'best s':>8s} {'median s':>9s} {'CPU s':>7s}")
    best_of_case = {}
    for name, extra in cases.items():
        best, median, cpu = best_of(
            lambda extra=extra: compare(
                scores,
                baseline="m0",
                n_resamples=args.resamples,
                random_state=0,
                **extra,
            ),
            args.repeat,
        )
        print(f"{name:36s} {best:8.2f} {median:9.2f} {cpu:7.2f}")
        best_of_case[name] = best
    ratio = (
        best_of_case["paired_bootstrap, 3 segments (by=)"]
        / best_of_case["paired_bootstrap, percentile"]
    )
    print(f"3 segments / plain (best wall): {ratio:.2f} (target <= 2)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
