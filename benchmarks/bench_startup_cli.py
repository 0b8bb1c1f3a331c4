"""Wall time of the command line on a DL19-shaped run, against pytrec_eval.

Targets (issue 25): a warm ``skndcg score`` on a 63k-line run with 43 queries
takes at most 0.4 s wall, and the first run on a fresh environment at most 5 s.
Each measurement is one fresh process, timed from outside (``subprocess``), so
imports, reading and scoring all count:

- ``version``: ``python -m skndcg --version``;
- ``score``: ``python -m skndcg score RUN --qrels QRELS`` (its default metrics)
  after one unmeasured call, so that numba's cache is warm;
- ``score, first run``: the same command as on a fresh environment: an empty
  numba cache and no compiled Python bytecode (``NUMBA_CACHE_DIR`` and
  ``PYTHONPYCACHEPREFIX`` set to new empty folders for every call);
- ``score, compiled road``: the warm command with the no-compile backend
  turned off (``SKNDCG_PLAIN_CELLS=0``): numba's cached kernels and the
  compiled byte join, as every run is scored once numba is loaded;
- ``pytrec_eval``: a process that imports pytrec_eval, reads both files into
  its dictionaries and evaluates the same six measures (trec_eval's map, ndcg,
  ndcg_cut_10, P_10, recall_100 and recip_rank);
- ``trec_eval official`` (warm, and first run): ``python -m skndcg trec_eval
  QRELS RUN``, trec_eval's own command line with its default measures (the
  ``official`` set: the counts, map, gm_map, Rprec, bpref, recip_rank, 11
  iprec_at_recall levels and 9 P cut-offs), against ``pytrec_eval official``,
  the same script evaluating those measures;
- ``results.test score`` and ``results.test -q all_trec`` (each also on the
  compiled road): a run shaped like trec_eval's own ``test/results.test`` (3
  queries of 500 documents, fields apart by a tab and padded spaces, 3,681
  judgments), through ``skndcg score`` and ``skndcg trec_eval -q -m
  all_trec`` (issue 35: at most 0.5 s warm);
- ``python``: ``python -c pass``, the interpreter alone.

The run: 43 queries of 1,465 documents (63k lines) drawn from a corpus of 8.8
million, scores with six decimals; the qrels judge 215 documents per query
(grades 0 to 3), DL19's shape.

Run from the project root::

    python benchmarks/bench_startup_cli.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

N_QUERIES, PER_QUERY, JUDGED, CORPUS = 43, 1_465, 215, 8_800_000

PYTREC = r"""
import sys
import pytrec_eval
run, qrels = {}, {}
with open(sys.argv[2]) as fh:
    for line in fh:
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
with open(sys.argv[1]) as fh:
    for line in fh:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
measures = set(sys.argv[3].split(","))
out = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
assert len(out) == len(qrels)
"""


SIX = "map,ndcg,ndcg_cut_10,P_10,recall_100,recip_rank"
OFFICIAL = "num_ret,num_rel,num_rel_ret,map,gm_map,Rprec,bpref,recip_rank," + (
    "iprec_at_recall,P"
)


def make_files(folder: Path):
    rng = np.random.default_rng(0)
    run, qrels = [], []
    for q in range(N_QUERIES):
        qid = str(19_000 + 37 * q)
        docs = rng.choice(CORPUS, PER_QUERY, replace=False)
        scores = np.sort(rng.normal(10.0, 2.0, PER_QUERY))[::-1]
        run += [
            f"{qid} Q0 {d} {r} {s:.6f} bm25\n"
            for r, (d, s) in enumerate(zip(docs, scores, strict=True), start=1)
        ]
        pool = np.unique(np.r_[docs[:300][: JUDGED - 60], rng.choice(CORPUS, 60)])
        grades = rng.choice([0, 0, 1, 2, 3], pool.size)
        qrels += [f"{qid} 0 {d} {g}\n" for d, g in zip(pool, grades, strict=True)]
    (folder / "run").write_text("".join(run))
    (folder / "qrels").write_text("".join(qrels))
    return str(folder / "run"), str(folder / "qrels"), len(run)


def make_padded(folder: Path):
    """A run and qrels shaped like trec_eval's ``test/results.test``."""
    rng = np.random.default_rng(1)
    run, qrels = [], []
    for q, n_judged in zip((301, 302, 303), (1708, 1061, 912), strict=True):
        pool = [f"FR9{rng.integers(10**6):06d}-{i}" for i in range(n_judged)]
        grades = rng.choice([0, 0, 0, 0, 1], n_judged)
        qrels += [f"{q} 0 {d} {g}\n" for d, g in zip(pool, grades, strict=True)]
        docs = list(rng.choice(pool, 350, replace=False))
        docs += [f"LA{rng.integers(10**6):06d}-{i}" for i in range(150)]
        for r, d in enumerate(docs):
            run.append(f"{q}\tQ0\t{d}\t{r}\t{rng.uniform(0, 5):10.6f}\tSTANDARD\n")
    (folder / "prun").write_text("".join(run))
    (folder / "pqrels").write_text("".join(qrels))
    return str(folder / "prun"), str(folder / "pqrels")


