"""Time skndcg.dask on a two-worker LocalCluster against the in-memory call.

The table has ``--rows`` rows in queries of 50 rows on average (integer labels
0-4, float scores). Three timings, each the best of ``--repeat`` after one
warm-up, with the data already in memory (the frames are persisted on the
workers first, as the in-memory call gets its arrays in memory):

- in memory: ``skndcg.metrics.grouped_ranking_scores`` in this process (numba
  on every core);
- Dask, partitioned by query: the frame indexed by query id with known
  divisions, so no shuffle;
- Dask, shuffled: the same rows in random order without an index, so rows are
  shuffled by query id first.

The workers are two processes with one thread each and ``NUMBA_NUM_THREADS=1``,
bound to 127.0.0.1. Run from the project root::

    python benchmarks/bench_dask.py [--rows 5000000] [--partitions 8] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
import pandas as pd

METRICS = ["ndcg@10", "map@10", "mrr"]


def make_table(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    n_queries = max(1, n_rows // 50)
    qid = np.sort(rng.integers(0, n_queries, n_rows))
    return pd.DataFrame(
        {
            "qid": qid,
            "label": rng.integers(0, 5, n_rows).astype(np.int64),
            "score": rng.normal(size=n_rows),
        }
    )


def best_of(func, repeat, fresh=None):
    """Best time of ``repeat`` calls after a warm-up. ``fresh(i)`` returns the input
    of call ``i`` with new task keys (persisted before the clock starts), so no call
    can reuse results the cluster still holds from the one before."""
    func(fresh(-1) if fresh else None)  # warm-up: compiles or loads the kernels
    times = []
    for i in range(repeat):
        data = fresh(i) if fresh else None
        tic = time.perf_counter()
        result = func(data)
        times.append(time.perf_counter() - tic)
    return min(times), result


def renamed(ddf, i):
    """``ddf`` under new task keys, persisted on the workers."""
    from distributed import wait

    out = ddf.map_partitions(lambda d: d, token=f"repeat-{i}", meta=ddf._meta)
    out = out.persist()
    wait(out)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import skndcg.dask as sd
    from skndcg.metrics import grouped_ranking_scores

    df = make_table(args.rows)
    y, s, q = (df[c].to_numpy() for c in ("label", "score", "qid"))
    t_mem, expected = best_of(
        lambda _: grouped_ranking_scores(y, s, q, METRICS), args.repeat
    )

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        env={"NUMBA_NUM_THREADS": "1"},
    )
    client = Client(cluster)
    try:
        cols = dict(qid_col="qid", label_col="label", score_col="score")
        indexed = dd.from_pandas(
            df.set_index("qid"), npartitions=args.partitions, sort=True
        ).persist()
        rng = np.random.default_rng(1)
        shuffled_rows = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
        shuffled = dd.from_pandas(
            shuffled_rows, npartitions=args.partitions, sort=False
        ).persist()
        client.wait_for_workers(2)
        t_part, got_part = best_of(
            lambda d: sd.grouped_ranking_scores(d, METRICS, **cols),
            args.repeat,
            lambda i: renamed(indexed, i),
        )
        t_shuf, got_shuf = best_of(
            lambda d: sd.grouped_ranking_scores(d, METRICS, **cols),
            args.repeat,
            lambda i: renamed(shuffled, i),
        )
    finally:
        client.close()
        cluster.close()

    diff = max(
        abs(got_part[m] - expected[m]) for m in METRICS
    )  # same rows, same order within each query
    diff_shuf = max(abs(got_shuf[m] - expected[m]) for m in METRICS)
    print(f"# skndcg.dask vs in memory, {args.rows:,} rows, {len(set(q)):,} queries")
    print(
        f"# {platform.machine()} / {os.cpu_count()} cores / Python "
        f"{sys.version.split()[0]}; {args.partitions} partitions, best of "
        f"{args.repeat}"
    )
    print("| run | time (s) | vs in memory | max abs diff |")
    print("|---|---:|---:|---:|")
    print(f"| in memory (numba, all cores) | {t_mem:.3f} | 1.00x | 0 |")
    print(
        f"| Dask, partitioned by qid | {t_part:.3f} | {t_part / t_mem:.2f}x "
        f"| {diff:.1e} |"
    )
    print(
        f"| Dask, shuffled by qid | {t_shuf:.3f} | {t_shuf / t_mem:.2f}x "
        f"| {diff_shuf:.1e} |"
    )
    print(f"shuffle cost: {t_shuf - t_part:.3f} s ({t_shuf / t_part:.2f}x)")


if __name__ == "__main__":
    main()
