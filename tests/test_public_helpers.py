"""The public functions the command line builds on: ``get_convention`` and
``TREC_RUN_CONVENTION``, ``ranking_report(return_means=True)`` and
``skndcg.io.is_stream``."""

import os
import pickle
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.io import is_stream
from skndcg.metrics import (
    CONVENTIONS,
    TREC_RUN_CONVENTION,
    get_convention,
    grouped_map_score,
    grouped_ranking_scores,
    ranking_report,
)

NAMES = ["ndcg@3", "map", "p@2", "mrr"]


# ------------------------------------------------------------------ conventions
@pytest.mark.parametrize("name", CONVENTIONS)
def test_every_preset_resolves_in_any_spelling(name):
    conv = get_convention(name)
    assert conv.name == name
    assert get_convention(name.upper().replace("_", "-")) is conv
    assert get_convention(conv) is conv


def test_the_defaults_and_the_trec_run_preset():
    assert get_convention(None).name == "skndcg"
    assert TREC_RUN_CONVENTION in CONVENTIONS
    assert get_convention(TREC_RUN_CONVENTION).doc_ties


def test_rules_read_as_their_names_and_pickle():
    conv = get_convention("xgboost")
    assert (conv.gain, conv.labels, conv.score_dtype) == (
        "exponential", "xgboost", "float32")  # fmt: skip
    assert "labels='xgboost'" in repr(conv)
    assert "weighting='empty_unweighted_clamped'" in repr(conv)
    assert pickle.loads(pickle.dumps(conv)) == conv
    trec = get_convention(TREC_RUN_CONVENTION)
    assert trec.labels.unjudged_rule() == "pool"
    assert get_convention("skndcg").labels.unjudged_rule() == "nan"


def test_an_unknown_preset_is_refused_with_the_list():
    with pytest.raises(ValueError, match=r"convention='nope'.*'trec_eval'"):
        get_convention("nope")


def test_doc_ties_says_which_presets_order_ties_by_doc_id():
    # Two rows tied on score, the relevant one with the smaller doc id: a preset
    # that breaks ties by doc id, descending, ranks it second (AP 1/2); the
    # others do not read doc_id for ties, so doc ids in reverse order change
    # nothing for them.
    y, s, q = [0, 1], [0.5, 0.5], [1, 1]
    kinds = set()
    for name in CONVENTIONS:
        conv = get_convention(name)
        a = grouped_map_score(y, s, q, doc_id=["d2", "d1"], convention=name)
        b = grouped_map_score(y, s, q, doc_id=["d1", "d2"], convention=name)
        if conv.doc_ties:
            assert (a, b) == (0.5, 1.0), name
        else:
            assert a == b, name
        kinds.add(conv.doc_ties)
    assert kinds == {True, False}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_presorted_scores_rows_already_in_doc_order_the_same(seed):
    # Rows sorted by query, score descending and doc id descending need no
    # reordering: the presorted convention on them gives trec_eval's numbers.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    q = rng.integers(0, 5, n)
    s = rng.integers(0, 3, n).astype(float)  # many ties
    y = rng.integers(0, 3, n)
    doc = rng.permutation(n)
    order = np.lexsort((-doc, -s, q))
    conv = get_convention(TREC_RUN_CONVENTION)
    want = grouped_ranking_scores(y, s, q, NAMES, convention=conv, doc_id=doc)
    got = grouped_ranking_scores(
        y[order], s[order], q[order], NAMES, convention=conv.presorted()
    )
    for name in NAMES:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-12)


# ------------------------------------------------------------------ report and means
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["skndcg", "trec_eval", "ranx"]))
def test_return_means_gives_the_report_and_the_grouped_scores(seed, convention):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    q = rng.integers(0, 6, n)
    y = rng.integers(0, 3, n)
    y[rng.integers(n)] = 2  # a relevant row: not every query is skipped
    s = np.round(rng.standard_normal(n), 1)
    alone = ranking_report(y, s, q, metrics=NAMES, convention=convention)
    report, means = ranking_report(
        y, s, q, metrics=NAMES, convention=convention, return_means=True
    )
    assert report.equals(alone)
    want = grouped_ranking_scores(y, s, q, NAMES, convention=convention)
    assert list(means) == NAMES
    for name in NAMES:
        np.testing.assert_allclose(means[name], want[name], rtol=0, atol=1e-12)


def test_return_means_by_hand():
    # Query a: ranked labels 2, 3, 0 -> DCG@3 = 2 + 3/log2(3); ideal 3 + 2/log2(3).
    # Query b has no relevant row and is skipped.
    report, means = ranking_report(
        [3, 2, 0, 0], [0.5, 0.9, 0.1, 0.3], ["a", "a", "a", "b"],
        metrics="ndcg@3", return_means=True,
    )  # fmt: skip
    want = (2 + 3 / np.log2(3)) / (3 + 2 / np.log2(3))
    assert means == {"ndcg@3": pytest.approx(want, abs=1e-12)}
    assert report["skipped"].tolist() == ["", "no relevant item: ideal DCG@3 is 0"]


def test_return_means_with_segments():
    y, s, q = [1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2], [1, 1, 2, 2]
    report, means = ranking_report(
        y, s, q, metrics="mrr", by={1: "x", 2: "y"}, return_means=True
    )
    assert report["segment"].tolist() == ["x", "y"]
    assert means == {"mrr": pytest.approx(0.75)}


# ------------------------------------------------------------------ streams
def test_regular_files_folders_and_missing_paths_are_not_streams(tmp_path):
    f = tmp_path / "run.txt"
    f.write_text("1 Q0 d 1 1.0 r\n")
    assert not is_stream(f) and not is_stream(str(f))
    assert not is_stream(tmp_path)
    assert not is_stream(tmp_path / "missing")


@pytest.mark.parametrize("value", [None, 0, 3.5, ["run.txt"]])
def test_what_is_not_a_path_is_not_a_stream(value):
    assert is_stream(value) is False


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_named_pipes_and_devices_are_streams_and_nothing_is_read(tmp_path):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    got = []
    checker = threading.Thread(target=lambda: got.append(is_stream(fifo)))
    checker.start()
    checker.join(timeout=10)  # opening a FIFO without a writer would block
    assert got == [True]
    assert is_stream(os.devnull)


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="needs /dev/fd")
def test_an_anonymous_pipe_is_a_stream():
    read_end, write_end = os.pipe()
    try:
        assert is_stream(f"/dev/fd/{read_end}")
    finally:
        os.close(read_end)
        os.close(write_end)
