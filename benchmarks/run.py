"""Grouped NDCG@10: skndcg against its peers, each tool in its own process.

Usage (``make bench`` runs the default plan)::

    python benchmarks/run.py                      # default plan, writes results + table
    python benchmarks/run.py --workloads B --tools skndcg,sklearn_ties --repeats 3
    python benchmarks/run.py --report             # table from the saved results only

Inputs are generated once and cached as ``.npy`` under ``benchmarks/.data/`` (never
timed). Each (tool, workload, variant) runs in a fresh subprocess that calls the
tool once on a tiny input (imports, JIT cache, thread pool), loads the inputs,
makes a first full call, then times at least ``--repeats`` calls (fast tools up to
40 or 3 s) and reports the median, the first full call, and the peak RSS above the
RSS right after the inputs were loaded. Ratios are only meaningful between tools
of the same run: the machine is shared and absolute times drift.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
RESULTS = HERE / "results" / "ndcg.jsonl"

WORKLOADS = {
    # name: (n_queries, size rule)
    "A": (10_000, 100),
    "B": (100_000, 50),
    "C": (1_000_000, 50),
    "D": (200_000, "zipf"),
}
# Tools too slow or too large for a workload are left out of the default plan.
DEFAULT_PLAN = [
    (
        "B",
        "sorted",
        "floor_sum,floor_argsort,skndcg,skndcg_1thread,sklearn_ties,"
        "sklearn_noties,numpy_lexsort,pytrec_eval,ranx",
    ),
    (
        "B",
        "shuf",
        "floor_sum,floor_argsort,skndcg,skndcg_1thread,skndcg_family,sklearn_ties,"
        "sklearn_noties,numpy_lexsort,pytrec_eval,ranx",
    ),
    (
        "D",
        "sorted",
        "floor_sum,floor_argsort,skndcg,skndcg_1thread,numpy_lexsort,pytrec_eval",
    ),
    ("D", "shuf", "floor_sum,floor_argsort,skndcg,skndcg_1thread,numpy_lexsort"),
    (
        "C",
        "sorted",
        "floor_sum,floor_argsort,skndcg,skndcg_1thread,sklearn_ties,sklearn_noties",
    ),
    ("C", "shuf", "floor_sum,skndcg,skndcg_1thread"),
    ("B", "sorted", "skndcg_family,skndcg"),
    (
        "B",
        "sorted",
        "skndcg_rprec,pytrec_eval_rprec,skndcg_bpref,pytrec_eval_bpref,"
        "skndcg_rbp,ranx_rbp,skndcg_judged,ir_measures_judged",
    ),
]


# ---------------------------------------------------------------------- inputs
def _sizes(name: str, rng) -> np.ndarray:
    n_queries, rule = WORKLOADS[name]
    if rule == "zipf":
        # Truncated Zipf(1.52) on 1..5000: many tiny queries, a few huge ones.
        support = np.arange(1, 5001)
        p = support**-1.52
        return rng.choice(support, size=n_queries, p=p / p.sum())
    return np.full(n_queries, rule)


def generate(name: str) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    if (DATA / f"{name}_y.npy").exists():
        return
    rng = np.random.default_rng(2026)
    sizes = _sizes(name, rng)
    qid = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    y = rng.choice(5, size=qid.size, p=[0.60, 0.18, 0.11, 0.07, 0.04]).astype(np.int64)
    s = np.round(0.5 * y + rng.standard_normal(qid.size), 3)
    perm = rng.permutation(qid.size)
    np.save(DATA / f"{name}_y.npy", y)
    np.save(DATA / f"{name}_s.npy", s)
    np.save(DATA / f"{name}_q.npy", qid)
    np.save(DATA / f"{name}_perm.npy", perm)


def load(name: str, variant: str):
    y = np.load(DATA / f"{name}_y.npy")
    s = np.load(DATA / f"{name}_s.npy")
    q = np.load(DATA / f"{name}_q.npy")
    if variant == "shuf":
        perm = np.load(DATA / f"{name}_perm.npy")
        y, s, q = y[perm], s[perm], q[perm]
    return y, s, q


# ----------------------------------------------------------------------- tools
def _dense(y, s, q):
    """Flat arrays to sklearn's padded (n_queries, max_size) matrices."""
    codes, _ = _codes(q)
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pos = np.arange(q.size) - np.repeat(starts, sizes)
    Y = np.zeros((sizes.size, sizes.max()))
    S = np.full((sizes.size, sizes.max()), s.min() - 1.0)
    Y[codes[order], pos] = y[order]
    S[codes[order], pos] = s[order]
    return Y, S


def _codes(q):
    uniq, codes = np.unique(q, return_inverse=True)
    return codes, uniq


