"""The partial-result driver: whole queries out of batches, and the division check."""

from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg._partial._driver import finish, setup, sums_of, whole_queries
from skndcg.dask._frame import END_COLUMNS, spanning_qid
from skndcg.metrics import get_convention, grouped_ranking_scores
from skndcg.streaming._order import GroupedCheck

COLS = {
    "qid_col": "q",
    "label_col": "y",
    "score_col": "s",
    "doc_col": None,
    "sample_weight_col": None,
}


def _batches(frame, cuts):
    edges = [0, *sorted(cuts), len(frame)]
    return [frame.iloc[a:b].reset_index(drop=True) for a, b in pairwise(edges)]


def test_queries_cut_by_batches_come_out_whole():
    frame = pd.DataFrame({"q": [1, 1, 1, 2, 2, 3], "y": [1, 0, 0, 1, 0, 1]})
    pieces = list(whole_queries(_batches(frame, [2, 4]), "q", GroupedCheck("f", "q")))
    assert [first for first, _ in pieces] == [0, 3, 5]
    assert [p["q"].tolist() for _, p in pieces] == [[1, 1, 1], [2, 2], [3]]


def test_a_query_that_comes_back_is_refused_with_its_row():
    frame = pd.DataFrame({"q": [1, 1, 2, 1], "y": [1, 0, 1, 1]})
    message = (
        r"f: rows are not grouped by query id: q=1 is on rows 0-1, then again "
        r"from row 3 on, after rows of other queries"
    )
    with pytest.raises(ValueError, match=message):
        list(whole_queries(_batches(frame, [1, 3]), "q", GroupedCheck("f", "q")))


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=8),
    cuts=st.lists(st.integers(0, 48), max_size=6),
    seed=st.integers(0, 1000),
)
def test_any_batching_gives_the_in_memory_means(sizes, cuts, seed):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(len(sizes)), sizes)
    frame = pd.DataFrame({"q": q, "y": rng.integers(0, 3, q.size),
                          "s": rng.normal(size=q.size).round(1)})  # fmt: skip
    frame.loc[0, "y"] = 2  # one relevant row: the means are defined
    cuts = [c for c in cuts if c < len(frame)]
    spec = setup(["ndcg@3", "map"], COLS, None, {}, "the file")
    check = GroupedCheck("f", "q")
    parts, seen = [], []
    for _, piece in whole_queries(_batches(frame, cuts), "q", check):
        seen.extend(pd.unique(piece["q"]).tolist())
        parts.append(sums_of(piece, spec))
    assert seen == list(range(len(sizes)))  # each query once, whole
    means, counts = finish(parts, spec, "no rows")
    expected = grouped_ranking_scores(frame["y"], frame["s"], frame["q"],
                                      metrics=["ndcg@3", "map"])  # fmt: skip
    for name, value in expected.items():
        assert means[name] == pytest.approx(value, abs=1e-12, nan_ok=True)
    sums = sums_of(frame, spec)  # the whole table in one piece
    assert counts == finish([sums], spec, "no rows")[1]


@pytest.mark.parametrize("convention", ["lightgbm", "xgboost", "torchmetrics"])
def test_a_convention_object_and_weights_give_the_in_memory_means(convention):
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(12), 5)
    frame = pd.DataFrame({"q": q, "y": rng.integers(0, 3, q.size),
                          "s": rng.normal(size=q.size).round(1),
                          "w": np.repeat(rng.uniform(0.5, 1, 12), 5)})  # fmt: skip
    frame.loc[frame.q < 3, "y"] = 0  # empty queries
    conv = get_convention(convention)
    cols = dict(COLS, sample_weight_col="w")
    spec = setup(["ndcg@3", "map@5"], cols, None, {"convention": conv}, "f")
    assert spec.weighted  # the weight column makes the means weighted
    parts = [sums_of(p.reset_index(drop=True), spec)
             for _, p in frame.groupby(frame.q // 5)]  # fmt: skip
    means, counts = finish(parts, spec, "no rows")
    expected = grouped_ranking_scores(
        frame["y"], frame["s"], frame["q"], ["ndcg@3", "map@5"],
        sample_weight=frame["w"].to_numpy(), convention=convention,
    )  # fmt: skip
    assert means == pytest.approx(expected, rel=1e-15)
    assert counts == {"ndcg@3": 12, "map@5": 12}


def test_reserved_keywords_and_no_rows_are_refused():
    with pytest.raises(TypeError, match="'doc_id' is not an option here: the rows"):
        setup(["map"], COLS, None, {"doc_id": [1]}, "ddf")
    spec = setup(["map"], COLS, None, {}, "ddf")
    with pytest.raises(ValueError, match="ddf has no rows"):
        finish([], spec, "ddf has no rows")


@pytest.mark.parametrize(
    ("ends", "found"),
    [
        ([(0, 5), (5, 11)], 5),  # the shards: query 5 in both
        ([(0, 4), (5, 11)], None),
        ([(0, 4), (None, None), (4, 9)], 4),  # across an empty partition
        ([("a", "c"), ("d", "f")], None),
        ([("a", "d"), ("c", "f")], "c"),  # overlapping ranges
    ],
)
def test_spanning_qid(ends, found):
    table = pd.DataFrame(ends, columns=list(END_COLUMNS), dtype=object)
    assert spanning_qid(table) == found
