"""``skndcg trec_eval`` on trec_eval 10.0's own test files, byte for byte, and timed.

trec_eval's source tree has a ``test/`` folder: qrels, runs (``results.test``
has a tab and padded spaces between fields) and the output its ``make test``
expects. Those files are trec_eval's, not skndcg's, so they are not copied
into this project; give the folder of a checkout (usnistgov/trec_eval, tag
v10.0)::

    python benchmarks/trec_eval_tests.py /path/to/trec_eval/test [--repeat 5]

Each command of trec_eval's Makefile that skndcg covers runs on both roads:
the no-compile backend (what a fresh process takes for files this small) and
the compiled kernels (``SKNDCG_PLAIN_CELLS=0``). Each output is compared with
the expected file (``cmp``), and the warm wall time of every command (median
of ``--repeat`` fresh processes, after one unmeasured run that fills numba's
cache and Python's bytecode cache) is printed. The exit code is 1 when an
output differs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

MEAS_PARAMS = [
    "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m",
    "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0",
    "-m", "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5",
    "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
]  # fmt: skip
CASES = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM",
     ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2",
                      "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", [*MEAS_PARAMS, "qrels.test", "results.test"]),
]  # fmt: skip
ROADS = {"no-compile": {}, "compiled": {"SKNDCG_PLAIN_CELLS": "0"}}


def run(argv, folder, env):
    """(stdout bytes, seconds) of one ``skndcg trec_eval`` process."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "skndcg", "trec_eval", *argv],
        cwd=folder, env=env, capture_output=True, check=False,
    )  # fmt: skip
    return done.stdout, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="trec_eval's test/ folder")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    failed = 0
    print(f"{'expected':<22}{'road':<12}{'same':<6}{'median s':>9}  flags")
    for expected, argv in CASES:
        want = (args.folder / expected).read_bytes()
        for road, extra in ROADS.items():
            env = {**base, **extra}
            got, _ = run(argv, args.folder, env)  # warms the caches
            times = [run(argv, args.folder, env)[1] for _ in range(args.repeat)]
            same = got == want
            failed += not same
            flags = " ".join(a for a in argv if a.startswith("-"))
            print(f"{expected:<22}{road:<12}{'yes' if same else 'NO':<6}"
                  f"{statistics.median(times):>9.3f}  {flags}")  # fmt: skip
    print("every output identical" if not failed else f"{failed} outputs differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
