"""``skndcg compare RUN RUN... --qrels QRELS``: runs side by side, with tests."""

import json
from pathlib import Path

import numpy as np
import pytest

from skndcg.cli import main

N_QUERIES = 14


@pytest.fixture
def files(tmp_path):
    """Qrels of 14 queries; "good" ranks by label (perfect), "bad" reversed,
    "short" answers only the first 12 queries (as "good" does)."""
    rng = np.random.default_rng(0)
    qrels, good, bad = [], [], []
    for q in range(N_QUERIES):
        labels = rng.integers(0, 3, 8)
        labels[0] = 2  # every query has something relevant
        for d, lab in enumerate(labels):
            qrels.append(f"q{q:02d} 0 d{d} {lab}\n")
            good.append(f"q{q:02d} Q0 d{d} 0 {lab + 0.001 * d} good\n")
            bad.append(f"q{q:02d} Q0 d{d} 0 {-lab - 0.001 * d} bad\n")
    paths = {}
    for name, lines in (("qrels", qrels), ("good", good), ("bad", bad),
                        ("short", good[: 12 * 8])):  # fmt: skip
        paths[name] = tmp_path / name
        paths[name].write_text("".join(lines))
    return {k: str(v) for k, v in paths.items()}


def run(capsys, *argv):
    try:
        code = main(["compare", *argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_markdown_table(capsys, files):
    code, out, err = run(capsys, files["bad"], files["good"], "--qrels",
                         files["qrels"], "-m", "map", "-m", "P.5")  # fmt: skip
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "| model | map | P_5 |"
    assert lines[2].startswith("| bad |") and lines[3].startswith("| good |")
    assert "*" in lines[3] and "*" not in lines[2]  # good beats the baseline
    assert f"{N_QUERIES} queries" in out


def test_json_means_are_skndcg_score_s(capsys, files):
    code, out, _ = run(capsys, files["bad"], files["good"], "--qrels",
                       files["qrels"], "--metrics", "ndcg@5", "mrr",
                       "--format", "json", "--n-resamples", "500")  # fmt: skip
    assert code == 0
    result = json.loads(out)
    assert result["baseline"] == "bad" and result["models"] == ["bad", "good"]
    means = {(r["model"], r["metric"]): r["mean"] for r in result["model_rows"]}
    for name in ("bad", "good"):
        assert main(["score", files[name], "--qrels", files["qrels"], "--metrics",
                     "ndcg@5", "mrr", "--format", "json"]) == 0  # fmt: skip
        alone = json.loads(capsys.readouterr().out)["mean"]
        assert means[(name, "ndcg@5")] == pytest.approx(alone["ndcg@5"], abs=1e-12)
        assert means[(name, "mrr")] == pytest.approx(alone["mrr"], abs=1e-12)
    assert means[("good", "ndcg@5")] == pytest.approx(1.0)  # ranked by label


def test_latex(capsys, files):
    code, out, _ = run(capsys, files["bad"], files["good"], "--qrels",
                       files["qrels"], "--format", "latex",
                       "--n-resamples", "200")  # fmt: skip
    assert code == 0
    assert out.startswith("\\begin{tabular}") and "good &" in out


def test_fail_on_loss_gates(capsys, files):
    argv = [files["good"], files["bad"], "--qrels", files["qrels"], "-m", "map",
            "--n-resamples", "500"]  # fmt: skip
    code, _, err = run(capsys, *argv)
    assert code == 0  # reported, not gating
    assert "significantly below good: bad map -" in err
    code, _, err = run(capsys, *argv, "--fail-on-loss")
    assert code == 1 and "bad map" in err
    # With the better run as baseline chosen by name, the gain does not gate.
    code, _, _ = run(capsys, files["bad"], files["good"], "--qrels", files["qrels"],
                     "-m", "map", "--baseline", "bad", "--fail-on-loss",
                     "--n-resamples", "500")  # fmt: skip
    assert code == 0


def test_different_queries_are_named(capsys, files):
    argv = [files["good"], files["short"], "--qrels", files["qrels"], "-m", "map",
            "--n-resamples", "200"]  # fmt: skip
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert "short has no results for q12, q13" in err
    assert "-c/--all-judged" in err and "--common-queries" in err
    code, out, _ = run(capsys, *argv, "--common-queries", "--format", "json")
    assert code == 0 and json.loads(out)["model_rows"][0]["n_queries"] == 12
    code, out, _ = run(capsys, *argv, "-c", "--format", "json")
    rows = json.loads(out)["model_rows"]
    assert code == 0 and rows[0]["n_queries"] == N_QUERIES
    # q12 and q13 score 0 for "short": its mean is 12/14 of "good"'s.
    assert rows[1]["mean"] == pytest.approx(rows[0]["mean"] * 12 / 14)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["{good}", "--qrels", "{qrels}"], "give two or more runs"),
        (["{good}", "{bad}", "--qrels", "{qrels}", "--baseline", "nope"],
         "--baseline 'nope' is not one of the runs"),
        (["{good}", "{bad}", "--qrels", "{qrels}", "-m", "num_ret"],
         "no metric to compare"),
        (["{good}", "{bad}", "--qrels", "{qrels}", "--confidence", "2"],
         "expected a number in (0, 1)"),
        (["{good}", "{bad}", "--qrels", "{qrels}", "-m", "mapp"],
         "Did you mean 'map'?"),
        (["{good}", "{bad}", "--qrels", "{qrels}", "--seed", "-1"],
         "argument --seed: expected an integer in [0, 2**32 - 1], got '-1'"),
        (["{good}", "{bad}", "--qrels", "{qrels}", "--n-resamples", "5"],
         "--n-resamples 5 is too few for --confidence 0.95: each tail of the "
         "percentile interval must hold at least one resample beyond its "
         "bound, which takes --n-resamples 41 or more."),
    ],
)  # fmt: skip
def test_errors(capsys, files, argv, message):
    code, _, err = run(capsys, *[a.format(**files) for a in argv])
    assert code == 2
    assert message in err


