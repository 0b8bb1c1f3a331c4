"""``skndcg score`` and ``trec_eval`` without the compiler give the compiled output.

Small inputs in a process that has not loaded numba are read by the numpy join
(``skndcg/io/_plainjoin.py``) and scored by the kernels' Python functions
(``skndcg/_native/_jit.no_compile``). Every case here runs the command twice,
once on that road (forced with ``no_compile``) and once compiled
(``SKNDCG_PLAIN_CELLS=0``), and compares standard output, standard error and
the exit code byte for byte; a spy checks which join really ran. The numpy
join also serves the compiled road when the documents nobody judged are told
apart (-J, and measures such as bpref that the official and all_trec sets hold).
"""

import gzip
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg._native._jit import no_compile
from skndcg.cli import main
from skndcg.io import _plainjoin

PADDING = ["\t", " ", "  \t ", "\t  "]


def write_case(folder, seed, *, n_queries=12, docs=40, float32_ties=False):
    """A random run and qrels: ties, unjudged and unretrieved documents, grades
    -2..4, judged queries with nothing relevant, run-only and qrels-only
    queries, query ids that sort differently as text and as numbers, and
    fields apart by tabs and padded spaces (as trec_eval's ``results.test``)."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []

    def line(*fields):
        gaps = [PADDING[i] for i in rng.integers(0, len(PADDING), len(fields) - 1)]
        return "".join(f + g for f, g in zip(fields, [*gaps, ""], strict=True)) + "\n"

    for q in range(n_queries):
        qid = f"{rng.integers(1, 300)}" if q % 4 else f"q{q:02d}"
        pool = [f"D{rng.integers(0, docs)}" for _ in range(rng.integers(1, 25))]
        pool = list(dict.fromkeys(pool))
        if q % 5 != 4:  # a few queries only in the run
            for d in pool[: rng.integers(1, len(pool) + 1)]:
                grade = 0 if q % 6 == 3 else int(rng.integers(-2, 5))
                qrels.append((qid, d, line(qid, "0", d, str(grade))))
        if q % 7 != 6:  # a few judged queries without results
            ranked = list(dict.fromkeys(pool + [f"U{i}" for i in range(5)]))
            for d in rng.permutation(ranked)[: rng.integers(1, len(ranked) + 1)]:
                if float32_ties:
                    score = f"{1 + rng.integers(0, 3) * 1e-9:.12f}"
                else:
                    score = f"{rng.integers(0, 6) / 4:.2f}"
                run.append(line(qid, "Q0", d, "0", score, f"run{seed}"))
    seen, unique = set(), []
    for qid, d, text in qrels:
        if (qid, d) not in seen:
            seen.add((qid, d))
            unique.append(text)
    (folder / "run").write_text("".join(rng.permutation(run)))
    (folder / "qrels").write_text("".join(unique))
    return str(folder / "run"), str(folder / "qrels")


@pytest.fixture
def spy(monkeypatch):
    taken = []
    real = _plainjoin.join

    def watch(*args, **kwargs):
        try:
            result = real(*args, **kwargs)
        except ValueError:
            taken.append("error")
            raise
        taken.append(result is not None)
        return result

    monkeypatch.setattr(_plainjoin, "join", watch)
    return taken


def _joins(flags):
    """The numpy join's runs: on the plain road, and on the compiled one too
    when the flags tell the documents nobody judged apart."""
    tells = {"-J", "official", "all_trec"} & set(flags)
    return [True, True] if tells else [True]


def _call(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def both(capsys, monkeypatch, argv):
    """(the plain road's output, the compiled road's output)."""
    out = []
    for plain in (True, False):
        monkeypatch.setenv("SKNDCG_PLAIN_CELLS", "0")
        with no_compile(plain):
            code = _call(argv)
        o, e = capsys.readouterr()
        out.append((code, o, e))
    return out


SCORE_FLAGS = [
    [],
    ["--format", "trec"],
    ["--format", "json"],
    ["-c", "--format", "json"],
    ["-l", "2", "--format", "csv"],
    ["--metrics", "nDCG@10", "P@5", "R@3", "mrr", "map", "err@5", "--format", "csv"],
    ["--metrics", "ndcg@3", "--fail-under", "ndcg@3=0.99"],
    ["-m", "official", "-c", "-l", "2", "--format", "trec"],
    ["-m", "all_trec", "-q", "-J", "--format", "trec"],
    ["--per-query", "-", "-m", "all_trec"],
    ["--convention", "ranx", "--metrics", "ndcg@5", "map", "--format", "csv"],
]  # fmt: skip
TREC_FLAGS = [
    ["-m", "all_trec", "-q"],
    ["-m", "all_trec", "-q", "-c"],
    ["-m", "all_trec", "-q", "-c", "-M", "4"],
    ["-m", "all_trec", "-q", "-J"],
    ["-m", "all_trec", "-q", "-J", "-c"],
    ["-m", "all_trec", "-m", "relstring.20", "-q", "-l", "2"],
    ["-m", "all_trec", "-q", "-M", "3", "-l", "3"],
    ["-q", "-m", "P.5,7,3", "-m", "ndcg.1=3,2=9,4=4.5", "-m", "11pt_avg..25,.5"],
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("flags", SCORE_FLAGS, ids=" ".join)
def test_score_random_runs_give_the_compiled_output(
    tmp_path, capsys, monkeypatch, spy, seed, flags
):
    run, qrels = write_case(tmp_path, seed, float32_ties=seed == 3)
    plain, compiled = both(
        capsys, monkeypatch, ["score", run, "--qrels", qrels, *flags]
    )
    assert spy == _joins(flags)
    assert plain == compiled


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("flags", TREC_FLAGS, ids=" ".join)
def test_trec_eval_random_runs_give_the_compiled_output(
    tmp_path, capsys, monkeypatch, spy, seed, flags
):
    run, qrels = write_case(tmp_path, seed, float32_ties=seed == 3)
    plain, compiled = both(capsys, monkeypatch, ["trec_eval", *flags, qrels, run])
    assert spy == _joins(flags)
    assert plain == compiled


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n_queries=st.integers(1, 6))
def test_property_plain_equals_compiled(tmp_path_factory, seed, n_queries):
    import contextlib
    import io
    import os

    folder = tmp_path_factory.mktemp("case")
    run, qrels = write_case(folder, seed, n_queries=n_queries, docs=8)
    outs = []
    os.environ["SKNDCG_PLAIN_CELLS"] = "0"
    try:
        for plain in (True, False):
            for flag in ("-c", "-J"):
                argv = ["trec_eval", "-q", flag, "-m", "all_trec", qrels, run]
                out, err = io.StringIO(), io.StringIO()
                with (
                    contextlib.redirect_stdout(out),
                    contextlib.redirect_stderr(err),
                    no_compile(plain),
                ):
                    code = _call(argv)
                outs.append((code, out.getvalue(), err.getvalue()))
    finally:
        del os.environ["SKNDCG_PLAIN_CELLS"]
    assert outs[:2] == outs[2:]


def _rewrite(path, fn):
    with open(path, "rb") as fh:
        data = fh.read()
    with open(path, "wb") as fh:
        fh.write(fn(data))


# Files the numpy join reads (True), refuses with the line reader's message
# ("error") or leaves to the other roads (False): the output is the same.
RUN_FILES = {
    "plus sign": (lambda d: d.replace(b"\t0.", b"\t+0.", 1), True),
    "digit separator": (lambda d: d.replace(b"\t0.", b"\t0_0.", 1), "error"),
    "exponent": (lambda d: d.replace(b"\t0.", b"\t0.0e1", 1), True),
    "gzip": (gzip.compress, True),
    "crlf": (lambda d: d.replace(b"\n", b"\r\n"), True),
    "blank line": (lambda d: d + b"\n \n", True),
    "no last newline": (lambda d: d[:-1], True),
    "extra field": (lambda d: d.replace(b"\n", b" x\n", 1), True),
    "comment": (lambda d: b"# a comment\n" + d, True),
    "non-ascii": (lambda d: d.replace(b"D", "\u00e9".encode(), 1), True),
    "nan score": (lambda d: d.replace(b"\t0.", b"\tnan ", 1), "error"),
    "duplicated row": (lambda d: d + d.split(b"\n", 1)[0] + b"\n", "error"),
    "four fields": (lambda d: d + b"q1 Q0 D1 1\n", "error"),
}


@pytest.mark.parametrize("case", RUN_FILES)
def test_other_run_files_give_the_same_output(tmp_path, capsys, monkeypatch, spy, case):
    change, read = RUN_FILES[case]
    run, qrels = write_case(tmp_path, 6)
    _rewrite(run, change)
    plain, compiled = both(
        capsys, monkeypatch, ["score", run, "--qrels", qrels, "--format", "csv"]
    )
    assert spy == [read]
    assert plain == compiled


@pytest.mark.parametrize(
    "case, read",
    [("duplicated judgment", "error"), ("decimal grade", "error"),
     ("three fields", "error")],
)  # fmt: skip
def test_odd_qrels_give_the_same_output(tmp_path, capsys, monkeypatch, spy, case, read):
    run, qrels = write_case(tmp_path, 8)
    change = {
        "duplicated judgment": lambda d: d + d.split(b"\n", 1)[0] + b"\n",
        "decimal grade": lambda d: d.replace(b"\n", b".5\n", 1),
        "three fields": lambda d: d + b"q1 0 D1\n",
    }[case]
    _rewrite(qrels, change)
    plain, compiled = both(capsys, monkeypatch, ["score", run, "--qrels", qrels])
    assert spy == [read]
    assert plain == compiled


def test_the_plain_road_loads_neither_numba_nor_pandas(tmp_path):
    run, qrels = write_case(tmp_path, 10)
    code = (
        "import sys\n"
        "from skndcg.cli import main\n"
        f"assert main(['score', {run!r}, '--qrels', {qrels!r}]) == 0\n"
        f"assert main(['trec_eval', '-q', '-c', '-m', 'all_trec', {qrels!r}, "
        f"{run!r}]) == 0\n"
        "print(sorted(m for m in ('numba', 'pandas', 'scipy') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"
