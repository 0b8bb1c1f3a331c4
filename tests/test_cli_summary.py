"""``skndcg score`` says what it assumed, and ``--strict`` refuses it."""

import json

import pytest

from skndcg.cli import main

# q1: scored; q2: in the run, never judged; q3: judged, nothing relevant;
# q4: judged, not in the run. q1's d9 is judged and was not retrieved.
RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\nq2 Q0 d1 1 1.0 r\n"
RUN += "q3 Q0 d1 1 1.0 r\n"
QRELS = "q1 0 d1 1\nq1 0 d9 2\nq3 0 d1 0\nq4 0 d1 1\n"
# Predictions: query c has no relevant item, query a an empty score cell.
PREDICTIONS = "q,y,s\na,1,0.9\na,0,0.5\na,2,\nb,0,0.8\nb,2,0.3\nc,0,0.4\nc,0,0.2\n"
COLS = ["--qid", "q", "--label", "y", "--score", "s"]


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def trec(tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(RUN)
    qrels.write_text(QRELS)
    return run, qrels


@pytest.fixture
def predictions(tmp_path):
    path = tmp_path / "pred.csv"
    path.write_text(PREDICTIONS)
    return path


def test_trec_summary_on_stderr_and_in_json(capsys, trec):
    run, qrels = trec
    code, out, err = _run(capsys, "score", run, "--qrels", qrels, "--format", "json")
    assert code == 0
    assert json.loads(out)["summary"] == {
        "queries_scored": 2,
        "queries_skipped": {},
        "run_queries_unjudged": 1,
        "judged_queries_without_results": 1,
        "unretrieved_judged_rows": 2,  # q1's d9 and q4's d1
        "empty_score_cells": 0,
    }
    assert err.splitlines() == [
        "skndcg score: 2 queries scored; 1 run query without judgments (not "
        "scored); 1 judged query without results (not scored, first 'q4', where "
        "trec_eval 10.0 stops with an error; -c/--all-judged scores them 0); 2 "
        "judged documents not retrieved (counted as missed)"
    ]


def test_all_judged_scores_the_query_without_results(capsys, trec):
    run, qrels = trec
    argv = ["score", run, "--qrels", qrels, "--all-judged", "--format", "json"]
    code, out, err = _run(capsys, *argv)
    assert code == 0 and json.loads(out)["n_queries"] == 3
    assert "1 judged query without results (scored 0: --all-judged)" in err
    code, _, err = _run(capsys, *argv, "--strict")
    assert code == 2  # the unjudged run query is still refused
    assert err.splitlines() == [
        "skndcg score: error: --strict: 1 run query without judgments (not scored)"
    ]


def test_strict_refuses_and_prints_nothing_on_stdout(capsys, trec, tmp_path):
    run, qrels = trec
    per_query = tmp_path / "pq.csv"
    code, out, err = _run(
        capsys, "score", run, "--qrels", qrels, "--strict", "--per-query", per_query
    )
    assert (code, out) == (2, "")
    assert err.startswith("skndcg score: error: --strict: ")
    assert "1 run query without judgments" in err
    assert "1 judged query without results" in err
    assert len(err.splitlines()) == 1
    assert not per_query.exists()


def test_strict_accepts_a_clean_run(capsys, tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\n")
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    code, out, err = _run(
        capsys, "score", run, "--qrels", qrels, "--strict", "--metrics", "map"
    )
    assert (code, err) == (0, "")
    assert "1.0000" in out


def test_predictions_summary(capsys, predictions):
    code, out, err = _run(capsys, "score", predictions, *COLS, "--format", "json")
    assert code == 0
    summary = json.loads(out)["summary"]
    assert summary["queries_scored"] == 2
    assert summary["queries_skipped"] == {"no relevant item": 1}
    assert summary["empty_score_cells"] == 1
    assert summary["run_queries_unjudged"] == 0
    assert summary["judged_queries_without_results"] == 0
    assert "1 query skipped (no relevant item" in err
    assert "1 empty score cell (read as judged, not retrieved)" in err
    code, out, err = _run(capsys, "score", predictions, *COLS, "--strict")
    assert (code, out) == (2, "")
    assert "1 empty score cell" in err and "1 query skipped" in err


def test_predictions_depth_cut_is_not_an_empty_cell(capsys, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("q,y,s\na,1,0.9\na,0,0.5\na,1,0.1\n")
    code, out, err = _run(
        capsys, "score", path, *COLS, "--depth", "1", "--strict", "--format", "json"
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["summary"]["empty_score_cells"] == 0
