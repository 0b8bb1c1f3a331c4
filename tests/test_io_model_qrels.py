"""A run joined with human and model judgments: ``io.open_input(model_qrels=)``
and ``skndcg score RUN --qrels HUMAN --model-qrels MODEL`` on top of it."""

import json

import numpy as np
import pytest

from skndcg.cli import main
from skndcg.evaluation import prediction_powered_report
from skndcg.io import open_input

RUN = """q1 Q0 d2 1 3.0 sys
q1 Q0 d1 2 2.0 sys
q1 Q0 d8 3 1.0 sys
q2 Q0 d1 1 5.0 sys
q3 Q0 d5 1 0.5 sys
"""
HUMAN = """q1 0 d2 2
q1 0 d3 1
q1 0 d9 -1
zz 0 d1 3
"""
MODEL = """q2 0 d7 1
q1 0 d1 1
q1 0 d4 2
q2 0 d1 0
q3 0 d5 1
zz 0 d1 2
"""


def _write(folder, **texts):
    paths = {}
    for name, text in texts.items():
        paths[name] = folder / name
        paths[name].write_text(text)
    return {k: str(v) for k, v in paths.items()}


@pytest.fixture
def paths(tmp_path):
    return _write(tmp_path, run=RUN, human=HUMAN, model=MODEL)


def test_two_label_join_by_hand(paths):
    coded = open_input(paths["run"], paths["human"], model_qrels=paths["model"])
    got = list(zip(coded.names[coded.qid], coded.docs[0], strict=True))
    # Each query: the run's rows in run order, then the documents either file
    # judged that the run missed, in docno order; zz is not in the run.
    assert got == [
        ("q1", "d2"), ("q1", "d1"), ("q1", "d8"), ("q1", "d3"), ("q1", "d4"),
        ("q1", "d9"), ("q2", "d1"), ("q2", "d7"), ("q3", "d5"),
    ]  # fmt: skip
    np.testing.assert_array_equal(
        coded.y_score, [3.0, 2.0, 1.0, np.nan, np.nan, np.nan, 5.0, np.nan, 0.5]
    )
    # Human labels: as judged (negative too), 0 for an unjudged document of a
    # judged query, NaN on the queries the human file does not judge.
    np.testing.assert_array_equal(
        coded.y_true, [2, 0, 0, 1, 0, -1, np.nan, np.nan, np.nan]
    )
    np.testing.assert_array_equal(coded.y_model, [0, 1, 0, 0, 2, 0, 0, 1, 1])
    assert coded.grades == (-1.0, 3.0)  # zz counts, though not in the run
    assert coded.tag == "sys"


def test_two_label_join_depth(paths):
    coded = open_input(
        paths["run"], paths["human"], model_qrels=paths["model"], depth=1
    )
    q1 = coded.names[coded.qid] == "q1"
    # d1 (judged by the model) is cut off and stays as an unretrieved row; d8
    # (nobody judged it) is gone.
    assert coded.docs[0][q1].tolist() == ["d2", "d1", "d3", "d4", "d9"]
    np.testing.assert_array_equal(
        coded.y_score[q1], [3.0, np.nan, np.nan, np.nan, np.nan]
    )
    np.testing.assert_array_equal(coded.y_model[q1], [0, 1, 0, 2, 0])


def test_model_missing_a_query(tmp_path):
    paths = _write(
        tmp_path, run=RUN, human=HUMAN, model=MODEL.replace("q3 0 d5 1\n", "")
    )
    with pytest.raises(ValueError, match=r"model has no judgment for the queries q3 "):
        open_input(paths["run"], paths["human"], model_qrels=paths["model"])
    with pytest.raises(ValueError, match="give qrels"):
        open_input(paths["run"], model_qrels=paths["model"])
    with pytest.raises(ValueError, match="takes none of"):
        open_input(
            paths["run"], paths["human"], model_qrels=paths["model"], unjudged="nan"
        )


