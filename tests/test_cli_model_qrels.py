"""``skndcg score RUN --qrels HUMAN --model-qrels MODEL``."""

import csv
import io
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from ppi_sim import simulate

from skndcg.cli import main
from skndcg.evaluation import prediction_powered_report


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("two_sources")
    s = simulate(120, np.random.default_rng(0), judged_share=0.2)
    doc = np.tile(np.arange(20), 120)
    paths = {k: folder / f"{k}.txt" for k in ("run", "human", "llm", "llm100")}
    with open(paths["run"], "w") as f:
        for q, d, sc in zip(s["qid"], doc, s["score_a"], strict=True):
            f.write(f"q{q} Q0 d{d} 0 {sc:.6f} sys\n")
    with (
        open(paths["human"], "w") as h,
        open(paths["llm"], "w") as m,
        open(paths["llm100"], "w") as m100,
    ):
        for q, d, y, ym, j in zip(
            s["qid"], doc, s["y"], s["y_model"], s["judged"], strict=True
        ):
            if j:
                h.write(f"q{q} 0 d{d} {int(y)}\n")
            m.write(f"q{q} 0 d{d} {int(ym)}\n")
            m100.write(f"q{q} 0 d{d} {int(ym) * 33}\n")
    return s, {k: str(v) for k, v in paths.items()}


def _run(capsys, paths, *extra, model="llm"):
    code = main(
        ["score", paths["run"], "--qrels", paths["human"], "--model-qrels",
         paths[model], *extra]
    )  # fmt: skip
    out = capsys.readouterr()
    return code, out.out, out.err


def test_three_estimates_side_by_side(files, capsys):
    s, paths = files
    code, out, _ = _run(
        capsys, paths, "--metrics", "ndcg@10", "p@10", "--format", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["source"] for r in rows[:3]] == ["ppi++", "model only", "human only"]
    # The run sorts the documents by score, ties by docno as trec_eval: the
    # same numbers as the library on the arrays (no tie in the scores here).
    rep = prediction_powered_report(
        s["y_true"], s["y_model"], s["score_a"], s["qid"], metrics=["ndcg@10", "p@10"],
        metric_options={"convention": "trec_eval"},
    ).set_index("metric")  # fmt: skip
    got = {(r["metric"], r["source"]): r for r in rows}
    for metric in ("ndcg@10", "p@10"):
        for source, col in (("ppi++", "estimate"), ("model only", "model_only"),
                            ("human only", "human_only")):  # fmt: skip
            value = float(got[metric, source]["mean"])
            assert value == pytest.approx(rep.loc[metric, col], abs=1e-6)
        assert got[metric, "ppi++"]["n_queries"] == "24"
        assert got[metric, "model only"]["n_queries"] == "120"


def test_table_md_json(files, capsys):
    _, paths = files
    code, out, _ = _run(capsys, paths, "--metrics", "ndcg@10")
    assert code == 0 and "ppi++ [95% CI]" in out and "human only [95% CI]" in out
    assert "120 queries judged by the model, 24 of them by humans" in out
    code, out, _ = _run(capsys, paths, "--metrics", "ndcg@10", "--format", "md")
    assert out.startswith("| metric | ppi++ [95% CI] |")
    code, out, _ = _run(capsys, paths, "--metrics", "ndcg@10", "--format", "json")
    doc = json.loads(out)
    assert doc["n_judged"] == 24
    low, high = doc["metrics"]["ndcg@10"]["ppi++"]["ci"]
    hl, hh = doc["metrics"]["ndcg@10"]["human only"]["ci"]
    assert high - low < hh - hl


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--format", "trec"], "--format trec has no place for intervals"),
        (["-q"], "-q is not available with --model-qrels"),
        (["--ci"], "--ci is not available with --model-qrels"),
    ],
)
def test_refused_options(files, capsys, extra, match):
    _, paths = files
    code, _, err = _run(capsys, paths, *extra)
    assert code == 2 and match in err


def test_bad_inputs(files, capsys, tmp_path):
    _, paths = files
    code, _, err = _run(capsys, paths, model="llm100")
    assert code == 2 and "grades on different scales" in err
    code = main(["score", paths["run"], "--model-qrels", paths["llm"]])
    err = capsys.readouterr().err
    assert code == 2 and "give --qrels" in err
    partial = tmp_path / "partial.txt"
    lines = Path(paths["llm"]).read_text().splitlines()
    partial.write_text("\n".join(ln for ln in lines if not ln.startswith("q7 ")) + "\n")
    code = main(["score", paths["run"], "--qrels", paths["human"],
                 "--model-qrels", str(partial)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "has no judgment for the queries q7" in err


def test_bad_inputs_name_the_files(files, capsys, tmp_path):
    _, paths = files
    code, _, err = _run(capsys, paths, model="llm100")
    assert code == 2
    assert f"--model-qrels {paths['llm100']} holds 33.0, 66.0, 99.0, outside " in err
    first = Path(paths["human"]).read_text().split()[0]  # one query, grades 0-3
    one = "".join(f"{first} 0 d{g} {g}\n" for g in range(4))
    for n, text, said in [
        (0, "z 0 d1 1\n", "judges 0 of the run's 120 queries"),
        (1, one, "judges 1 of the run's 120 queries"),
    ]:
        few = tmp_path / f"human{n}.txt"
        few.write_text(text)
        code = main(["score", paths["run"], "--qrels", str(few),
                     "--model-qrels", paths["llm"]])  # fmt: skip
        err = capsys.readouterr().err
        assert code == 2
        assert f"--qrels {few} {said}" in err and "at least two" in err


def test_few_judged_queries_is_a_note_in_the_commands_words(files, capsys, tmp_path):
    _, paths = files
    lines = Path(paths["human"]).read_text().splitlines()
    judged = list(dict.fromkeys(ln.split()[0] for ln in lines))[:3]
    few = tmp_path / "human3.txt"
    few.write_text("".join(f"{ln}\n" for ln in lines if ln.split()[0] in judged))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a note, not a Python warning
        code = main(["score", paths["run"], "--qrels", str(few), "--model-qrels",
                     paths["llm"], "--metrics", "ndcg@10"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0 and "3 of them by humans" in out
    assert err.startswith("skndcg score: only 3 queries judged by humans (fewer than ")
    assert "Judge more queries" in err
    assert "min_queries" not in err and "prediction_powered_queries" not in err
    # It names what the command prints (intervals, var. removed), not the
    # Python report's columns se and sd_residual.
    assert "intervals rest on so few queries" in err and "var. removed" in err
    assert "sd_residual" not in err and " se " not in err
