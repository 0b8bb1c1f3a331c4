"""Full-catalogue evaluation of ML-1M-shaped data, against a loop over users.

The data are generated with the shape of MovieLens 1M: 6,040 users, 3,706
items, about a million interactions with popular items drawn more often. Each
user's last 10% (at least one) are held out; the model is a dot product of
random 32-dimensional user and item factors. Every test user is ranked
against every item it did not interact with in training, the top 100 kept.

Two ways are timed, each with its peak of traced memory (tracemalloc):

- ``full_catalogue_report``: blocks of users, top-100 per user, held-out
  items outside the top judged but not retrieved;
- a plain numpy/pandas loop over users: score the user's row, mask the seen
  items, sort, and compute recall@10, NDCG@10 and MAP@10 by hand.

Both must give the same means (checked). Run from the project root::

    python benchmarks/bench_full_catalogue.py [--users 6040] [--items 3706]
        [--interactions 1000000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc

import numpy as np
import pandas as pd

from skndcg.evaluation import full_catalogue_report

METRICS = ["recall@10", "ndcg@10", "map@10"]


def make_log(n_users, n_items, n_interactions, seed=0):
    rng = np.random.default_rng(seed)
    weight = 1.0 / np.arange(1, n_items + 1) ** 0.9
    item = rng.choice(n_items, n_interactions, p=weight / weight.sum())
    user = rng.integers(0, n_users, n_interactions)
    log = pd.DataFrame({"user_id": user, "item_id": item})
    log = log.drop_duplicates(ignore_index=True)
    log["timestamp"] = rng.permutation(len(log))
    log = log.sort_values(["user_id", "timestamp"], ignore_index=True)
    size = log.groupby("user_id")["item_id"].transform("size")
    pos = log.groupby("user_id").cumcount()
    is_test = pos >= size - np.maximum(1, (0.1 * size).astype(int))
    return log[~is_test], log[is_test]


def loop_over_users(U, V, train, test, k=10):
    """The plain way: one user at a time, the whole catalogue sorted."""
    seen = train.groupby("user_id")["item_id"].apply(np.asarray)
    held = test.groupby("user_id")["item_id"].apply(np.asarray)
    catalogue = np.unique(train["item_id"])
    out = []
    for user, items in held.items():
        scores = np.full(V.shape[0], -np.inf)
        scores[catalogue] = V[catalogue] @ U[user]
        scores[seen.get(user, [])] = -np.inf
        relevant = np.intersect1d(items, catalogue)
        relevant = relevant[np.isfinite(scores[relevant])]
        if relevant.size == 0:
            continue
        top = np.argsort(-scores, kind="stable")[:k]
        hit = np.isin(top, relevant)
        gains = 1.0 / np.log2(np.arange(2, k + 2))
        idcg = gains[: min(k, relevant.size)].sum()
        precision_at = np.cumsum(hit) / np.arange(1, k + 1)
        out.append(
            (
                hit.sum() / relevant.size,
                (gains * hit).sum() / idcg,
                (precision_at * hit).sum() / relevant.size,
            )
        )
    return np.mean(out, axis=0)


def measure(func, repeat):
    best, peak, result = np.inf, 0, None
    for _ in range(repeat):
        tracemalloc.start()
        start = time.perf_counter()
        result = func()
        wall = time.perf_counter() - start
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        best = min(best, wall)
    return best, peak / 2**20, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=6040)
    parser.add_argument("--items", type=int, default=3706)
    parser.add_argument("--interactions", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)

    train, test = make_log(args.users, args.items, args.interactions)
    rng = np.random.default_rng(1)
    U = rng.normal(size=(args.users, 32))
    V = rng.normal(size=(args.items, 32))

    def score(users, items):
        return U[users] @ V[items].T

    def ours():
        report = full_catalogue_report(score, train, test, metrics=METRICS, top_n=100)
        return report[METRICS].mean().to_numpy()

    # Warm-up: the metric kernels compile on their first call, untimed.
    few = test["user_id"].isin(test["user_id"].unique()[:20])
    full_catalogue_report(score, train, test[few], metrics=METRICS, top_n=100)
    t_ours, mem_ours, m_ours = measure(ours, args.repeat)
    t_loop, mem_loop, m_loop = measure(
        lambda: loop_over_users(U, V, train, test), args.repeat
    )
    np.testing.assert_allclose(m_ours, m_loop, rtol=1e-9)

    print(
        f"# full catalogue: {args.users} users x {args.items} items, "
        f"{len(train)} train and {len(test)} test interactions, top 100 kept; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"best of {args.repeat}"
    )
    print(
        "| way | wall (s) | peak traced memory (MiB) | recall@10 | ndcg@10 | map@10 |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, t, mem, m in (
        ("full_catalogue_report", t_ours, mem_ours, m_ours),
        ("numpy/pandas loop over users", t_loop, mem_loop, m_loop),
    ):
        print(
            f"| {name} | {t:.2f} | {mem:.0f} | {m[0]:.4f} | {m[1]:.4f} | {m[2]:.4f} |"
        )
    print(f"speed-up over the loop: {t_loop / t_ours:.1f}x")


if __name__ == "__main__":
    main()
