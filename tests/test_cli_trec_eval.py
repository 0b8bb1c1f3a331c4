"""``skndcg trec_eval``: trec_eval's argument order and flags, the output of
``skndcg score --format trec``, and ``-n`` (no summary) on both doors."""

import subprocess
import sys

import pytest
from cli_calls import call, write_run_qrels


@pytest.fixture
def paths(tmp_path):
    run, qrels = write_run_qrels(tmp_path)
    return qrels, run


@pytest.mark.parametrize(
    "trec_eval, score",
    [
        (["-c"], ["-c", "-m", "official"]),
        (["-q", "-c", "-m", "all_trec"], ["-q", "-c", "-m", "all_trec"]),
        (["-qc", "-mP.5", "-l2"], ["-q", "-c", "-m", "P.5", "-l", "2"]),
        (
            ["--query_eval_wanted", "--complete_rel_info_wanted", "--measure",
             "map", "--level_for_rel", "2", "--Max_retrieved_per_topic", "2",
             "--Judged_docs_only", "--Number_docs_in_coll", "50", "--measure",
             "utility.1,-1,0,1", "-R", "qrels", "-T", "trec_results"],
            ["-q", "-c", "-m", "map", "-l", "2", "-M", "2", "-J", "-N", "50",
             "-m", "utility.1,-1,0,1"],
        ),
    ],
)  # fmt: skip
def test_same_output_as_skndcg_score(capsys, paths, trec_eval, score):
    qrels, run = paths
    code, out, _ = call(capsys, "trec_eval", *trec_eval, qrels, run)
    assert code == 0
    code2, out2, _ = call(capsys, "score", run, "--qrels", qrels, "--format",
                          "trec", *score)  # fmt: skip
    assert code2 == 0
    assert out == out2 and out


def test_official_measures_by_default(capsys, paths):
    code, out, _ = call(capsys, "trec_eval", "-c", *paths)
    assert code == 0
    names = [row.split("\t")[0].strip() for row in out.splitlines()]
    assert names[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert names[-1] == "P_1000" and "recall_5" not in names


def test_nosummary(capsys, paths):
    code, out, _ = call(capsys, "trec_eval", "-q", "-n", "-c", "-m", "map", *paths)
    assert code == 0
    assert out.splitlines() == [
        f"{'map':<22}\tq1\t{(1 / 1 + 2 / 3) / 2:6.4f}",
        f"{'map':<22}\tq2\t{1 / 2:6.4f}",
        f"{'map':<22}\tq3\t{0:6.4f}",
    ]
    # Without -q, nothing is printed (trec_eval too).
    qrels, run = paths
    code, out, _ = call(capsys, "score", run, "--qrels", qrels, "--format",
                        "trec", "-n", "-m", "map")  # fmt: skip
    assert code == 0 and out == ""


def test_results_from_standard_input(paths):
    qrels, run = paths
    with open(run) as fh:
        text = fh.read()
    done = subprocess.run(
        [sys.executable, "-m", "skndcg", "trec_eval", "-c", "-m", "map", qrels, "-"],
        input=text, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{'map':<22}\tall\t{((1 + 2 / 3) / 2 + 1 / 2) / 3:6.4f}\n"


@pytest.mark.parametrize(
    "flags, message",
    [
        (["-R", "prefs"], "skndcg reads the 'qrels' format only"),
        (["-T", "other"], "reads the 'trec_results' format only"),
        (["-D", "1"], "trec_eval -D is not available: skndcg prints no debug"),
        (["-Z", "z.txt"], "trec_eval -Z is not available: z-scores"),
        (["-o"], "trec_eval -o is not available"),
        (["-l", "0"], "the relevance level must be >= 1"),
        (["-m", "P_1O"], "unknown measure 'P_1O'"),
    ],
)
def test_refused_flags(capsys, paths, flags, message):
    code, _, err = call(capsys, "trec_eval", *flags, *paths)
    assert code == 2
    assert message in err


def test_version(capsys):
    code, out, _ = call(capsys, "trec_eval", "-v")
    assert code == 0
    assert out.startswith("trec_eval version 10.0 (skndcg ")


def test_stdin_for_both_files_names_trec_evals_arguments(capsys):
    from skndcg.cli import main

    assert main(["trec_eval", "-", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("skndcg trec_eval: error: '-' (standard input) is given ")
    assert "for rel_info_file and results_file" in err and "--qrels" not in err
