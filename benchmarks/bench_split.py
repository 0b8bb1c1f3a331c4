"""Time GroupTimeSeriesSplit.split and split_info on MovieLens-shaped data.

The data mimics MovieLens ml-latest-small: 100,000 ratings by 600 users over
nine years of unix-second timestamps. Users rate in bursts, so many ratings
of a user share one timestamp. A query is one user in one calendar month.

Run from the project root::

    python benchmarks/bench_split.py [--rows 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np
import pandas as pd

from skndcg.model_selection import GroupTimeSeriesSplit

START = 1_230_768_000  # 2009-01-01 in unix seconds
NINE_YEARS = 9 * 365 * 86_400


def make_ratings(n_rows, n_users=600, seed=0):
    """Ratings with per-user bursts of identical timestamps, rows shuffled."""
    rng = np.random.default_rng(seed)
    weights = rng.pareto(1.2, n_users) + 1.0
    user = rng.choice(n_users, size=n_rows, p=weights / weights.sum())
    first = START + rng.integers(0, NINE_YEARS, n_users)
    life = rng.exponential(120 * 86_400, n_users).astype(np.int64)
    burst = rng.integers(0, 6, n_rows)  # ~6 sessions per user
    session_time = first[user] + (life[user] * burst) // 5
    timestamp = np.minimum(session_time, START + NINE_YEARS)
    ts = pd.to_datetime(timestamp, unit="s")
    qid = user.astype(np.int64) * 10_000 + (ts.year * 12 + ts.month).to_numpy()
    return pd.DataFrame({"user": user, "timestamp": ts, "qid": qid})


def best_of(func, repeat):
    times = []
    for _ in range(repeat):
        tic = time.perf_counter()
        func()
        times.append(time.perf_counter() - tic)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    data = make_ratings(args.rows)
    X = np.zeros((len(data), 1))
    groups, ts = data["qid"].to_numpy(), data["timestamp"]
    n_distinct = data.groupby("user")["timestamp"].nunique().sum()
    print(
        f"data: {len(data):,} ratings, {data['user'].nunique()} users, "
        f"{data['qid'].nunique():,} user-month queries, {n_distinct:,} distinct "
        f"(user, timestamp) pairs, {ts.min():%Y-%m-%d} .. {ts.max():%Y-%m-%d}"
    )
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}, "
        f"numpy {np.__version__}, pandas {pd.__version__}"
    )
    configs = {
        "n_splits=5 (groups)": GroupTimeSeriesSplit(5),
        "n_splits=5, balance='rows', gap='1D'": GroupTimeSeriesSplit(
            5, balance="rows", gap="1D"
        ),
        "test_size='90D', n_splits=4, max_train_size='365D'": GroupTimeSeriesSplit(
            4, test_size="90D", max_train_size="365D"
        ),
        "test_size='Q', n_splits=None": GroupTimeSeriesSplit(None, test_size="Q"),
    }
    worst = 0.0
    for name, cv in configs.items():
        t_split = best_of(
            lambda cv=cv: list(cv.split(X, groups=groups, time=ts)), args.repeat
        )
        t_info = best_of(
            lambda cv=cv: cv.split_info(X, groups=groups, time=ts), args.repeat
        )
        n_folds = cv.get_n_splits(X, groups=groups, time=ts)
        worst = max(worst, t_split + t_info)
        print(
            f"{name:52s} folds={n_folds:3d}  split {t_split * 1e3:7.1f} ms  "
            f"split_info {t_info * 1e3:7.1f} ms  (best of {args.repeat})"
        )
    verdict = "under" if worst < 1.0 else "OVER"
    print(f"slowest split + split_info: {worst:.3f} s ({verdict} the 1 s target)")
    print(
        f"rerun: python benchmarks/bench_split.py --rows {args.rows} "
        f"--repeat {args.repeat}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
