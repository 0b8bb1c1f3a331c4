"""Time and memory of ``skndcg score`` on a large TREC run.

Target (issue 14): scoring a run against its qrels takes at most 3 times as long
as pandas takes to read the same file as a CSV, with peak memory at most 3 times
the file size. Each measurement runs in a fresh process (Linux: peak resident
memory from /proc); the memory of the interpreter and imports, measured before
the work starts, is reported apart from what the work adds. Before its timer
starts, each process touches and frees 3 GiB (``WARM_BYTES``), whatever it
measures; ``--cold-memory`` leaves that out.

The run mimics a TREC ad hoc run: 1,000 documents per query, docnos drawn from a
corpus of 2 million, scores with four decimals (so some tie); the qrels judge
60 documents per query, a third of them relevant, half of those not retrieved.

Run from the project root::

    python benchmarks/bench_trec.py [--lines 10000000] [--repeat 3] [--modes ...]
        [--cold-memory]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

PER_QUERY = 1_000
CORPUS = 2_000_000
# Memory each measured process touches and frees before its timer starts, for
# every mode alike. Some virtual machines back guest memory lazily: the first
# touch of a page the guest has not used yet costs far more than an ordinary
# page fault (on the machine of docs/performance.md, about 5 to 10 ms per MB
# against 0.15 ms once backed), so that without the warm-up the timings mostly
# measure how much never-used memory each process happened to be handed.
# --cold-memory measures without it.
WARM_BYTES = 3 << 30

_CHILD = r"""
import json, sys, time
mode, run, qrels = sys.argv[1:4]
warm = int(sys.argv[4])

def status(field):
    # VmHWM is this process's own peak (ru_maxrss would include the parent's
    # memory at fork); VmRSS is the memory in use now.
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024

import numpy, pandas
if mode != "pandas":
    from skndcg.cli import main
    from skndcg.io import _join, read_trec_qrels, read_trec_run
    import skndcg.cli._score, skndcg.metrics
if warm:
    # Touch and free this much memory first, then restart the peak count: the
    # work then gets pages the system has already backed (see WARM_BYTES).
    block = numpy.ones(warm // 8)
    del block
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # resets VmHWM
base = status("VmRSS")
start = time.perf_counter()
if mode == "pandas":
    frame = pandas.read_csv(run, sep=" ", header=None)
    assert len(frame) > 0
elif mode == "io":
    coded = _join.join_codes(read_trec_run(run), read_trec_qrels(qrels))
    assert len(coded.y_true) > 0
else:
    import contextlib, io
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["score", run, "--qrels", qrels, "--format", "json"])
    assert code == 0, code
seconds = time.perf_counter() - start
peak = status("VmHWM")
print(json.dumps({"seconds": seconds, "peak": peak, "base": base}))
"""


def make_files(folder, n_lines, seed=0):
    """Write a run of ``n_lines`` lines and its qrels; return their paths."""
    rng = np.random.default_rng(seed)
    n_queries = max(1, n_lines // PER_QUERY)
    qid = np.repeat(np.arange(n_queries) + 301, PER_QUERY)[:n_lines]
    # Unique documents within a query: a random start, then a stride that
    # cannot wrap around the corpus within PER_QUERY steps.
    start = rng.integers(0, CORPUS, size=n_queries)[qid - 301]
    doc = (start + np.arange(n_lines) % PER_QUERY * 1999) % CORPUS
    score = np.round(rng.gamma(2.0, 3.0, size=n_lines), 4)
    rank = np.arange(n_lines) % PER_QUERY + 1
    run = pd.DataFrame(
        {
            "qid": qid,
            "q0": "Q0",
            "doc": pd.Series(doc).map("D{:07d}".format),
            "rank": rank,
            "score": score,
            "tag": "bench",
        }
    )
    run_path = os.path.join(folder, "run.txt")
    run.to_csv(run_path, sep=" ", header=False, index=False, float_format="%.4f")
    judged = []
    for q in range(n_queries):
        rows = run.iloc[q * PER_QUERY : q * PER_QUERY + 30]
        extra = rng.integers(0, CORPUS, 30)
        docs = list(dict.fromkeys([*rows["doc"], *map("E{:07d}".format, extra)]))
        rel = rng.choice([0, 0, 1, 2], size=len(docs))
        judged.append(pd.DataFrame({"qid": q + 301, "it": 0, "doc": docs, "rel": rel}))
    qrels_path = os.path.join(folder, "qrels.txt")
    pd.concat(judged).to_csv(qrels_path, sep=" ", header=False, index=False)
    return run_path, qrels_path


def measure(mode, run, qrels, warm=0):
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, run, qrels, str(warm)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{mode} failed:\n{out.stderr}")
    import json

    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--modes",
        nargs="+",
        default=["pandas", "io", "score"],
        help="pandas: pandas.read_csv of the run; io: read and join only; "
        "score: the whole skndcg score command",
    )
    parser.add_argument(
        "--cold-memory",
        action="store_true",
        help="skip the memory warm-up: each process gets whatever pages the "
        "system hands out (see WARM_BYTES)",
    )
    args = parser.parse_args(argv)
    warm = 0 if args.cold_memory else WARM_BYTES
    print(f"python {platform.python_version()}, {os.cpu_count()} cores")
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print(
        f"memory warm-up per process: {warm / 2**30:.0f} GiB"
        if warm
        else "memory warm-up: none (--cold-memory)"
    )
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        run, qrels = make_files(folder, args.lines)
        size = os.path.getsize(run)
        print(
            f"run: {args.lines:,} lines, {size / 1e6:.0f} MB "
            f"(written in {time.perf_counter() - t0:.0f} s); qrels "
            f"{os.path.getsize(qrels) / 1e6:.1f} MB"
        )
        results = {mode: [] for mode in args.modes}
        for _ in range(args.repeat):
            for mode in results:  # alternate, so both see the same machine load
                results[mode].append(measure(mode, run, qrels, warm))
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    best = {m: min(r, key=lambda x: x["seconds"]) for m, r in results.items()}
    for mode, r in best.items():
        added = max(x["peak"] - x["base"] for x in results[mode])
        print(
            f"{mode:>7}: best {r['seconds']:.2f} s of {args.repeat}; peak "
            f"{max(x['peak'] for x in results[mode]) / 1e6:.0f} MB, of which "
            f"{added / 1e6:.0f} MB added by the work "
            f"({added / size:.2f} x file size)"
        )
    for mode in results:
        if mode == "pandas" or "pandas" not in results:
            continue
        ratio = best[mode]["seconds"] / best["pandas"]["seconds"]
        added = max(x["peak"] - x["base"] for x in results[mode])
        print(
            f"{mode}: time / pandas.read_csv {ratio:.2f}, added peak memory / "
            f"file size {added / size:.2f} (targets for score: <= 3 and <= 3)"
        )


if __name__ == "__main__":
    main()
