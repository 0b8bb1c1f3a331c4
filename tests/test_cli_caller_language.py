"""The command line neither ignores what it is asked nor speaks Python to its
caller: -q and -n outside --format trec, default column names, messages in
flag spelling, the sub-command's own name, swapped qrels and run."""

import pytest
from cli_calls import call, write_run_qrels


@pytest.fixture
def files(tmp_path):
    return write_run_qrels(tmp_path)


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
@pytest.mark.parametrize("flag", ["-q", "-n"])
def test_trec_flags_outside_format_trec_are_refused(capsys, files, fmt, flag):
    run, qrels = files
    code, out, err = call(capsys, "score", run, "--qrels", qrels, "-m", "map",
                          flag, "--format", fmt)  # fmt: skip
    assert code == 2 and out == ""
    assert f"{flag} " in err and "needs --format trec" in err
    assert "--per-query" in err
    # The same call in --format trec is honoured: per-query lines with -q,
    # no 'all' line with -n.
    code, out, _ = call(capsys, "score", run, "--qrels", qrels, "-m", "map",
                        flag, "--format", "trec")  # fmt: skip
    assert code == 0
    qids = {row.split("\t")[1] for row in out.splitlines()}
    assert qids == ({"q1", "q2", "all"} if flag == "-q" else set())


def _csv(tmp_path, text, name="log.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


GOOD = "qid,label,score\n1,1,0.5\n1,0,0.2\n2,0,0.3\n2,1,0.1\n"


def test_score_reads_qid_label_score_by_default(capsys, tmp_path):
    path = _csv(tmp_path, GOOD)
    code, out, err = call(capsys, "score", path, "--metrics", "mrr", "--format",
                          "json")  # fmt: skip
    assert code == 0, err
    code, named, _ = call(capsys, "score", path, "--qid", "qid", "--label",
                          "label", "--score", "score", "--metrics", "mrr",
                          "--format", "json")  # fmt: skip
    assert out == named and '"mrr": 0.75' in out  # (1 + 1/2) / 2


@pytest.mark.parametrize("command", ["score", "monitor"])
def test_one_rule_for_the_default_columns(capsys, tmp_path, command):
    path = _csv(tmp_path, "q,l,s,t\n1,1,0.5,2024-01-01\n1,0,0.2,2024-01-01\n")
    extra = ["--time", "t"] if command == "monitor" else []
    code, out, err = call(capsys, command, path, "--label", "l", *extra)
    assert code == 2 and out == ""
    assert "Without --qid or --score, the columns qid and score are read" in err
    assert "--qid COL and --score COL" in err


def _times_log(tmp_path, times):
    rows = ["qid,label,score,t"]
    for q, t in enumerate(times):
        rows += [f"{q},1,0.9,{t}", f"{q},0,0.1,{t}"]
    return _csv(tmp_path, "\n".join(rows) + "\n")


def test_monitor_refuses_numbers_without_a_unit(capsys, tmp_path):
    path = _times_log(tmp_path, [0.5, 1.5, 2.5, 3.5])  # hours, say
    code, out, err = call(capsys, "monitor", path, "--time", "t")
    assert code == 2 and out == ""
    assert "time column 't'" in err and "float64" in err
    assert "--time-unit s" in err and "time_unit" not in err


def test_monitor_reads_numbers_in_the_unit_given(capsys, tmp_path):
    start = 1_700_000_000  # 2023-11-14 22:13:20 UTC
    path = _times_log(tmp_path, [1000 * (start + 60 * i) for i in range(4)])
    code, out, err = call(capsys, "monitor", path, "--time", "t", "--time-unit",
                          "ms", "--freq", "1min", "--metrics", "mrr",
                          "--format", "csv")  # fmt: skip
    assert code == 0, err
    windows = [row.split(",")[0] for row in out.splitlines()[1:]]
    assert windows == [f"2023-11-14 22:{m}:00" for m in (13, 14, 15, 16)]


def test_monitor_speaks_in_flags(capsys, tmp_path):
    # Two queries, an empty window between them.
    path = _csv(tmp_path, "qid,label,score,t\n1,1,0.9,2024-01-01 00:00\n"
                "2,1,0.9,2024-01-01 00:20\n")  # fmt: skip
    code, out, err = call(capsys, "monitor", path, "--time", "t", "--freq", "5min")
    assert code == 2 and out == ""
    assert "--empty-windows keep" in err and "empty_windows=" not in err
    code, out, err = call(capsys, "monitor", path, "--time", "t", "--freq",
                          "5min", "--empty-windows", "keep")  # fmt: skip
    assert code == 0, err


def test_trec_eval_errors_carry_its_name(capsys, files):
    run, qrels = files
    code, out, err = call(capsys, "trec_eval", "-m", "P.0", qrels, run)
    assert code == 2 and out == ""
    assert err.startswith("skndcg trec_eval: error: ") and "skndcg score" not in err


@pytest.mark.parametrize("command", ["score", "trec_eval", "compare"])
def test_swapped_run_and_qrels_are_named(capsys, files, command):
    run, qrels = files
    argv = {
        "score": ["score", qrels, "--qrels", run],
        "trec_eval": ["trec_eval", run, qrels],
        "compare": ["compare", qrels, qrels, "--qrels", run],
    }[command]
    code, out, err = call(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"skndcg {command}: error: ")
    assert f"{qrels} looks like qrels" in err and "swapped" in err
    # Files in the right order: no such hint.
    code, _, err = call(capsys, "score", run, "--qrels", qrels, "-m", "P.x")
    assert code == 2 and "swapped" not in err


def test_keywords_read_as_the_commands_own_flags():
    from skndcg.cli import _build_parser
    from skndcg.cli._language import set_caller, speak

    parser = _build_parser()
    set_caller("skndcg score", parser.commands["score"])
    text = (
        "pass convention='ranx', depth=5 or all_judged=True (passed as qid=); "
        "nan_score='unretrieved' and metrics=['map'] stay; ndcg(p=0.5) too"
    )
    assert speak(text) == (
        "pass --convention ranx, --depth 5 or --all-judged (passed as --qid); "
        "nan_score='unretrieved' and metrics=['map'] stay; ndcg(p=0.5) too"
    )
    set_caller("skndcg monitor", parser.commands["monitor"])
    assert speak("pass empty_windows='keep'") == "pass --empty-windows keep"
    assert speak("pass depth=5") == "pass depth=5"  # not a monitor option
    # An array the command read from a file reads as that file.
    said = speak("y_true has 1; y_model holds 5", y_model="--model-qrels m.txt")
    assert said == "the labels have 1; --model-qrels m.txt holds 5"


def test_library_names_without_a_flag_read_as_words(capsys, tmp_path):
    path = _csv(tmp_path, "qid,label,score\n1,2000,0.5\n1,0,0.2\n")
    code, out, err = call(capsys, "score", path, "--metrics", "ndcg",
                          "--convention", "lightgbm")  # fmt: skip
    assert code == 2 and out == ""
    assert "labels must be integers in [0, 30] with --convention lightgbm and " \
        "exponential gain" in err  # fmt: skip
    assert "y_true" not in err and "gain=" not in err and "convention=" not in err