@pytest.mark.parametrize(
    "name, text, match",
    [
        ("model", MODEL + "q1 0 d4 0\n", r"model, lines 3, 7: document 'd4' appears"),
        ("model", MODEL + "q1 0 d4\n", r"model.*line 7"),
        ("model", MODEL + "q1 0 d6 x\n", r"model.*line 7"),
        ("run", RUN + "q2 Q0 d1 9 1.0 sys\n", r"run, lines 4, 6: document 'd1'"),
        ("human", HUMAN + "q1 0 d3 0\n", r"human, lines 2, 5: document 'd3'"),
    ],
)
def test_duplicates_and_bad_lines(tmp_path, capsys, name, text, match):
    texts = {"run": RUN, "human": HUMAN, "model": MODEL, name: text}
    paths = _write(tmp_path, **texts)
    with pytest.raises(ValueError, match=match):
        open_input(paths["run"], paths["human"], model_qrels=paths["model"])
    code = main(["score", paths["run"], "--qrels", paths["human"],
                 "--model-qrels", paths["model"]])  # fmt: skip
    assert code == 2 and name in capsys.readouterr().err


def _generated(folder, seed):
    """A run with tied scores, human judgments of some queries (negative
    ones too) and a model's of every query: the files, and the rows the
    command scores built by hand as (qid, doc, human, model, score, judged)."""
    rng = np.random.default_rng(seed)
    run, human, model, rows = [], [], [], []
    for q in range(30):
        qid = f"q{q:02d}"
        docs = [f"d{d}" for d in rng.choice(40, 16, replace=False)]
        scores = rng.integers(0, 6, 10) / 2
        by_human = q % 3 == 0
        labels = {}  # the model judges docs[2:], humans too on their queries
        for doc in docs[2:]:
            y = int(rng.integers(-1, 4)) if by_human else np.nan
            labels[doc] = (y, int(rng.integers(0, 4)))
            model.append(f"{qid} 0 {doc} {labels[doc][1]}\n")
            if by_human:
                human.append(f"{qid} 0 {doc} {y}\n")
        for doc, sc in zip(docs[:10], scores, strict=True):
            run.append(f"{qid} Q0 {doc} 0 {sc} sys\n")
            y, ym = labels.get(doc, (0 if by_human else np.nan, 0))
            rows.append((qid, doc, y, ym, sc, doc in labels))
        for doc in sorted(docs[10:]):
            rows.append((qid, doc, *labels[doc], np.nan, True))
    paths = _write(folder, run="".join(run), human="".join(human),
                   model="".join(model))  # fmt: skip
    return paths, rows


def _direct(rows, metrics, depth=None):
    """``prediction_powered_report`` on the rows, each query cut by hand to
    its ``depth`` best retrieved documents (score, then docno, descending)."""
    qid, doc, y, ym, score, judged = (np.array(c) for c in zip(*rows, strict=True))
    y, ym, score = y.astype(float), ym.astype(float), score.astype(float)
    if depth is not None:
        for q in np.unique(qid):
            at = np.flatnonzero((qid == q) & ~np.isnan(score))
            ranked = sorted(at, key=lambda i: (score[i], doc[i]), reverse=True)
            score[ranked[depth:]] = np.nan
        keep = ~np.isnan(score) | judged  # a cut document nobody judged goes
        qid, doc, y, ym, score = (c[keep] for c in (qid, doc, y, ym, score))
    h = y[~np.isnan(y)]
    return prediction_powered_report(
        y, ym, score, qid, metrics=metrics,
        grades=(min(h.min(), 0.0), max(h.max(), 1.0)),
        metric_options={"nan_score": "unretrieved", "doc_id": doc,
                        "convention": "trec_eval"},
    ).set_index("metric")  # fmt: skip


@pytest.mark.parametrize("depth", [None, 3])
def test_command_against_the_library(tmp_path, capsys, depth):
    paths, rows = _generated(tmp_path, 7)
    metrics = ["ndcg@5", "p@3", "map", "recall@5", "bpref"]
    extra = [] if depth is None else ["-M", str(depth)]
    code = main(["score", paths["run"], "--qrels", paths["human"], "--model-qrels",
                 paths["model"], "--format", "json", "--metrics", *metrics,
                 *extra])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and (out["n_queries"], out["n_judged"]) == (30, 10)
    rep = _direct(rows, metrics, depth)
    for m in metrics:
        got = out["metrics"][m]
        for source, pre in (("ppi++", ""), ("model only", "model_only_"),
                            ("human only", "human_only_")):  # fmt: skip
            cols = (pre[:-1] or "estimate", f"{pre}low", f"{pre}high")
            want = [rep.loc[m, c] for c in cols]
            assert [got[source]["mean"], *got[source]["ci"]] == want
