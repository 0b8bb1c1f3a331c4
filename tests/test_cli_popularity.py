"""``skndcg score --popularity FILE``: the per-user beyond-accuracy measures of
a TREC run (the docno is the item) or of predictions (the --doc column), equal
to skndcg.metrics in memory; clear errors for a bad file; trec_eval refuses."""

import json

import numpy as np
import pandas as pd
import pytest
from test_beyond_scaleout import TREC_NAMES, trec_files, trec_in_memory

from skndcg.cli import main
from skndcg.metrics import grouped_ranking_scores


def _pop_file(path, counts, sep=" "):
    path.write_text(
        "# item count\n" + "".join(f"{k}{sep}{v}\n" for k, v in counts.items())
    )
    return path


def _score(capsys, *argv):
    code = main(["score", *map(str, argv), "--format", "json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out)["mean"] if code == 0 else None), out.err


@pytest.mark.parametrize("sep", [" ", "\t", ","])
@pytest.mark.parametrize("stream", [False, True])
def test_a_run_scores_as_in_memory(tmp_path, capsys, monkeypatch, sep, stream):
    run, qrels, counts = trec_files(tmp_path, seed=6)
    if stream:  # the run read query by query, by skndcg.streaming
        monkeypatch.setenv("SKNDCG_STREAM_BYTES", "0")
    pop = _pop_file(tmp_path / "pop", counts, sep)
    argv = [run, "--qrels", qrels, "--popularity", pop]
    code, got, _ = _score(capsys, *argv, "--metrics", *TREC_NAMES)
    assert code == 0
    want = trec_in_memory(run, qrels, {k: float(v) for k, v in counts.items()})
    for name, value in want.items():
        assert got[name] == pytest.approx(value, abs=1e-12, nan_ok=True), name


def test_per_query_rows_read_the_items_too(tmp_path, capsys):
    run, qrels, counts = trec_files(tmp_path, seed=2)
    pop = _pop_file(tmp_path / "pop", counts)
    out = tmp_path / "per_query.csv"
    argv = [run, "--qrels", qrels, "--popularity", pop, "--per-query", out]
    code, got, _ = _score(capsys, *argv, "--metrics", "arp@3", "ndcg@3")
    assert code == 0
    table = pd.read_csv(out)
    assert table["arp@3"].mean() == pytest.approx(got["arp@3"], abs=1e-12)


def test_predictions_read_the_doc_column_as_the_item(tmp_path, capsys):
    frame = pd.DataFrame({
        "qid": [1, 1, 1, 2, 2, 2], "label": [1, 0, 1, 0, 1, 1],
        "score": [0.9, 0.8, 0.1, 0.7, 0.6, 0.2], "doc": list("abcadb"),
    })  # fmt: skip
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    pop = _pop_file(tmp_path / "pop", {"a": 4, "b": 2, "c": 1, "d": 1})
    names = ["novelty@2", "serendipity@2"]
    code, got, _ = _score(capsys, path, "--doc", "doc", "--popularity", pop,
                          "--metrics", *names)  # fmt: skip
    want = grouped_ranking_scores(
        frame["label"], frame["score"], frame["qid"], names, doc_id=frame["doc"],
        item_id=frame["doc"], popularity={"a": 4, "b": 2, "c": 1, "d": 1},
    )  # fmt: skip
    assert code == 0 and got == pytest.approx(want, abs=1e-12)
    code, _, err = _score(capsys, path, "--popularity", pop, "--metrics", *names)
    assert code == 2 and "--doc COL" in err


def test_without_popularity_the_flag_is_named(tmp_path, capsys):
    run, qrels, _ = trec_files(tmp_path)
    code, _, err = _score(capsys, run, "--qrels", qrels, "-m", "novelty@10")
    assert code == 2
    assert "'novelty@10' reads the item of each row" in err
    assert "--popularity FILE" in err


def test_popularity_without_such_a_measure_is_refused(tmp_path, capsys):
    run, qrels, counts = trec_files(tmp_path)
    pop = _pop_file(tmp_path / "pop", counts)
    code, _, err = _score(capsys, run, "--qrels", qrels, "-m", "map",
                          "--popularity", pop)  # fmt: skip
    assert code == 2 and "--popularity FILE is read by the beyond-accuracy" in err
    assert "none of the metrics asked for ('map') is one" in err


def test_an_item_missing_from_the_file_is_the_in_memory_error(tmp_path, capsys):
    run, qrels, counts = trec_files(tmp_path, seed=3)
    first = run.read_text().split()[2]
    lacking = {k: v for k, v in counts.items() if k != first}
    pop = _pop_file(tmp_path / "pop", lacking)
    code, _, err = _score(capsys, run, "--qrels", qrels, "-m", "arp@3",
                          "--popularity", pop)  # fmt: skip
    assert code == 2
    with pytest.raises(ValueError) as want:
        trec_in_memory(run, qrels, lacking, ["arp@3"])
    assert f"(first {first!r})" in str(want.value)
    assert "recommended item(s) are missing from popularity" in err
    assert f"(first {first!r})" in err


@pytest.mark.parametrize(
    "text, said",
    [
        ("d1 4\nd2 4 5\n", "line 2: 'd2 4 5' has 3 fields"),
        ("d1 4\n\nd2 many\n", "line 3: 'd2 many': the count 'many' is not a number"),
        ("d1 -1\n", "line 1: 'd1 -1': the count '-1' is not a number >= 0"),
        # float() reads 1_0 as 10; the TREC readers refuse it, and so does this.
        ("d1 1_0\n", "line 1: 'd1 1_0': the count '1_0' is not a number >= 0"),
        ("d1 4\nd1 5\n", "line 2: item 'd1' again (first on line 1)"),
        ("# nothing\n", "holds no item"),
    ],
)
def test_a_bad_popularity_file_names_its_line(tmp_path, capsys, text, said):
    run, qrels, _ = trec_files(tmp_path)
    pop = tmp_path / "pop"
    pop.write_text(text)
    code, _, err = _score(capsys, run, "--qrels", qrels, "-m", "arp@3",
                          "--popularity", pop)  # fmt: skip
    assert code == 2
    assert said in err
    assert str(pop) in err


def test_a_missing_popularity_file_is_a_usage_error(tmp_path, capsys):
    run, qrels, _ = trec_files(tmp_path)
    code, _, err = _score(capsys, run, "--qrels", qrels, "-m", "arp@3",
                          "--popularity", tmp_path / "none")  # fmt: skip
    assert code == 2 and "--popularity" in err and "none" in err


def test_trec_eval_keeps_its_refusal(tmp_path, capsys):
    run, qrels, _ = trec_files(tmp_path)
    code = main(["trec_eval", str(qrels), str(run), "-m", "novelty@10"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        "skndcg trec_eval: error: novelty@10 reads the item of each row and its "
        "training popularity, which trec_eval has no measure for and no option "
        "to give: use skndcg score RUN --qrels QRELS --popularity FILE, or "
        "skndcg.metrics.grouped_ranking_scores(..., item_id=..., popularity=...) "
        "in Python\n"
    )


def test_the_help_names_the_flag(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--popularity FILE" in text and "item id and count" in text


def test_counts_need_not_be_integers(tmp_path, capsys):
    run, qrels, counts = trec_files(tmp_path, seed=8)
    halves = {k: v + 0.5 for k, v in counts.items()}
    pop = _pop_file(tmp_path / "pop", halves)
    code, got, _ = _score(capsys, run, "--qrels", qrels, "-m", "arp@3",
                          "--popularity", pop)  # fmt: skip
    assert code == 0
    assert got["arp@3"] == pytest.approx(
        trec_in_memory(run, qrels, halves, ["arp@3"])["arp@3"], abs=1e-12
    )
    assert not np.isnan(got["arp@3"])
