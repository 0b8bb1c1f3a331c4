"""Joining a run with its judgments: which rows, which labels, which order."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.io import RankingData, join_run_qrels, read_trec_run
from skndcg.io._join import docno_order, join_codes


def _run(rows):
    return pd.DataFrame(rows, columns=["qid", "doc_id", "score"])


def _qrels(rows):
    return pd.DataFrame(rows, columns=["qid", "doc_id", "relevance"])


RUN = _run(
    [
        ("q1", "a", 3.0),
        ("q1", "b", 2.0),
        ("q1", "x", 1.0),  # never judged
        ("q9", "a", 5.0),  # a query nobody judged
        ("q2", "c", 1.0),
    ]
)
QRELS = _qrels(
    [
        ("q1", "b", 1),
        ("q1", "c", 2),  # judged, not retrieved
        ("q1", "a", 0),
        ("q2", "c", -1),  # in the pool, unjudged: label 0
        ("q2", "d", 1),  # judged, not retrieved
        ("q3", "e", 1),  # a judged query with no results
    ]
)


def test_rows_labels_and_nan_scores():
    data = join_run_qrels(RUN, QRELS)
    assert isinstance(data, RankingData)
    frame = data.to_frame()
    assert _same(frame)
    assert int(np.isnan(data.y_score).sum()) == 3
    assert repr(data) == "RankingData(n_rows=7, n_queries=3, n_unretrieved=3)"
    assert len(data) == 7


def _same(frame):  # NaN != NaN: compare column by column
    assert frame["qid"].tolist() == ["q1", "q1", "q1", "q2", "q1", "q2", "q3"]
    assert frame["doc_id"].tolist() == ["a", "b", "x", "c", "c", "d", "e"]
    assert frame["y_true"].tolist() == [0, 1, 0, 0, 2, 1, 1]
    np.testing.assert_array_equal(
        frame["y_score"], [3.0, 2.0, 1.0, 1.0, np.nan, np.nan, np.nan]
    )
    return True


def test_run_only_queries_dropped_or_kept():
    kept = join_run_qrels(RUN, QRELS, run_only="keep").to_frame()
    q9 = kept[kept["qid"] == "q9"]
    assert q9["doc_id"].tolist() == ["a"] and q9["y_true"].tolist() == [0]
    assert "q9" not in join_run_qrels(RUN, QRELS).qid


def test_nothing_judged_is_lost_and_nothing_retrieved_is_lost():
    data = join_run_qrels(RUN, QRELS, run_only="keep").to_frame()
    pairs = set(zip(data["qid"], data["doc_id"], strict=True))
    assert pairs == set(zip(RUN["qid"], RUN["doc_id"], strict=True)) | set(
        zip(QRELS["qid"], QRELS["doc_id"], strict=True)
    )
    assert len(pairs) == len(data)


def test_depth_cut_keeps_the_best_and_breaks_ties_by_docno_descending():
    run = _run([("q", "d1", 1.0), ("q", "d3", 2.0), ("q", "d2", 2.0), ("q", "d4", 0.5)])
    qrels = _qrels([("q", "d2", 1), ("q", "d4", 1)])
    # Order: d3 (2.0, docno d3 > d2), d2, d1, d4. depth 1 keeps d3 only.
    data = join_run_qrels(run, qrels, depth=1).to_frame()
    retrieved = data[data["y_score"].notna()]
    assert retrieved["doc_id"].tolist() == ["d3"]
    cut = data[data["y_score"].isna()]
    assert sorted(cut["doc_id"]) == ["d2", "d4"]  # judged docs cut off stay
    assert cut["y_true"].tolist() == [1, 1]
    top3 = join_run_qrels(run, qrels, depth=3).to_frame()
    assert sorted(top3.loc[top3["y_score"].notna(), "doc_id"]) == ["d1", "d2", "d3"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("pq"), st.sampled_from([0.0, 1.0, -0.0, 2.5])),
        min_size=1,
        max_size=30,
    ),
    st.integers(1, 5),
)
def test_tie_key_and_depth_match_a_sort_by_score_then_docno(rows, depth):
    qid = np.array([0 if q == "p" else 1 for q, _ in rows], dtype=np.int64)
    score = np.array([s for _, s in rows])
    doc = pd.Series([f"D{i:03d}"[::-1] for i in range(len(rows))], dtype="str")
    key = docno_order(qid, score, doc)
    for q in (0, 1):
        idx = np.flatnonzero(qid == q)
        brute = sorted(idx, key=lambda i: (score[i], doc[i]), reverse=True)
        mine = sorted(idx, key=lambda i: (score[i], key[i]), reverse=True)
        assert [doc[i] for i in mine] == [doc[i] for i in brute]
    run = pd.DataFrame({"qid": qid.astype(str), "doc_id": doc, "score": score})
    qrels = _qrels([("0", "none", 1), ("1", "none", 1)])
    data = join_run_qrels(run, qrels, depth=depth).to_frame()
    for q in ("0", "1"):
        sub = run[run["qid"] == q]
        best = sorted(zip(sub["score"], sub["doc_id"], strict=True), reverse=True)[
            :depth
        ]
        got = data[(data["qid"] == q) & data["y_score"].notna()]
        assert sorted(got["doc_id"]) == sorted(d for _, d in best)


def test_codes_follow_byte_order_of_query_ids():
    run = _run([("b", "x", 1.0), ("B", "x", 1.0), ("a", "x", 1.0)])
    qrels = _qrels([("b", "x", 1), ("B", "x", 0), ("a", "x", 1), ("10", "x", 1)])
    coded = join_codes(run, qrels)
    assert coded.names.tolist() == ["10", "B", "a", "b"]  # strcmp order
    assert coded.names[coded.qid].tolist() == ["b", "B", "a", "10"]


def test_duplicate_retrieved_pair_names_file_and_lines(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 a 3 1 r\n")
    qrels = _qrels([("q", "a", 1)])
    with pytest.raises(
        ValueError,
        match=r"run\.txt, lines 1, 3: document 'a' appears more than once for "
        r"query 'q' in the run.*duplicate docs",
    ):
        join_run_qrels(read_trec_run(path), qrels)
    # trec_eval checks only the documents within the depth it evaluates.
    data = join_run_qrels(read_trec_run(path), qrels, depth=2)
    assert data.to_frame()["doc_id"].tolist() == ["a", "b"]


def test_duplicate_in_a_frame_without_a_file():
    run = _run([("q", "a", 1.0), ("q", "a", 2.0)])
    with pytest.raises(ValueError, match="document 'a' appears more than once"):
        join_run_qrels(run, _qrels([("q", "a", 1)]))


@pytest.mark.parametrize(
    ("run", "qrels", "kwargs", "error", "match"),
    [
        (
            RUN.drop(columns="score"),
            QRELS,
            {},
            ValueError,
            r"run has no column 'score'; its columns are \['qid', 'doc_id'\]",
        ),
        (
            RUN,
            QRELS.rename(columns={"relevance": "rel"}),
            {},
            ValueError,
            r"qrels has no column 'relevance'; its columns are",
        ),
        (
            RUN.assign(score=[1, 2, np.inf, 3, 4]),
            QRELS,
            {},
            ValueError,
            "run scores must be finite",
        ),
        (RUN, QRELS.assign(relevance=0.5), {}, ValueError, "must hold integers"),
        (
            RUN.assign(qid=["q1", None, "q1", "q9", "q2"]),
            QRELS,
            {},
            ValueError,
            "run column 'qid' is missing a value at row 1",
        ),
        (RUN, QRELS, {"run_only": "all"}, ValueError, "run_only must be"),
        (RUN, QRELS, {"depth": 0}, ValueError, "depth must be a positive integer"),
        ([1, 2], QRELS, {}, TypeError, "run must be a pandas DataFrame"),
    ],
)
def test_bad_inputs(run, qrels, kwargs, error, match):
    with pytest.raises(error, match=match):
        join_run_qrels(run, qrels, **kwargs)


def test_inputs_are_not_modified():
    run, qrels = RUN.copy(), QRELS.copy()
    join_run_qrels(run, qrels, depth=1)
    pd.testing.assert_frame_equal(run, RUN)
    pd.testing.assert_frame_equal(qrels, QRELS)


def test_integer_query_ids_match_string_ones():
    run = _run([(1, "a", 1.0)])
    qrels = _qrels([("1", "a", 1)])
    data = join_run_qrels(run, qrels)
    assert data.qid.tolist() == ["1"] and data.y_true.tolist() == [1]


def test_empty_qrels():
    with pytest.raises(ValueError, match="qrels has no rows"):
        join_run_qrels(RUN, QRELS.iloc[:0])


@pytest.mark.parametrize("depth", [None, 2])
def test_hash_collisions_never_change_the_result(monkeypatch, depth):
    from skndcg.io import _hashing

    expected = join_run_qrels(RUN, QRELS, depth=depth, run_only="keep").to_frame()
    # Every string gets the same hash: every key collides.
    monkeypatch.setattr(
        _hashing, "string_hashes", lambda v: np.zeros(len(v), dtype=np.uint64)
    )
    got = join_run_qrels(RUN, QRELS, depth=depth, run_only="keep").to_frame()
    pd.testing.assert_frame_equal(got, expected)
    with pytest.raises(ValueError, match="document 'a' appears more than once"):
        join_run_qrels(pd.concat([RUN, RUN.iloc[:1]]), QRELS)


def test_string_hashes_agree_across_storage():
    from skndcg.io._hashing import string_hashes

    values = ["d1", "é-x", "", "d1"]
    arrow = string_hashes(pd.Series(values, dtype="str"))
    assert arrow[0] == arrow[3] and len(set(arrow[:3])) == 3
    obj = string_hashes(np.array(values, dtype=object))
    assert obj[0] == obj[3] and len(set(obj[:3])) == 3


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=40), st.randoms())
def test_query_blocks_find_repeats_in_any_row_order(qids, rnd):
    from skndcg.io._hashing import QueryBlocks

    qid = np.array(qids, dtype=np.int64)
    values = np.array([rnd.randint(0, 5) for _ in qids], dtype=np.uint64)
    got = QueryBlocks(qid).repeated(values)
    pairs = list(zip(qid, values, strict=True))
    assert got.tolist() == [pairs.count(p) > 1 for p in pairs]


@settings(max_examples=25, deadline=None)
@given(st.randoms())
def test_join_is_invariant_to_row_order(rnd):
    run = RUN.sample(frac=1, random_state=rnd.randint(0, 1000)).reset_index(drop=True)
    qrels = QRELS.sample(frac=1, random_state=rnd.randint(0, 1000))
    got = join_run_qrels(run, qrels, run_only="keep", depth=2).to_frame()
    want = join_run_qrels(RUN, QRELS, run_only="keep", depth=2).to_frame()
    key = ["qid", "doc_id"]
    pd.testing.assert_frame_equal(
        got.sort_values(key).reset_index(drop=True),
        want.sort_values(key).reset_index(drop=True),
    )


def test_docno_keys_are_unique_within_each_query():
    run = _run(
        [
            ("q", "b", 1.0),
            ("q", "a", 1.0),
            ("q", "c", 2.0),
            ("r", "a", 1.0),
            ("r", "z", 1.0),
        ]
    )
    qrels = _qrels([("q", "x", 1), ("q", "y", 1), ("r", "a", 1), ("s", "x", 1)])
    coded = join_codes(run, qrels)
    frame = pd.DataFrame({"q": coded.qid, "key": coded.doc_order})
    assert not frame.duplicated().any()
    # q's tie (a, b) and r's tie (a, z): b above a, z above a.
    keys = dict(
        zip(
            zip(coded.names[coded.qid], pd.concat(coded.docs), strict=True),
            coded.doc_order,
            strict=True,
        )
    )
    assert keys[("q", "b")] > keys[("q", "a")]
    assert keys[("r", "z")] > keys[("r", "a")]


def test_string_hashes_of_chunked_arrays_match_one_array():
    pa = pytest.importorskip("pyarrow")
    from skndcg.io._hashing import string_hashes

    values = [f"doc{i}" for i in range(50)]
    chunked = pa.chunked_array([values[:7], values[7:7], values[7:31], values[31:]])
    sliced = pa.array(["x", *values])[1:]  # an offset into the buffers
    whole = string_hashes(pa.array(values))
    np.testing.assert_array_equal(string_hashes(chunked), whole)
    np.testing.assert_array_equal(string_hashes(sliced), whole)
    assert len(set(whole.tolist())) == 50


@pytest.mark.parametrize("unjudged", ["nan", "pool"])
@pytest.mark.parametrize("depth", [None, 2])
@pytest.mark.parametrize("nul", [False, True])
def test_file_join_telling_unjudged_apart_matches_the_frame_join(
    tmp_path, unjudged, depth, nul
):
    # join_trec_files joins these in numpy at any size; join_run_qrels is the
    # DataFrame join. The same rows, query by query (ids with a NUL too, which
    # numpy's fixed-width strings would cut).
    from skndcg.io import join_trec_files, read_trec_qrels

    rng = np.random.default_rng(7)
    end = "\x00" if nul else ""
    run_lines, qrels_lines = [], []
    for q in range(6):
        for d in rng.choice(12, size=6, replace=False):
            run_lines.append(f"q{q} Q0 d{d}{end} 0 {rng.integers(0, 3)} t\n")
        for d in rng.choice(12, size=5, replace=False):
            qrels_lines.append(f"q{q} 0 d{d}{end} {rng.integers(-1, 3)}\n")
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text("".join(run_lines))
    qrels.write_text("".join(qrels_lines))
    coded = join_trec_files(run, qrels, depth=depth, unjudged=unjudged)
    data = join_run_qrels(
        read_trec_run(run), read_trec_qrels(qrels), depth=depth, unjudged=unjudged
    )

    def per_query(names, y_true, y_score):
        rows = pd.DataFrame({"q": names, "y": y_true, "s": y_score})
        rows = rows.sort_values(["q", "y", "s"], na_position="last")
        return rows.reset_index(drop=True)

    pd.testing.assert_frame_equal(
        per_query(coded.names[coded.qid], coded.y_true, coded.y_score),
        per_query(data.qid.astype(str), data.y_true, data.y_score),
    )