def tool_skndcg(y, s, q):
    from skndcg.metrics import grouped_ndcg_score

    return grouped_ndcg_score(y, s, q, k=10, empty="zero")


def tool_skndcg_family(y, s, q):
    from skndcg.metrics import grouped_ranking_scores

    names = ["ndcg@5", "ndcg@10", "map@10", "mrr", "p@10", "r@10"]
    return grouped_ranking_scores(y, s, q, names, empty="zero")["ndcg@10"]


def tool_sklearn_ties(y, s, q):
    from sklearn.metrics import ndcg_score

    return ndcg_score(*_dense(y, s, q), k=10)


def tool_sklearn_noties(y, s, q):
    from sklearn.metrics import ndcg_score

    return ndcg_score(*_dense(y, s, q), k=10, ignore_ties=True)


def tool_numpy_lexsort(y, s, q):
    """Sort-based NDCG@10 in plain numpy (ties broken by position)."""
    order = np.lexsort((-s, q))
    qs, ys = q[order], y[order]
    start = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]])
    rank = np.arange(q.size) - np.repeat(start, np.diff(np.r_[start, q.size]))
    top = rank < 10
    disc = 1.0 / np.log2(rank + 2.0)
    dcg = np.bincount(
        np.repeat(np.arange(start.size), np.diff(np.r_[start, q.size])),
        weights=np.where(top, ys * disc, 0.0),
    )
    ideal = np.lexsort((-y, q))
    yi = y[ideal]
    idcg = np.bincount(
        np.repeat(np.arange(start.size), np.diff(np.r_[start, q.size])),
        weights=np.where(top, yi * disc, 0.0),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.mean(np.where(idcg > 0, dcg / idcg, 0.0)))


def _ids(y, s, q):
    codes, _ = _codes(q)
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    qrels, run = {}, {}
    yo, so = y[order], s[order]
    for g in range(sizes.size):
        a, b = bounds[g], bounds[g + 1]
        docs = [f"d{i}" for i in range(b - a)]
        qrels[f"q{g}"] = dict(zip(docs, map(int, yo[a:b]), strict=True))
        run[f"q{g}"] = dict(zip(docs, map(float, so[a:b]), strict=True))
    return qrels, run


def tool_pytrec_eval(y, s, q):
    import pytrec_eval

    qrels, run = _ids(y, s, q)
    res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    return float(np.mean([v["ndcg_cut_10"] for v in res.values()]))


def tool_ranx(y, s, q):
    from ranx import Qrels, Run, evaluate

    qrels, run = _ids(y, s, q)
    return float(evaluate(Qrels(qrels), Run(run), "ndcg@10"))


# The measures added through the registry, each beside its peer (the peers are
# timed with their input conversion, as for NDCG@10 above).
def _ours(name):
    from skndcg.metrics import grouped_ranking_scores

    def run(y, s, q):
        return grouped_ranking_scores(y, s, q, [name], convention="trec_eval")[name]

    return run


tool_skndcg_rprec = _ours("rprec")
tool_skndcg_bpref = _ours("bpref")
tool_skndcg_rbp = _ours("rbp(p=0.8)")
tool_skndcg_judged = _ours("judged@10")


def _trec(measure):
    def run(y, s, q):
        import pytrec_eval

        qrels, run = _ids(y, s, q)
        res = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
        return float(np.mean([v[measure] for v in res.values()]))

    return run


tool_pytrec_eval_rprec = _trec("Rprec")
tool_pytrec_eval_bpref = _trec("bpref")


def tool_ranx_rbp(y, s, q):
    from ranx import Qrels, Run, evaluate

    qrels, run = _ids(y, s, q)
    return float(evaluate(Qrels(qrels), Run(run), "rbp.8"))


def tool_ir_measures_judged(y, s, q):
    import ir_measures

    qrels, run = _ids(y, s, q)
    return float(
        ir_measures.calc_aggregate([ir_measures.Judged @ 10], qrels, run)[
            ir_measures.Judged @ 10
        ]
    )


def tool_floor_sum(y, s, q):
    return float(y.sum() + s.sum() + q.sum())


def tool_floor_argsort(y, s, q):
    return float(np.argsort(s)[0])


TOOLS = {name[5:]: fn for name, fn in globals().items() if name.startswith("tool_")}
TOOLS["skndcg_1thread"] = tool_skndcg


