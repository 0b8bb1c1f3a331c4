"""Extra peak memory of grouped NDCG@10 for float64 and int64 labels.

Float labels holding integers (ratings 0-4 stored as float64, as pandas often
gives them) once cost an int64 copy of the labels: a third of the inputs'
memory on top of the peak. This benchmark keeps an eye on that: for each label
dtype and query order it reports the peak of the memory numpy allocates
during one call (``tracemalloc``, which numpy reports to) above what was
allocated before it, as a multiple of the bytes of the three inputs. The
kernels' own per-chunk buffers (numba) are not counted: they are bounded by
the chunk size, not the number of rows.

Run from the project root::

    python benchmarks/bench_memory.py [--rows 5000000]

Expected: float64 and int64 labels within 0.05x of each other in both orders.
"""

from __future__ import annotations

import argparse
import tracemalloc

import numpy as np

from skndcg.metrics import grouped_ndcg_score


def extra_peak(y, s, qid):
    """Peak numpy memory of one call above the inputs, as a multiple of them."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    grouped_ndcg_score(y, s, qid, k=10)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak / (y.nbytes + s.nbytes + qid.nbytes)


def measure(n_rows, per_query=20, seed=0):
    """{(order, dtype): extra peak} for sorted and shuffled query ids."""
    rng = np.random.default_rng(seed)
    out = {}
    for order in ("sorted", "shuffled"):
        qid = np.repeat(np.arange(n_rows // per_query, dtype=np.int64), per_query)
        if order == "shuffled":
            rng.shuffle(qid)
        s = rng.random(qid.size)
        for dtype in ("float64", "int64"):
            y = rng.integers(0, 5, qid.size).astype(dtype)
            # Warm-up on the same arrays: compiling allocates too.
            grouped_ndcg_score(y, s, qid, k=10)
            out[order, dtype] = extra_peak(y, s, qid)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    args = parser.parse_args()
    results = measure(args.rows)
    print(f"# extra peak memory / inputs, {args.rows:,} rows, 20 rows per query")
    print(f"{'qid order':<10} {'float64 labels':>15} {'int64 labels':>13}")
    for order in ("sorted", "shuffled"):
        f, i = results[order, "float64"], results[order, "int64"]
        print(f"{order:<10} {f:>14.2f}x {i:>12.2f}x")


if __name__ == "__main__":
    main()
