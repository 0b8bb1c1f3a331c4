"""``skndcg score``: every output format, exit codes 0/1/2 and every bad file."""

import csv
import io
import json
import math
import os
from pathlib import Path

import pytest

from skndcg.cli import main

L2, L3, L4, L5 = (math.log2(i) for i in (2, 3, 4, 5))
PREDICTIONS = (
    "user,item,rating,pred\na,x,1,0.9\na,y,0,0.5\na,z,1,0.1\nb,u,0,0.8\nb,v,2,0.3\n"
)
# By hand (linear gain, log2 discount): query a ranks x(1) y(0) z(1), b ranks u(0) v(2).
PER_QUERY = {
    "a": {
        "ndcg": (1 + 1 / L4) / (1 + 1 / L3),
        "map": (1 + 2 / 3) / 2,
        "mrr": 1.0,
        "p@10": 0.2,
        "r@100": 1.0,
    },
    "b": {
        "ndcg": (2 / L3) / (2 / L2),
        "map": 0.5,
        "mrr": 0.5,
        "p@10": 0.1,
        "r@100": 1.0,
    },
}
METRICS = ["ndcg", "map", "mrr", "p@10", "r@100"]
MEANS = {m: (PER_QUERY["a"][m] + PER_QUERY["b"][m]) / 2 for m in METRICS}
COLS = ["--qid", "user", "--label", "rating", "--score", "pred"]
# --format trec: trec_eval's name of each metric, in the order trec_eval prints.
TREC_NAMES = {
    "map": "map",
    "recip_rank": "mrr",
    "P_10": "p@10",
    "recall_100": "r@100",
    "ndcg": "ndcg",
}
TREC_ORDER = list(TREC_NAMES)


@pytest.fixture
def predictions(tmp_path):
    path = tmp_path / "pred.csv"
    path.write_text(PREDICTIONS)
    return str(path)


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _score(capsys, path, *extra):
    return _run(capsys, "score", path, *COLS, "--metrics", *METRICS, *extra)


def test_json(capsys, predictions):
    code, out, err = _score(capsys, predictions, "--format", "json")
    assert code == 0 and err == ""
    result = json.loads(out)
    assert result["n_queries"] == 2
    assert list(result["mean"]) == METRICS
    assert result["mean"] == pytest.approx(MEANS, abs=1e-12)


def test_metric_names_are_kept_as_given(capsys, predictions):
    code, out, _ = _run(
        capsys,
        "score",
        predictions,
        *COLS,
        "--metrics",
        "NDCG",
        "P@10",
        "--format",
        "json",
    )
    assert code == 0
    assert json.loads(out)["mean"] == pytest.approx(
        {"NDCG": MEANS["ndcg"], "P@10": MEANS["p@10"]}, abs=1e-12
    )