# ------------------------------------------------------------------- one run
def _status_mib(field: str) -> float:
    """A memory line of /proc/self/status (VmRSS now, VmHWM the peak), in MiB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reset_peak() -> None:
    # Linux: writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS.
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def run_one(tool: str, workload: str, variant: str, repeats: int) -> dict:
    if tool == "skndcg_1thread":
        # Read on every call: the engine's thread pool then uses one thread.
        os.environ["SKNDCG_NUM_THREADS"] = "1"
    fn = TOOLS[tool]
    # Warm up on a tiny input first: imports, compiled code and thread pools are
    # fixed costs, reported as import_mib, not as the tool's memory per call.
    before_import = _status_mib("VmRSS")
    tiny = np.arange(40)
    fn(tiny % 3, np.sin(tiny), tiny // 8)
    import_mib = _status_mib("VmRSS") - before_import
    y, s, q = load(workload, variant)
    for a in (y, s, q):
        a.sum()  # touch the pages: the inputs count in the base, not the tool
    _reset_peak()
    base = _status_mib("VmRSS")
    t0 = time.perf_counter()
    value = fn(y, s, q)
    first = time.perf_counter() - t0
    # At least ``repeats`` timed calls; fast tools keep going (up to 40 calls or
    # 3 s) so that their median is not at the mercy of a few noisy samples.
    times = []
    started = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        fn(y, s, q)
        times.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - started
        if len(times) >= repeats and (elapsed > 3.0 or len(times) >= 40):
            break
        if elapsed > 300:
            break
    input_mib = (y.nbytes + s.nbytes + q.nbytes) / 2**20
    return {
        "tool": tool,
        "workload": workload,
        "variant": variant,
        "rows": int(q.size),
        "median_s": statistics.median(times),
        "runs": len(times),
        "first_s": first,
        "value": float(value),
        "input_mib": input_mib,
        "base_mib": base,
        "import_mib": import_mib,
        "extra_peak_mib": max(0.0, _status_mib("VmHWM") - base),
        "load1": os.getloadavg()[0],
    }


def _subprocess(tool, workload, variant, repeats) -> dict | None:
    cmd = [sys.executable, __file__, "--one", tool, workload, variant, str(repeats)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        print(f"  {tool} {workload}/{variant} failed:\n{proc.stderr[-2000:]}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------- report
def report(records: list[dict]) -> str:
    latest = {}
    for r in records:
        latest[(r["workload"], r["variant"], r["tool"])] = r
    lines = []
    for wl, variant in dict.fromkeys((k[0], k[1]) for k in latest):
        rows = [r for k, r in latest.items() if k[:2] == (wl, variant)]
        ref = latest.get((wl, variant, "skndcg"))
        n = rows[0]["rows"]
        order = "shuffled" if variant == "shuf" else variant
        lines.append(f"\n#### Workload {wl} ({n:,} rows), qid {order}\n")
        lines.append(
            "| tool | median s | runs | x skndcg | first call s | "
            "extra peak MiB (x inputs) | NDCG@10 |"
        )
        lines.append("|---|---|---|---|---|---|---|")
        for r in sorted(rows, key=lambda r: r["median_s"]):
            ratio = f"{r['median_s'] / ref['median_s']:.1f}" if ref else ""
            extra = r["extra_peak_mib"]
            mem = f"{extra:.0f} ({extra / r['input_mib']:.2f})"
            value = "" if r["tool"].startswith("floor") else f"{r['value']:.10f}"
            lines.append(
                f"| {r['tool']} | {r['median_s']:.4g} | {r['runs']} | {ratio} | "
                f"{r['first_s']:.3g} | {mem} | {value} |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", help="comma-separated, e.g. B,D")
    parser.add_argument("--variants", default="sorted,shuf")
    parser.add_argument("--tools", help="comma-separated tool names")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--report", action="store_true", help="only print the table")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        tool, wl, variant, repeats = args.one
        print(json.dumps(run_one(tool, wl, variant, int(repeats))))
        return 0
    if not args.report:
        if args.workloads or args.tools:
            wls = (args.workloads or "B").split(",")
            plan = [
                (w, v, args.tools or "skndcg,floor_sum,floor_argsort")
                for w in wls
                for v in args.variants.split(",")
            ]
        else:
            plan = DEFAULT_PLAN
        import numba
        import sklearn

        print(
            f"python {platform.python_version()}, numpy {np.__version__}, "
            f"scikit-learn {sklearn.__version__}, numba {numba.__version__}, "
            f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}"
        )
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        for wl, variant, tools in plan:
            generate(wl)
            for tool in tools.split(","):
                rec = _subprocess(tool, wl, variant, args.repeats)
                if rec is None:
                    continue
                print(
                    f"  {wl}/{variant:6s} {tool:16s} median {rec['median_s']:.4f} s "
                    f"(first {rec['first_s']:.3f} s, +{rec['extra_peak_mib']:.0f} MiB)"
                )
                with RESULTS.open("a") as fh:
                    fh.write(json.dumps(rec) + "\n")
    records = (
        [json.loads(x) for x in RESULTS.read_text().splitlines()]
        if RESULTS.exists()
        else []
    )
    print(report(records))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
