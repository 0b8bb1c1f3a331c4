"""Start-up cost: what a new process pays before its first score, against
``python -c "import sklearn.metrics"`` measured in the same run.

Each line is a fresh interpreter, with skndcg's bytecode compiled beforehand (as
a wheel install leaves it) and 1 GiB of memory touched before the timer. "cold"
uses an empty numba cache directory (a new machine, container or CI run: every
kernel the call needs is compiled), "warm" the cache the cold run left (the
median of five runs for the 10k-row calls). The scikit-learn import is timed
between the warm runs; the ratios use its median over the whole run. Reported:
wall seconds of the import and of the first call, their ratio to the
scikit-learn import, the compile time of each compiled function (inclusive: a
kernel's time contains the kernels it calls), and what a call on other input
dtypes compiles on top.

    python benchmarks/jit.py            # about two minutes
    PYTHONPATH=/other/checkout python benchmarks/jit.py --label before
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "jit.json"

# Warm runs per 10k-row case (the 5M-row case has one); the median is reported.
WARM_REPEATS = 5

# Every measured process first touches and frees 1 GiB, before its timer. Some
# virtual machines back guest memory lazily, and the first touch of a page the
# guest never used costs 5 to 10 ms per MB there (0.15 ms once backed): without
# this, a start-up time mostly says which pages the process happened to get.
WARM = 'block = b"\\x01" * (1 << 30); del block'

SKLEARN = (
    WARM + "; import time; t = time.perf_counter(); import sklearn.metrics; "
    "print(time.perf_counter() - t)"
)

PROBE = (
    WARM
    + """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from skndcg.metrics import grouped_ndcg_score, grouped_ranking_scores
t1 = time.perf_counter()
try:
    from skndcg._native._jit import compile_times
except ImportError:  # a checkout from before the compiled-code layer moved
    from skndcg.metrics._jit import compile_times


rng = np.random.default_rng(0)
n_rows = int(sys.argv[1])
q = np.repeat(np.arange(n_rows // 20), 20)
y = rng.integers(0, 4, q.size)
s = rng.normal(size=q.size)
what = sys.argv[2]
t2 = time.perf_counter()
if what == "ndcg":
    _, times = compile_times(grouped_ndcg_score, y, s, q, k=10)
else:
    names = ["ndcg@5", "ndcg@10", "map@10", "mrr", "p@10", "r@10"]
    _, times = compile_times(grouped_ranking_scores, y, s, q, names)
t3 = time.perf_counter()
extra = {}
if what == "ndcg":
    import pandas as pd
    variants = {
        "float labels": (y.astype(float), s, q),
        "bool labels": (y > 1, s, q),
        "float32 scores": (y, s.astype(np.float32), q),
        "string qid": (y, s, q.astype(str)),
        "categorical qid": (y, s, pd.Series(q).astype("category")),
    }
    for name, args in variants.items():
        t = time.perf_counter()
        _, more = compile_times(grouped_ndcg_score, *args, k=10)
        extra[name] = [time.perf_counter() - t, sorted(more)]
print(json.dumps({"import": t1 - t0, "first": t3 - t2, "compiled": times,
                  "variants": extra}))
"""
)


def _run(code, env, *args):
    # Run outside the checkout: with ``-c`` the working folder comes first on
    # sys.path and would shadow PYTHONPATH.
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


def _compile_bytecode() -> None:
    # As pip does when it installs a wheel: without the .pyc files (say under
    # PYTHONDONTWRITEBYTECODE) every start would compile skndcg's source too,
    # which scikit-learn, installed by pip, never does.
    import compileall

    import skndcg

    compileall.compile_dir(Path(skndcg.__file__).parent, quiet=1)


def _report(state, what, n_rows, r, total, sk, extra=""):
    print(
        f"{state:4s} {what:6s} {n_rows:>9,} rows: "
        f"import {r['import']:.2f} s + first call {r['first']:.2f} s"
        f" = {total:.2f} s = {total / sk:.2f}x the scikit-learn import{extra}"
    )
    if state == "cold":
        top = sorted(r["compiled"].items(), key=lambda kv: -kv[1])[:8]
        for name, sec in top:
            print(f"       {sec:6.2f} s  {name}")
    for name, (sec, more) in r["variants"].items():
        new = ", ".join(more) or "nothing"
        print(f"       then {name}: {sec:.3f} s, compiled {new}")


def main() -> int:
    label = sys.argv[sys.argv.index("--label") + 1] if "--label" in sys.argv else ""
    _compile_bytecode()
    drop = ("NUMBA_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")
    base = {k: v for k, v in os.environ.items() if k not in drop}
    # The scikit-learn import is timed 3 times first, then once after each warm
    # run, so both see the same machine; its median over the whole run is the
    # reference of every ratio.
    sk_times = [float(_run(SKLEARN, base)) for _ in range(3)]
    print(f"python -c 'import sklearn.metrics' before: {sk_times} s\n")
    cases = []
    for n_rows, what in [(10_000, "ndcg"), (10_000, "family"), (5_000_000, "ndcg")]:
        runs = {"cold": [], "warm": []}
        with tempfile.TemporaryDirectory() as cache:
            env = {**base, "NUMBA_CACHE_DIR": cache}
            runs["cold"].append(json.loads(_run(PROBE, env, str(n_rows), what)))
            for _ in range(WARM_REPEATS if n_rows <= 10_000 else 1):
                runs["warm"].append(json.loads(_run(PROBE, env, str(n_rows), what)))
                sk_times.append(float(_run(SKLEARN, base)))
        cases.append((n_rows, what, runs))
    sk = statistics.median(sk_times)
    print(
        f"python -c 'import sklearn.metrics': {sk:.2f} s (median of "
        f"{len(sk_times)}, {min(sk_times):.2f} to {max(sk_times):.2f} s)\n"
    )
    rows = []
    for n_rows, what, runs in cases:
        for state, found in runs.items():
            totals = [r["import"] + r["first"] for r in found]
            mid = sorted(range(len(found)), key=totals.__getitem__)[len(found) // 2]
            r, total = found[mid], totals[mid]
            extra = ""
            if len(found) > 1:
                spread = f"{min(totals):.2f} to {max(totals):.2f} s"
                extra = f" (median of {len(found)}: {spread})"
            _report(state, what, n_rows, r, total, sk, extra)
            rows.append(
                {
                    "rows": n_rows,
                    "call": what,
                    "cache": state,
                    **r,
                    "total": total,
                    "totals": totals,
                    "x_sklearn_import": total / sk,
                }
            )
    RESULTS.parent.mkdir(exist_ok=True)
    out = RESULTS.with_name(f"jit{'-' + label if label else ''}.json")
    payload = {"sklearn_import": sk, "sklearn_imports": sk_times, "rows": rows}
    out.write_text(json.dumps(payload, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
