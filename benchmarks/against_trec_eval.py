"""``skndcg trec_eval`` against a trec_eval binary, line by line, on random runs.

trec_eval is a C program, not a Python package, so the test suite checks
skndcg against hand-computed cases and pytrec_eval (trec_eval 9.0.8's code).
This script compares the two command lines themselves: build trec_eval 10.0
from its source (``make`` in a checkout of usnistgov/trec_eval at tag v10.0),
then

    python benchmarks/against_trec_eval.py /path/to/trec_eval [--cases 20]

Each case is a random run and qrels: integer scores (many ties, broken by
docno), documents the qrels do not list, judged documents the run missed,
grades from -2 to 4, run-only and qrels-only queries, judged queries with
nothing relevant. Every query has a judgment of 0 or more: for a query whose
every judgment is negative trec_eval reuses the previous query's count of
documents per grade (its ideal_dcg is then the previous query's), and it
crashes when they are all -2 or below. Every flag set below runs through both
programs; a line trec_eval prints as ``-nan`` (a division by zero of its own,
under ``-J``) is counted apart. Without ``-c`` trec_eval stops at a judged
query without results, so those cases keep every judged query in the run.
The flag sets leave out two documented differences (``docs/user_guide/
trec_eval.rst``): ``-c`` with ``utility``'s parameters, and ndcg gains less
than 1 apart.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

FLAGS = [
    ["-m", "all_trec"],
    ["-q", "-m", "all_trec"],
    ["-q", "-c", "-m", "all_trec"],
    ["-q", "-c", "-l", "2", "-m", "all_trec"],
    ["-q", "-c", "-M", "5", "-m", "all_trec"],
    ["-q", "-c", "-J", "-m", "all_trec"],
    ["-q", "-N", "500", "-m", "utility.2,-1,1,1"],
    ["-q", "-c"],
    ["-q", "-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.95", "-m", "relstring.5"],
    ["-q", "-c", "-m", "ndcg.1=2,3=7"],
    ["-q", "-c", "-m", "dcg", "-m", "ideal_dcg", "-m", "yaap"],
]


def write_case(folder: Path, seed: int, *, every_judged_answered: bool):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(int(rng.integers(5, 30))):
        n = int(rng.integers(1, 40))
        low = int(rng.choice([-2, -1, 0, 0, 1]))
        judged = [d for d in range(n) if rng.random() < 0.7] or [0]
        grades = rng.integers(low, int(rng.integers(1, 5)) + 1, len(judged))
        grades[0] = max(grades[0], 0)  # a judgment of 0 or more (see above)
        qrels += [f"q{q} 0 d{d} {g}" for d, g in zip(judged, grades, strict=True)]
        answered = every_judged_answered or q % 7 != 3
        for d in range(n + 5):
            if answered and (rng.random() < 0.8 or d == 0):
                run.append(f"q{q} Q0 d{d} 0 {rng.integers(0, 8) / 4} r{seed}")
    run.append(f"q999 Q0 d1 0 1.0 r{seed}")  # a run-only query
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    return str(folder / "qrels"), str(folder / "run")


def output(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    return done.returncode, done.stdout.splitlines()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trec_eval", help="path to a trec_eval 10.0 binary")
    parser.add_argument("--cases", type=int, default=20)
    args = parser.parse_args()
    skndcg = [sys.executable, "-m", "skndcg", "trec_eval"]
    print(f"{'flags':<58}{'lines':>8}{'differ':>8}{'-nan':>6}{'stops':>7}")
    for flags in FLAGS:
        lines = differ = nan = stops = 0
        for seed in range(args.cases):
            with tempfile.TemporaryDirectory() as tmp:
                files = write_case(Path(tmp), seed,
                                   every_judged_answered="-c" not in flags)  # fmt: skip
                code, want = output([args.trec_eval, *flags, *files])
                _, got = output([*skndcg, *flags, *files])
            if code != 0:
                stops += 1  # trec_eval stopped: nothing to compare
                continue
            lines += len(want)
            if len(want) != len(got):
                differ += abs(len(want) - len(got))
            for a, b in zip(want, got, strict=False):
                if a != b:
                    if a.endswith("nan"):
                        nan += 1
                    else:
                        differ += 1
        print(f"{' '.join(flags):<58}{lines:>8}{differ:>8}{nan:>6}{stops:>7}")


if __name__ == "__main__":
    main()