def wall(argv, env=None) -> float:
    if callable(env):
        env = env()
    full_env = None if env is None else {**os.environ, **env}
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=full_env)
    return time.perf_counter() - start


def fresh_environment(folder: Path):
    """Empty folders for numba's cache and Python's bytecode, new per call."""
    counter = iter(range(10**6))

    def env():
        n = next(counter)
        return {
            "NUMBA_CACHE_DIR": str(folder / f"numba-{n}"),
            "PYTHONPYCACHEPREFIX": str(folder / f"pycache-{n}"),
        }

    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="skndcg-startup-") as tmp:
        run, qrels, lines = make_files(Path(tmp))
        prun, pqrels = make_padded(Path(tmp))
        padded = [py, "-m", "skndcg", "score", prun, "--qrels", pqrels]
        padded_q = [py, "-m", "skndcg", "trec_eval", "-q", "-m", "all_trec",
                    pqrels, prun]  # fmt: skip
        compiled = {"SKNDCG_PLAIN_CELLS": "0"}
        score = [py, "-m", "skndcg", "score", run, "--qrels", qrels]
        trec_eval = [py, "-m", "skndcg", "trec_eval", qrels, run]
        (Path(tmp) / "o").mkdir()
        pytrec = [py, "-c", PYTREC, run, qrels]
        commands = {
            "python": ([py, "-c", "pass"], None),
            "version": ([py, "-m", "skndcg", "--version"], None),
            "score": (score, None),
            "score, first run": (score, fresh_environment(Path(tmp))),
            "score, compiled road": (score, compiled),
            "pytrec_eval": ([*pytrec, SIX], None),
            "trec_eval official": (trec_eval, None),
            "  first run": (trec_eval, fresh_environment(Path(tmp) / "o")),
            "pytrec_eval official": ([*pytrec, OFFICIAL], None),
            "results.test score": (padded, None),
            "  compiled road": (padded, compiled),
            "results.test -q all": (padded_q, None),
            "  compiled road ": (padded_q, compiled),
        }
        for argv in (score, trec_eval, padded, padded_q):  # fills numba's cache
            wall(argv, compiled)
        times = {name: [] for name in commands}
        for _ in range(args.repeat):  # interleaved: drift hits every tool alike
            for name, (argv, env) in commands.items():
                times[name].append(wall(argv, env))
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"DL19-shaped run: {lines} lines, {N_QUERIES} queries; median of "
          f"{args.repeat} fresh processes (wall)")  # fmt: skip
    print(f"{'command':<22}{'median s':>10}{'min s':>9}{'x pytrec_eval':>15}")
    print("(the official rows against pytrec_eval official)")
    padded_rows = list(commands)[list(commands).index("results.test score") :]
    for name in commands:
        official = "official" in name or name.startswith(" ")
        peer = "pytrec_eval official" if official else "pytrec_eval"
        ratio = "-" if name in padded_rows else f"{med[name] / med[peer]:.2f}"
        print(f"{name:<22}{med[name]:>10.3f}{min(times[name]):>9.3f}{ratio:>15}")
    targets = (("score", 0.4), ("score, first run", 5.0),
               ("trec_eval official", 0.4), ("  first run", 5.0),
               ("results.test score", 0.5), ("results.test -q all", 0.5))  # fmt: skip
    for name, limit in targets:
        verdict = "met" if med[name] <= limit else "not met"
        print(f"target: {name} <= {limit} s wall: {med[name]:.3f} s, {verdict}")


if __name__ == "__main__":
    main()
