"""Runs and qrels as mappings (pytrec_eval's layout) and ranx objects."""

import numpy as np
import pandas as pd
import pytest

from skndcg.io import join_run_qrels
from skndcg.metrics import grouped_ranking_scores

RUN = {"q1": {"d1": 2.0, "d5": 1.0, "d2": 0.5}, "q2": {"d7": 1.0, "d8": 3.0}}
QRELS = {"q1": {"d1": 1, "d2": 2, "d9": 1}, "q2": {"d7": 1}, "q3": {"d1": 1}}


def frames():
    run = pd.DataFrame(
        [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
        columns=["qid", "doc_id", "score"],
    )
    qrels = pd.DataFrame(
        [(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()],
        columns=["qid", "doc_id", "relevance"],
    )
    return run, qrels


def as_arrays(data):
    return [np.asarray(a) for a in (data.qid, data.doc_id, data.y_true, data.y_score)]


def test_mappings_join_as_frames_do():
    want = as_arrays(join_run_qrels(*frames()))
    got = as_arrays(join_run_qrels(RUN, QRELS))
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_mixed_inputs_and_unjudged():
    run, _ = frames()
    got = join_run_qrels(run, QRELS, unjudged="nan")
    want = join_run_qrels(*frames(), unjudged="nan")
    np.testing.assert_array_equal(got.y_true, want.y_true)


def test_ranx_objects():
    ranx = pytest.importorskip("ranx")
    data = join_run_qrels(ranx.Run(RUN, name="bm25"), ranx.Qrels(QRELS))
    want = join_run_qrels(RUN, QRELS)

    # The same rows (ranx keeps each query's documents in its own order).
    def rows(d):
        frame = d.to_frame().sort_values(["qid", "doc_id"], ignore_index=True)
        return frame.astype({"qid": str, "doc_id": str})

    pd.testing.assert_frame_equal(rows(data), rows(want))
    # And the numbers are ranx's own.
    ours = grouped_ranking_scores(
        data.y_true, data.y_score, data.qid, ["ndcg@3", "map"],
        convention="ranx", nan_score="unretrieved", queries="judged",
    )  # fmt: skip
    # make_comparable: q3, judged with no results, scores 0 (queries="judged").
    theirs = ranx.evaluate(ranx.Qrels(QRELS), ranx.Run(RUN), ["ndcg@3", "map"],
                           make_comparable=True)  # fmt: skip
    assert ours["ndcg@3"] == pytest.approx(theirs["ndcg@3"], abs=1e-12)
    assert ours["map"] == pytest.approx(theirs["map"], abs=1e-12)


@pytest.mark.parametrize(
    "run, qrels, error, message",
    [
        (
            [1, 2],
            QRELS,
            TypeError,
            "run must be a pandas DataFrame such as read_trec_run returns, a mapping",
        ),
        (RUN, {"q1": [1]}, TypeError, r"qrels\['q1'\] must be a mapping"),
        ({"q1": {"d1": "high"}}, QRELS, ValueError, r"run\['q1'\]\['d1'\] = 'high'"),
        ({"q1": {"d1": float("nan")}}, QRELS, ValueError, "scores must be finite"),
        (RUN, {"q1": {"d1": 1.5}}, ValueError, "judgments must be integers"),
    ],
)
def test_bad_mappings(run, qrels, error, message):
    with pytest.raises(error, match=message):
        join_run_qrels(run, qrels)