def test_n_resamples_for_the_corrected_confidence_in_flags(capsys, files):
    """Three metrics: the Holm (Bonferroni) intervals are at 1 - 0.05 / 3,
    which 100 resamples cannot bound; said in the command's flags."""
    argv = [files["bad"], files["good"], "--qrels", files["qrels"],
            "--metrics", "map", "P.5", "mrr", "--n-resamples"]  # fmt: skip
    code, out, err = run(capsys, *argv, "100")
    assert code == 0 and out  # the table, and a note on standard error
    assert (
        "--n-resamples 100 is too few for the Bonferroni-corrected confidence "
        "0.983333 of 3 comparisons (--correction holm raised --confidence 0.95)"
    ) in err
    assert "takes --n-resamples 121 or more" in err and "n_resamples" not in err
    assert "Warning" not in err  # a note in the command's words
    for more in (["121"], ["100", "--correction", "none"]):
        code, _, err = run(capsys, *argv, *more)
        assert code == 0 and "too few" not in err


def test_run_and_qrels_of_other_query_ids(capsys, files, tmp_path):
    """Query ids "q00" in the runs, "00" in the qrels: named as skndcg score
    names it, not a metric without queries."""
    numbered = tmp_path / "numbered"
    numbered.write_text(Path(files["qrels"]).read_text().replace("q", ""))
    code, out, err = run(capsys, files["good"], files["bad"], "--qrels",
                         str(numbered), "-m", "map")  # fmt: skip
    assert code == 2 and out == ""
    assert err == (
        f"skndcg compare: error: no query of {files['good']} has judgments in "
        f"{numbered}; do the query ids of the two files match?\n"
    )


def test_stdin_is_refused_by_name(tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d0 1 1.0 a\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d0 1\n")
    assert main(["compare", "-", str(run), "--qrels", str(qrels)]) == 2
    err = capsys.readouterr().err
    assert "skndcg compare does not read standard input ('-')" in err
    assert "does not exist" not in err
    assert main(["compare", str(run), str(run), "--qrels", "-"]) == 2
    assert "--qrels '-'" in capsys.readouterr().err


def test_few_queries_is_a_note_in_the_commands_words(capsys, files):
    code, _, err = run(capsys, files["bad"], files["good"], "--qrels",
                       files["qrels"], "-m", "map", "--min-queries", "20")  # fmt: skip
    assert code == 0
    assert err.startswith("skndcg compare: map: only 14 queries (fewer than ")
    assert "--min-queries 20" in err and "pass --min-queries 0 " in err