def test_csv(capsys, predictions):
    code, out, _ = _score(capsys, predictions, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0
    assert [r["metric"] for r in rows] == METRICS
    for r in rows:
        assert float(r["mean"]) == pytest.approx(MEANS[r["metric"]], abs=1e-12)
        assert r["n_queries"] == "2"


def test_table_and_markdown(capsys, predictions):
    code, out, _ = _score(capsys, predictions)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["metric", "mean"]
    for m, line in zip(METRICS, lines[1:], strict=False):
        assert line.split() == [m, f"{MEANS[m]:.4f}"]
    assert lines[-1].split() == ["n_queries", "2"]
    code, out, _ = _score(capsys, predictions, "--format", "md")
    lines = out.splitlines()
    assert lines[0] == "| metric | mean |" and lines[1] == "|---|---:|"
    assert lines[2] == f"| ndcg | {MEANS['ndcg']:.4f} |"
    assert lines[-1] == "2 queries"


def test_trec_layout_with_and_without_per_query(capsys, predictions, tmp_path):
    code, out, _ = _score(capsys, predictions, "--format", "trec")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert all(len(r) == 3 for r in rows)
    # trec_eval's names, in trec_eval's order.
    assert [r[0].strip() for r in rows] == ["num_q", *TREC_ORDER]
    assert {r[1] for r in rows} == {"all"}
    assert rows[-1][2] == f"{MEANS['ndcg']:.4f}"
    out_csv = tmp_path / "per_query.csv"
    code, out, _ = _score(
        capsys, predictions, "--format", "trec", "--per-query", out_csv
    )
    rows = [[c.strip() for c in line.split("\t")] for line in out.splitlines()]
    per_query = [r for r in rows if r[1] != "all"]
    assert [(r[0], r[1]) for r in per_query] == [
        (m, q) for q in "ab" for m in TREC_ORDER
    ]
    for m, q, value in per_query:
        assert value == f"{PER_QUERY[q][TREC_NAMES[m]]:.4f}"


def test_per_query_file(capsys, predictions, tmp_path):
    out_csv = tmp_path / "per_query.csv"
    code, _, _ = _score(capsys, predictions, "--per-query", out_csv)
    assert code == 0
    rows = list(csv.DictReader(out_csv.open()))
    assert [r["qid"] for r in rows] == ["a", "b"]
    for r in rows:
        for m in METRICS:
            assert float(r[m]) == pytest.approx(PER_QUERY[r["qid"]][m], abs=1e-12)


def test_ci(capsys, tmp_path):
    # Six copies of the two queries: 12 queries, enough for an interval.
    body = "".join(
        line.replace("a,", f"a{i},", 1).replace("b,", f"b{i},", 1) + "\n"
        for i in range(6)
        for line in PREDICTIONS.splitlines()[1:]
    )
    path = tmp_path / "twelve.csv"
    path.write_text(PREDICTIONS.splitlines()[0] + "\n" + body)
    code, out, _ = _score(capsys, path, "--format", "json", "--ci")
    result = json.loads(out)
    assert code == 0 and result["n_queries"] == 12
    for m in METRICS:
        low, high = result["ci"][m]
        values = [PER_QUERY[q][m] for q in "ab"]
        assert min(values) - 1e-12 <= low <= result["mean"][m] <= high
        assert high <= max(values) + 1e-12
    code, out, _ = _score(capsys, path, "--ci")
    assert "95% CI" in out.splitlines()[0]


def test_ci_refused_below_ten_queries(capsys, predictions):
    code, out, err = _score(capsys, predictions, "--format", "json", "--ci")
    assert code == 0
    assert json.loads(out)["ci"]["ndcg"] == [None, None]
    assert "no interval for ndcg: only 2 queries count, fewer than 10" in err


def test_fail_under_exit_codes(capsys, predictions):
    code, _, err = _score(capsys, predictions, "--fail-under", "map=0.6", "mrr=0.7")
    assert (code, err) == (0, "")  # map 0.667, mrr 0.75
    code, _, err = _score(capsys, predictions, "--fail-under", "MAP=0.7", "mrr=0.7")
    assert code == 1
    assert err.strip() == "skndcg score: below threshold: map = 0.6667 < 0.7"


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["score"], "the following arguments are required: RUN"),
        (["score", "{p}", "--qid", "user"], "own with --label COL and --score COL"),
        (["score", "{p}", "--qrels", "{p}", "--qid", "user"], "--qid apply to pre"),
        (["score", "{p}", *COLS, "--metrics", "foo"], "unknown metric 'foo'"),
        (["score", "{p}", *COLS, "--fail-under", "map"], "expected METRIC=VALUE"),
        (["score", "{p}", *COLS, "--fail-under", "map=x"], "expected METRIC=VALUE"),
        (["score", "{p}", *COLS, "--fail-under", "p@5=0.1"], "not among the metrics"),
        (["score", "{p}", *COLS, "--depth", "0"], "expected a positive integer"),
        (["score", "{p}", *COLS, "--format", "xml"], "invalid choice: 'xml'"),
        (["score", "{p}", *COLS, "--convention", "nope"], "nope"),
        (["score", "{p}", *COLS, "--per-query", "/no/such/dir/x.csv"], "per-query"),
    ],
)
def test_usage_errors_exit_2_with_one_line(capsys, predictions, argv, match):
    argv = [a.replace("{p}", predictions) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert match in err


# ------------------------------------------------------------------ bad files

RUN = "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"
QRELS = "q1 0 d1 1\n"


@pytest.mark.parametrize(
    ("run", "qrels", "match"),
    [
        (None, QRELS, r"run file '.*run\.txt' does not exist"),
        (RUN, None, r"qrels file '.*qrels\.txt' does not exist"),
        ("", QRELS, r"run\.txt is empty"),
        (RUN, "# nothing\n", r"qrels\.txt is empty"),
        (RUN + "q1 Q0 d3 3\n", QRELS, r"run\.txt, line 3: expected 6"),
        ("q1 Q0 d1 1 two r\n", QRELS, r"run\.txt, line 1: the score 'two' is not a"),
        (RUN, "q1 0 d1 1\nq1 0 d2 one\n", r"qrels\.txt, line 2: the relevance 'one'"),
        (RUN, "q1 0 d1 1 x\n", r"qrels\.txt, line 1: expected 4 .* got 5"),
        (RUN, "q1 0 d1 1\nq1 0 d1 2\n", r"qrels\.txt, lines 1, 2: document 'd1'"),
        (RUN + "q1 Q0 d1 3 0.5 r\n", QRELS, r"run\.txt, lines 1, 3: document 'd1'"),
    ],
)
def test_bad_trec_files_exit_2_naming_file_and_line(
    capsys, tmp_path, run, qrels, match
):
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    if run is not None:
        run_path.write_text(run)
    if qrels is not None:
        qrels_path.write_text(qrels)
    code, out, err = _run(capsys, "score", run_path, "--qrels", qrels_path)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("skndcg score: error: ")
    import re

    assert re.search(match, err), err


@pytest.mark.parametrize(
    ("text", "argv", "match"),
    [
        (
            PREDICTIONS,
            ["--qid", "user", "--label", "rel", "--score", "pred"],
            r"no column 'rel' \(passed as --label\); its columns are \['user', 'item', "
            r"'rating', 'pred'\]",
        ),
        (
            "user,item,rating,pred\na,x,1,0.9\na,y,good,0.5\n",
            COLS,
            r"pred\.csv, line 3: label column 'rating' holds 'good'",
        ),
        (
            "user,item,rating,pred\na,x,1,fast\n",
            COLS,
            r"pred\.csv, line 2: score column 'pred' holds 'fast'",
        ),
        ("", COLS, r"pred\.csv is empty"),
        ("user,item,rating,pred\n", COLS, r"pred\.csv has a header but no rows"),
    ],
)
def test_bad_predictions_files_exit_2(capsys, tmp_path, text, argv, match):
    import re

    path = tmp_path / "pred.csv"
    path.write_text(text)
    code, out, err = _run(capsys, "score", path, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert re.search(match, err), err


def test_missing_predictions_file(capsys, tmp_path):
    code, _, err = _run(capsys, "score", tmp_path / "none.parquet", *COLS)
    assert code == 2 and "does not exist" in err


def test_parquet_predictions(capsys, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.read_csv(io.StringIO(PREDICTIONS))
    path = tmp_path / "pred.parquet"
    frame.to_parquet(path)
    code, out, _ = _score(capsys, path, "--format", "json")
    assert code == 0
    assert json.loads(out)["mean"] == pytest.approx(MEANS, abs=1e-12)


def test_large_parquet_files_are_streamed_with_the_same_numbers(
    capsys, tmp_path, monkeypatch
):
    # Past a row count, a Parquet file grouped by query is read in batches
    # (skndcg.streaming) when only means are asked for; the numbers are the same.
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from skndcg import streaming

    frame = pd.read_csv(io.StringIO(PREDICTIONS)).sort_values("user", kind="stable")
    path = tmp_path / "pred.parquet"
    frame.to_parquet(path, row_group_size=3)
    calls = []
    real = streaming.score_parquet
    monkeypatch.setattr(
        streaming,
        "score_parquet",
        lambda *a, **k: calls.append(a) or real(*a, **k),
    )
    monkeypatch.setenv("SKNDCG_STREAM_ROWS", "1")
    code, out, _ = _score(capsys, path, "--format", "json")
    assert code == 0 and len(calls) == 1
    streamed = json.loads(out)
    monkeypatch.setenv("SKNDCG_STREAM_ROWS", str(10**12))
    code, out, _ = _score(capsys, path, "--format", "json")
    assert code == 0 and len(calls) == 1
    assert streamed["mean"] == pytest.approx(json.loads(out)["mean"], abs=1e-12)
    assert streamed["n_queries"] == json.loads(out)["n_queries"]
    # An unsorted large file is an input error that points to the Dask path.
    # (The first row moves to the end: its query's rows are no longer together.)
    pd.concat([frame.iloc[1:], frame.iloc[:1]]).to_parquet(path, row_group_size=3)
    monkeypatch.setenv("SKNDCG_STREAM_ROWS", "1")
    code, _, err = _score(capsys, path)
    assert code == 2 and "skndcg.dask" in err


def test_streamed_parquet_breaks_ties_by_doc_in_any_spelling(
    capsys, tmp_path, monkeypatch
):
    # One query, two rows tied on score: row order b, a (a relevant). Ties by
    # docno, descending, rank b first (reciprocal rank 1/2); reverse row order
    # would rank a first (1). Streamed or not, every spelling of the preset
    # breaks the tie by docno.
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")

    frame = pd.DataFrame(
        {"user": ["q", "q"], "doc": ["b", "a"], "rating": [0, 1], "pred": [0.5, 0.5]}
    )
    path = tmp_path / "ties.parquet"
    frame.to_parquet(path)
    for rows in (1, 10**12):  # streamed, then in memory
        monkeypatch.setenv("SKNDCG_STREAM_ROWS", str(rows))
        for name in ("trec_eval", "TREC-EVAL", "Trec_Eval"):
            code, out, err = _run(
                capsys, "score", path, *COLS, "--doc", "doc", "--metrics", "mrr",
                "--convention", name, "--format", "json",
            )  # fmt: skip
            assert code == 0, err
            assert json.loads(out)["mean"]["mrr"] == 0.5, (rows, name)


# ------------------------------------------------------------------ TREC runs


def test_large_trec_runs_are_streamed_with_the_same_numbers(
    capsys, tmp_path, monkeypatch
):
    from test_score_trec_eval import QRELS as HAND_QRELS
    from test_score_trec_eval import RUN_LINES

    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(RUN_LINES) + "\n")
    qrels.write_text(HAND_QRELS)
    outputs = []
    for threshold in (1, 10**15):  # streamed, then in memory
        monkeypatch.setenv("SKNDCG_STREAM_BYTES", str(threshold))
        for extra in ([], ["--all-judged"], ["--depth", "2"]):
            code, out, err = _run(
                capsys, "score", run, "--qrels", qrels, "--format", "json", *extra
            )
            assert code == 0, err
            outputs.append(json.loads(out))
    streamed, in_memory = outputs[:3], outputs[3:]
    for a, b in zip(streamed, in_memory, strict=True):
        assert a["n_queries"] == b["n_queries"]
        assert a["mean"] == pytest.approx(b["mean"], abs=1e-12)


@pytest.fixture
def trec_files(tmp_path):
    from test_score_trec_eval import QRELS as HAND_QRELS
    from test_score_trec_eval import RUN_LINES

    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(RUN_LINES) + "\n")
    qrels.write_text(HAND_QRELS)
    return run, qrels


def _hand(*queries):
    import test_score_trec_eval as hand

    tables = [getattr(hand, q) for q in queries]
    return {m: sum(t[m] for t in tables) / len(tables) for m in hand.METRICS}


@pytest.mark.parametrize(
    ("extra", "queries", "n"),
    [
        ([], ("Q1", "Q3"), 2),
        (["--all-judged"], ("Q1", "Q3", "Q1_M2"), 3),  # q2 scores 0 like Q1_M2
        (["--depth", "2"], ("Q1_M2", "Q3_M2"), 2),
    ],
)
def test_trec_run_matches_trec_eval(capsys, trec_files, extra, queries, n):
    run, qrels = trec_files
    metrics = ["map", "ndcg", "p@10", "r@100", "mrr"]
    code, out, err = _run(
        capsys,
        "score",
        run,
        "--qrels",
        qrels,
        "--metrics",
        *metrics,
        "--format",
        "json",
        *extra,
    )
    assert code == 0 and len(err.splitlines()) == 1  # what was not scored
    result = json.loads(out)
    assert result["n_queries"] == n
    assert result["mean"] == pytest.approx(_hand(*queries), abs=1e-12)


def test_trec_run_default_metrics_and_trec_format(capsys, trec_files, tmp_path):
    run, qrels = trec_files
    out_csv = tmp_path / "pq.csv"
    code, out, _ = _run(
        capsys,
        "score",
        run,
        "--qrels",
        qrels,
        "--format",
        "trec",
        "--per-query",
        out_csv,
    )
    assert code == 0
    rows = [[c.strip() for c in line.split("\t")] for line in out.splitlines()]
    assert ["runid", "all", "r"] in rows and ["num_q", "all", "2"] in rows
    names = [r[0] for r in rows if r[1] == "all"][2:]
    assert names == ["map", "recip_rank", "P_10", "recall_100", "ndcg", "ndcg_cut_10"]
    assert {r[1] for r in rows} == {"q1", "q3", "all"}
    per_query = {(r[0], r[1]): r[2] for r in rows}
    assert per_query[("map", "q1")] == f"{(1 / 3 + 2 / 4) / 3:.4f}"
    report = list(csv.DictReader(out_csv.open()))
    assert [r["qid"] for r in report] == ["q1", "q3"]


def test_predictions_with_unretrieved_rows(capsys, tmp_path):
    # Query a also judged w (relevant, never retrieved: empty score cell).
    path = tmp_path / "pred.csv"
    path.write_text(PREDICTIONS + "a,w,1,\n")
    code, out, _ = _run(
        capsys,
        "score",
        path,
        *COLS,
        "--metrics",
        "map",
        "r@100",
        "--format",
        "json",
    )
    assert code == 0
    # a: relevant x (rank 1), z (rank 3), w (missed): AP = (1 + 2/3) / 3.
    expected_a = {"map": (1 + 2 / 3) / 3, "r@100": 2 / 3}
    expected = {m: (expected_a[m] + PER_QUERY["b"][m]) / 2 for m in expected_a}
    assert json.loads(out)["mean"] == pytest.approx(expected, abs=1e-12)


def test_parquet_without_pyarrow_names_the_extra(capsys, tmp_path, monkeypatch):
    import sys

    path = tmp_path / "pred.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, out, err = _run(capsys, "score", path, *COLS)
    assert code == 2 and out == ""
    assert "pip install pyarrow" in err and "[parquet]" in err
    assert len(err.strip().splitlines()) == 1


def test_predictions_depth_cut(capsys, predictions):
    # --depth 1 keeps x for a (z becomes unretrieved) and u for b (v too).
    code, out, _ = _score(capsys, predictions, "--depth", "1", "--format", "json")
    assert code == 0
    got = json.loads(out)["mean"]
    # a: x at rank 1 relevant, z missed: AP = 1/2, recall 1/2, RR 1.
    # b: u at rank 1 not relevant, v missed: AP 0, recall 0, RR 0.
    assert got["map"] == pytest.approx((0.5 + 0.0) / 2, abs=1e-12)
    assert got["r@100"] == pytest.approx((0.5 + 0.0) / 2, abs=1e-12)
    assert got["mrr"] == pytest.approx((1.0 + 0.0) / 2, abs=1e-12)


def test_gzip_trec_files_give_the_same_output(capsys, trec_files, tmp_path):
    import gzip

    run, qrels = trec_files
    runz, qrelsz = tmp_path / "run.txt.gz", tmp_path / "qrels.gz"
    runz.write_bytes(gzip.compress(run.read_bytes()))
    qrelsz.write_bytes(gzip.compress(qrels.read_bytes()))
    plain = _run(capsys, "score", run, "--qrels", qrels, "--format", "json")
    packed = _run(capsys, "score", runz, "--qrels", qrelsz, "--format", "json")
    assert plain == packed and plain[0] == 0


def test_run_and_qrels_without_a_common_query(capsys, tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("101 Q0 d1 1 2.0 r\n")
    qrels.write_text("q101 0 d1 1\n")
    code, out, err = _run(capsys, "score", run, "--qrels", qrels)
    assert code == 2 and out == ""
    assert "no query of" in err and "do the query ids of the two files match" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_runs_from_a_pipe_give_the_numbers_of_a_file(capsys, trec_files, tmp_path):
    # ``skndcg score <(zcat run.gz) --qrels ...``: the shell hands over a pipe,
    # which can be read once; the command copies it, and errors still name it.
    # The command runs in a child process with a timeout: a reader that opened
    # the pipe twice would wait for a writer forever.
    import subprocess
    import sys
    import threading

    run, qrels = trec_files
    code, want, _ = _run(capsys, "score", run, "--qrels", qrels, "--format", "json")
    assert code == 0

    def score_from_pipe(text, name, *extra):
        fifo = tmp_path / name
        os.mkfifo(fifo)

        def write():
            try:
                with open(fifo, "w") as fh:
                    fh.write(text)
            except OSError:  # the reader went away
                pass

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        try:
            done = subprocess.run(
                [sys.executable, "-m", "skndcg", "score", str(fifo), "--qrels",
                 str(qrels), *extra],
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
        finally:
            # Release a writer still waiting for a reader.
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
            writer.join(timeout=10)
        return done.returncode, done.stdout, done.stderr, str(fifo)

    text = Path(run).read_text()
    code, got, err, _ = score_from_pipe(text, "run.pipe", "--format", "json")
    assert code == 0, err
    assert json.loads(got) == json.loads(want)
    code, _, err, fifo = score_from_pipe("q Q0 d 1\n", "bad.pipe")
    assert code == 2
    assert err.startswith(f"skndcg score: error: {fifo}, line 1: expected 6")


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["score", "r", "--depth", "1_0"], "expected a positive integer, got '1_0'"),
        (["score", "r", "--depth", "\u0661\u0660"], "expected a positive integer"),
        (["score", "r", "--pipe-timeout", "3_0"], "expected a positive number"),
        (["score", "r", "--fail-under", "map=0_3"], "expected METRIC=VALUE"),
        (["score", "r", "--fail-under", "map=\uff10.3"], "expected METRIC=VALUE"),
        (["score", "r", "-l", "1_0"], "expected an integer relevance level"),
        (["compare", "a", "b", "--confidence", "0.9_5"], "expected a number in"),
        (["trec_eval", "-M", "1_0", "q", "r"], "expected a positive integer"),
        (["monitor", "log", "--time", "t", "--threshold", "0.0_5"], "got '0.0_5'"),
        (
            ["monitor", "log", "--time", "t", "--alpha", "\u0660.\u0660\u0665"],
            "expected a number in [0, 1)",
        ),
    ],
)
def test_numbers_with_underscores_or_other_digits_are_refused(capsys, argv, match):
    # As the file readers: int() and float() would read 1_0 as 10 and
    # Arabic-Indic or full-width digits as digits.
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and match in capsys.readouterr().err
