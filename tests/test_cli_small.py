"""``skndcg score``'s path without compiled kernels gives the compiled path's output.

Small TREC runs are scored with numpy alone (``skndcg/cli/_small.py``). Every
case here runs the command twice, once on that path and once with it turned
off (``SKNDCG_SMALL_BYTES=0``), and compares standard output, standard error
and the exit code byte for byte; a spy checks which path really ran.
"""

import gzip
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.cli import _small, main


def write_case(folder, seed, *, n_queries=12, docs=40, float32_ties=False):
    """A random run and qrels: ties, unjudged and unretrieved documents, grades
    -2..4, judged queries with nothing relevant, run-only and qrels-only
    queries, and query ids that sort differently as text and as numbers."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(n_queries):
        qid = f"{rng.integers(1, 300)}" if q % 4 else f"q{q:02d}"
        pool = [f"D{rng.integers(0, docs)}" for _ in range(rng.integers(1, 25))]
        pool = list(dict.fromkeys(pool))
        if q % 5 != 4:  # a few queries only in the run
            for d in pool[: rng.integers(1, len(pool) + 1)]:
                grade = 0 if q % 6 == 3 else int(rng.integers(-2, 5))
                qrels.append(f"{qid} 0 {d} {grade}\n")
        if q % 7 != 6:  # a few judged queries without results
            ranked = list(dict.fromkeys(pool + [f"U{i}" for i in range(5)]))
            for d in rng.permutation(ranked)[: rng.integers(1, len(ranked) + 1)]:
                if float32_ties:
                    score = f"{1 + rng.integers(0, 3) * 1e-9:.12f}"
                else:
                    score = f"{rng.integers(0, 6) / 4:.2f}"
                run.append(f"{qid} Q0 {d} 0 {score} run{seed}\n")
    qrels = list(dict.fromkeys(qrels))
    seen, unique = set(), []
    for row in qrels:
        key = tuple(row.split()[i] for i in (0, 2))
        if key not in seen:
            seen.add(key)
            unique.append(row)
    (folder / "run").write_text("".join(rng.permutation(run)))
    (folder / "qrels").write_text("".join(unique))
    return str(folder / "run"), str(folder / "qrels")


@pytest.fixture
def spy(monkeypatch):
    taken = []
    real = _small.score

    def watch(args, lines):
        result = real(args, lines)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(_small, "score", watch)
    return taken


def both(capsys, monkeypatch, spy, argv):
    """(small path's output, full path's output); the first must be small."""
    out = []
    for limit in (None, "0"):
        if limit is None:
            monkeypatch.delenv("SKNDCG_SMALL_BYTES", raising=False)
        else:
            monkeypatch.setenv("SKNDCG_SMALL_BYTES", limit)
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        o, e = capsys.readouterr()
        out.append((code, o, e))
    return out, list(spy)


FLAGS = [
    [],
    ["--format", "trec"],
    ["--format", "json"],
    ["--format", "csv"],
    ["--format", "md"],
    ["-c", "--format", "trec"],
    ["-c", "--format", "json"],
    ["-l", "2", "--format", "csv"],
    ["-l", "3", "-c", "--format", "trec"],
    ["-m", "P.5,10", "-m", "ndcg_cut.5,10", "-m", "recip_rank", "--format", "trec"],
    ["-m", "map", "-m", "num_q", "-m", "num_ret", "-m", "num_rel", "-m",
     "num_rel_ret", "-m", "runid", "--format", "trec"],
    ["-m", "num_rel", "-c", "--format", "trec"],
    ["--metrics", "nDCG@10", "P@5", "R@3", "mrr", "map", "--format", "csv"],
    ["--metrics", "ndcg@3", "--fail-under", "ndcg@3=0.99"],
    ["-m", "P.5", "--fail-under", "P_5=0.01", "--format", "json"],
    ["-m", "official", "--format", "trec"],
    ["-m", "official", "-c", "-l", "2", "--format", "trec"],
    ["-m", "official", "--format", "json"],
    ["--metrics", "bpref", "rprec", "gm_map", "iprec(recall=0.3)", "iprec",
     "--format", "csv"],
]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("flags", FLAGS, ids=" ".join)
def test_random_runs_give_the_compiled_output(
    tmp_path, capsys, monkeypatch, spy, seed, flags
):
    run, qrels = write_case(tmp_path, seed, float32_ties=seed == 3)
    (small, full), taken = both(
        capsys, monkeypatch, spy, ["score", run, "--qrels", qrels, *flags]
    )
    assert taken[0] is True
    assert small == full


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n_queries=st.integers(1, 6))
def test_property_small_equals_compiled(tmp_path_factory, seed, n_queries):
    folder = tmp_path_factory.mktemp("case")
    run, qrels = write_case(folder, seed, n_queries=n_queries, docs=8)
    outs = []
    for limit in (str(_small.SMALL_BYTES), "0"):
        env = {"SKNDCG_SMALL_BYTES": limit}
        outs.append(_run_cli(["score", run, "--qrels", qrels, "--format", "csv"], env))
        outs.append(_run_cli(["trec_eval", "-c", qrels, run], env))
    assert outs[0] == outs[2] and outs[1] == outs[3]


def _run_cli(argv, env):
    import contextlib
    import io
    import os

    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


def _rewrite(path, fn):
    with open(path, "rb") as fh:
        data = fh.read()
    with open(path, "wb") as fh:
        fh.write(fn(data))


# Spellings both paths read alike (Python's float()): the small path scores
# them. Files it cannot read exactly as the full readers do go to the full path.
RUN_FILES = {
    "plus sign": (lambda d: d.replace(b" 0.", b" +0.", 1), True),
    "digit separator": (lambda d: d.replace(b" 0.", b" 0_0.", 1), True),
    "tabs": (lambda d: d.replace(b" ", b"\t"), True),
    "exponent": (lambda d: d.replace(b" 0.", b" 0.0e1", 1), True),
    "gzip": (gzip.compress, False),
    "crlf": (lambda d: d.replace(b"\n", b"\r\n"), False),
    "comment": (lambda d: b"# a comment\n" + d, False),
    "blank line": (lambda d: d + b"\n", False),
    "no last newline": (lambda d: d[:-1], False),
    "two spaces": (lambda d: d.replace(b" ", b"  ", 1), False),
    "nan score": (lambda d: d.replace(b" 0.", b" nan ", 1), False),
    "extra field": (lambda d: d.replace(b"\n", b" x\n", 1), False),
    "duplicated row": (lambda d: d + d.split(b"\n", 1)[0] + b"\n", False),
    "non-ascii": (lambda d: d.replace(b"D", "\u00e9".encode(), 1), False),
}


@pytest.mark.parametrize("case", RUN_FILES)
def test_other_run_files_give_the_same_output(tmp_path, capsys, monkeypatch, spy, case):
    change, small_path = RUN_FILES[case]
    run, qrels = write_case(tmp_path, 6)  # a case the small path scores as is
    _rewrite(run, change)
    (small, full), taken = both(
        capsys, monkeypatch, spy, ["score", run, "--qrels", qrels, "--format", "csv"]
    )
    assert taken[0] is small_path
    assert small == full


@pytest.mark.parametrize(
    "case", ["duplicated judgment", "decimal grade", "three fields"]
)
def test_odd_qrels_take_the_full_path(tmp_path, capsys, monkeypatch, spy, case):
    run, qrels = write_case(tmp_path, 8)
    change = {
        "duplicated judgment": lambda d: d + d.split(b"\n", 1)[0] + b"\n",
        "decimal grade": lambda d: d.replace(b"\n", b".5\n", 1),
        "three fields": lambda d: d + b"q1 0 D1\n",
    }[case]
    _rewrite(qrels, change)
    (small, full), taken = both(
        capsys, monkeypatch, spy, ["score", run, "--qrels", qrels]
    )
    assert taken[0] is False
    assert small == full


@pytest.mark.parametrize(
    "flags",
    [["-q", "--format", "trec"], ["-J"], ["-M", "3"], ["--ci"], ["--strict"],
     ["--per-query", "-"], ["--convention", "ranx"], ["-m", "infAP"],
     ["-m", "ndcg.1=0.5,2=2"], ["--metrics", "err"]],
    ids=" ".join,
)  # fmt: skip
def test_other_options_take_the_full_path(tmp_path, capsys, monkeypatch, spy, flags):
    run, qrels = write_case(tmp_path, 9)
    _, taken = both(capsys, monkeypatch, spy, ["score", run, "--qrels", qrels, *flags])
    assert True not in taken


def test_the_small_path_loads_neither_numba_nor_pandas(tmp_path):
    run, qrels = write_case(tmp_path, 10)
    code = (
        "import sys\n"
        "from skndcg.cli import main\n"
        f"assert main(['score', {run!r}, '--qrels', {qrels!r}]) == 0\n"
        f"assert main(['trec_eval', '-c', {qrels!r}, {run!r}]) == 0\n"
        "print(sorted(m for m in ('numba', 'pandas', 'scipy') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_a_bad_limit_in_the_environment_turns_the_path_off(
    tmp_path, capsys, monkeypatch, spy
):
    run, qrels = write_case(tmp_path, 11)
    monkeypatch.setenv("SKNDCG_SMALL_BYTES", "lots")
    assert main(["score", run, "--qrels", qrels]) == 0
    assert spy == [False]
