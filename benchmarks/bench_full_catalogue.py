"""Full-catalogue evaluation against its floor: a block product plus a partition.

Two parts, each timed against its floor in the same run (the machine may be
shared: the ratios are the numbers to keep).

1. **ML-1M shape**: 6,040 users, 3,706 items, about a million draws with popular
   items drawn more often; each user's last 10% (at least one) held out; the
   model is a dot product of random 32-dimensional factors. Every test user is
   ranked against every item it did not interact with in training, the top 100
   kept, and recall@10, NDCG@10 and MAP@10 computed. Timed, interleaved,
   ``--repeat`` times each:

   - the **floor**: per block of 256 users, the block's scores (one matrix
     product) and ``np.argpartition`` of them for the top 100 (no seen items
     removed, no metric);
   - ``full_catalogue_report((user_factors, item_factors), ...)``;
   - ``full_catalogue_report(f, ...)`` with ``f(users, items)`` a function
     returning the same product.

   A plain numpy/pandas loop over users (score the user's row, mask the seen
   items, sort, compute the three metrics by hand) runs once and must give the
   same means.

2. **100,000 users x 20,000 items** (5 million draws): the factors form against
   the floor, once each, with tracemalloc's peak of traced memory; then the
   peak on a quarter of the users, and on that quarter with a block 16 times
   larger, to show what the memory grows with.

Run from the project root::

    python benchmarks/bench_full_catalogue.py [--repeat 5] [--no-loop]
        [--no-large] [--large-users 100000] [--large-items 20000]
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
TOP = 100
BLOCK = 256


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


def floor(U, V, train, test, block=BLOCK):
    """Block product and np.argpartition over the same scores: nothing less
    ranks every user against the whole catalogue."""
    catalogue = np.unique(train["item_id"].to_numpy())
    users = np.unique(test["user_id"].to_numpy())
    item_t = V[catalogue].T
    for lo in range(0, users.size, block):
        scores = U[users[lo : lo + block]] @ item_t
        np.argpartition(-scores, TOP - 1, axis=1)


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


def timed(func, trace=False):
    """``(seconds, peak traced MiB or None, result)`` of one call."""
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    result = func()
    wall = time.perf_counter() - start
    peak = None
    if trace:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return wall, peak, result


def ml1m(args):
    train, test = make_log(6040, 3706, 1_000_000)
    rng = np.random.default_rng(1)
    U = rng.normal(size=(6040, 32))
    V = rng.normal(size=(3706, 32))

    def score(users, items):
        return U[users] @ V[items].T

    ways = {
        "floor: block product + np.argpartition": lambda: floor(U, V, train, test),
        "full_catalogue_report, factors": lambda: full_catalogue_report(
            (U, V), train, test, metrics=METRICS, top_n=TOP, block_size=BLOCK
        ),
        "full_catalogue_report, function": lambda: full_catalogue_report(
            score, train, test, metrics=METRICS, top_n=TOP, block_size=BLOCK
        ),
    }
    # Warm-up: kernels compiled or loaded from the cache, memory touched.
    for func in ways.values():
        func()
    times, steps, reports = interleave(ways, args.repeat)
    means = {
        n: r[METRICS].mean().to_numpy() for n, r in reports.items() if r is not None
    }
    if args.loop:
        wall, _, loop_means = timed(lambda: loop_over_users(U, V, train, test))
        name = "numpy/pandas loop over users (one run)"
        times[name], means[name] = [wall], loop_means
        for m in means.values():
            np.testing.assert_allclose(m, loop_means, rtol=1e-9)
    print(
        f"# full catalogue, ML-1M shape: 6040 users x 3706 items, {len(train)} "
        f"train and {len(test)} test interactions, 32 factors, top {TOP} kept, "
        f"blocks of {BLOCK} users; {platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}; median of {args.repeat} "
        "interleaved runs"
    )
    worst = table(times, steps, means)
    from threadpoolctl import threadpool_limits

    # BLAS's own threads wait for cores on a busy machine: the same ways again
    # with the products on one thread, to see the ratio without that wait.
    with threadpool_limits(1, user_api="blas"):
        times, steps, _ = interleave(ways, args.repeat)
    print(
        f"\n# the same with BLAS on one thread (threadpoolctl), load average "
        f"{os.getloadavg()[0]:.1f}; median of {args.repeat} interleaved runs"
    )
    worst_one = table(times, steps, means)
    return worst, worst_one


def interleave(ways, repeat):
    """Every way ``repeat`` times, in turn, so that all see the same load."""
    times = {name: [] for name in ways}
    reports, steps = {}, {name: [] for name in ways}
    for _ in range(repeat):
        for name, func in ways.items():
            wall, _, result = timed(func)
            times[name].append(wall)
            reports[name] = result
            if result is not None:
                steps[name].append(result.attrs["timings"])
    return times, steps, reports


def table(times, steps, means):
    """Print the timings against the first way (the floor); return the largest
    median ratio of a full_catalogue_report way."""
    floor_name = next(iter(times))
    n = len(times[floor_name])
    print("| way | median wall (s) | x floor (median of per-run ratios) | "
          "recall@10 | ndcg@10 | map@10 |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|")
    ratios = {}
    for name, walls in times.items():
        m = means.get(name)
        cells = " | ".join(f"{x:.4f}" for x in m) if m is not None else "- | - | -"
        if len(walls) == n:
            ratios[name] = np.median(np.divide(walls, times[floor_name]))
        ratio = ratios.get(name, np.median(walls) / np.median(times[floor_name]))
        print(f"| {name} | {np.median(walls):.3f} | {ratio:.2f} | {cells} |")
    print()
    print("Where the time goes (median seconds, report.attrs['timings']):")
    print("| way | prepare | scoring | top_k | metrics | total |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, reps in steps.items():
        if not reps:
            continue
        cells = " | ".join(
            f"{np.median([r[k] for r in reps]):.3f}"
            for k in ("prepare", "scoring", "top_k", "metrics", "total")
        )
        print(f"| {name} | {cells} |")
    return max(r for name, r in ratios.items() if name.startswith("full_"))


def large(args):
    n_u, n_i = args.large_users, args.large_items
    start = time.perf_counter()
    train, test = make_log(n_u, n_i, 50 * n_u)
    rng = np.random.default_rng(1)
    U = rng.normal(size=(n_u, 32))
    V = rng.normal(size=(n_i, 32))
    made = time.perf_counter() - start
    full_catalogue_report((U, V), train, test[test["user_id"] < 50], metrics=METRICS)
    quarter = test[test["user_id"] < n_u // 4]
    runs = [
        ("floor: block product + np.argpartition", n_u, BLOCK, None),
        ("full_catalogue_report, factors", n_u, BLOCK, test),
        ("full_catalogue_report, factors", n_u // 4, BLOCK, quarter),
        ("full_catalogue_report, factors", n_u // 4, 16 * BLOCK, quarter),
    ]
    print(
        f"# full catalogue, {n_u} users x {n_i} items: {len(train)} train and "
        f"{len(test)} test interactions (made in {made:.0f} s), 32 factors, top "
        f"{TOP}; load average {os.getloadavg()[0]:.1f}; one run each"
    )
    print("| way | test users | block_size | wall (s) | x floor | peak traced "
          "memory (MiB) | score block (MiB) | prepare / scoring / top_k / "
          "metrics (s) |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    floor_wall = None
    for name, users, block, held in runs:
        if held is None:
            wall, peak, _ = timed(
                lambda block=block: floor(U, V, train, test, block), trace=True
            )
            floor_wall, steps = wall, "-"
        else:
            wall, peak, report = timed(
                lambda held=held, block=block: full_catalogue_report(
                    (U, V), train, held, metrics=METRICS, top_n=TOP,
                    block_size=block,
                ),
                trace=True,
            )  # fmt: skip
            t = report.attrs["timings"]
            steps = " / ".join(
                f"{t[k]:.1f}" for k in ("prepare", "scoring", "top_k", "metrics")
            )
        ratio = f"{wall / floor_wall:.2f}" if users == n_u else "-"
        block_mib = block * n_i * 8 / 2**20
        print(
            f"| {name} | {held['user_id'].nunique() if held is not None else users}"
            f" | {block} | {wall:.1f} | {ratio} | {peak:.0f} | {block_mib:.0f} "
            f"| {steps} |"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-loop", dest="loop", action="store_false")
    parser.add_argument("--no-large", dest="large", action="store_false")
    parser.add_argument("--large-users", type=int, default=100_000)
    parser.add_argument("--large-items", type=int, default=20_000)
    args = parser.parse_args(argv)
    worst, worst_one = ml1m(args)
    print(
        f"\nslowest full_catalogue_report / floor: {worst:.2f}x, {worst_one:.2f}x "
        "with BLAS on one thread (target: 2x)"
    )
    if args.large:
        print()
        large(args)


if __name__ == "__main__":
    main()
