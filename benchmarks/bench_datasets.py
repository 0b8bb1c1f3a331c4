"""Time the data sets: make_movielens_like at its default size, load_movielens.

The unit tests hold no wall-clock limits (they fail on a busy machine for the
wrong reason); the limits live here. Targets on two cores: the default
make_movielens_like under 5 s, reading a 300,000-row ratings.csv under 3 s.

Run from the project root::

    python benchmarks/bench_datasets.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from skndcg.datasets import load_movielens, make_movielens_like

TARGETS = {"make_movielens_like()": 5.0, "load_movielens, 300,000 rows": 3.0}


def _best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = 300_000
    frame = pd.DataFrame(
        {
            "userId": rng.integers(1, 5000, n),
            "movieId": rng.integers(1, 20000, n),
            "rating": rng.integers(1, 11, n) / 2,
            "timestamp": rng.integers(800_000_000, 1_600_000_000, n),
        }
    )
    with tempfile.TemporaryDirectory() as folder:
        frame.to_csv(Path(folder) / "ratings.csv", index=False)
        results = {
            "make_movielens_like()": _best(
                lambda: make_movielens_like(random_state=5), args.repeat
            ),
            "load_movielens, 300,000 rows": _best(
                lambda: load_movielens(folder), args.repeat
            ),
        }
    print(f"# best of {args.repeat}, seconds (target)")
    for name, seconds in results.items():
        verdict = "ok" if seconds < TARGETS[name] else "SLOWER THAN TARGET"
        print(f"{name:<30} {seconds:6.2f}  (< {TARGETS[name]:g})  {verdict}")


if __name__ == "__main__":
    main()
