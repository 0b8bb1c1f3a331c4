"""Start-up cost: import skndcg.metrics and score 10k rows in a fresh interpreter.

Runs twice with a fresh numba cache directory: the first run compiles the kernels
(the first-ever cost), the second loads them from the on-disk cache (what every
later process pays).

    python benchmarks/jit.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

CODE = """
import time
t0 = time.perf_counter()
import numpy as np
from skndcg.metrics import grouped_ndcg_score
rng = np.random.default_rng(0)
q = np.repeat(np.arange(500), 20)
y = rng.integers(0, 4, q.size)
s = rng.normal(size=q.size)
t1 = time.perf_counter()
grouped_ndcg_score(y, s, q, k=10)
t2 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f}")
"""


def main() -> int:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("cold cache (compile)", "warm cache"):
            out = subprocess.run(
                [sys.executable, "-c", CODE],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            imp, first = float(out[0]), float(out[1])
            print(
                f"{label:22s} import {imp:.2f} s + first call {first:.2f} s "
                f"= {imp + first:.2f} s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
