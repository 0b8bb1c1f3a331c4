"""``read_predictions_chunks``: whole queries, in file order, every row once, with
the rows a read splits joined without copying the rest of the batch."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.io import read_predictions_chunks
from skndcg.streaming import score_trec_run


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=8),
    row_group=st.integers(1, 10),
    chunk_rows=st.integers(1, 12),
    as_text=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_chunks_are_whole_queries_in_file_order(
    tmp_path_factory, sizes, row_group, chunk_rows, as_text, seed
):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(len(sizes)) * 3, sizes)
    frame = pd.DataFrame({"q": q.astype(str) if as_text else q,
                          "y": rng.integers(0, 3, q.size),
                          "s": rng.random(q.size)})  # fmt: skip
    path = tmp_path_factory.mktemp("chunks") / "p.parquet"
    frame.to_parquet(path, row_group_size=row_group)
    chunks = list(
        read_predictions_chunks(path, qid="q", label="y", score="s",
                                chunk_rows=chunk_rows)
    )  # fmt: skip
    assert all(len(c) for c in chunks)
    # every row once, in order, indexed by its file row
    rows = np.concatenate([c.index.to_numpy() for c in chunks])
    np.testing.assert_array_equal(rows, np.arange(q.size))
    pd.testing.assert_frame_equal(pd.concat(chunks), frame)
    # each query in exactly one chunk
    owner = {}
    for i, chunk in enumerate(chunks):
        for key in pd.unique(chunk["q"]).tolist():
            assert owner.setdefault(key, i) == i, key
    assert len(owner) == len(sizes)
    # a chunk is at most one read plus the rows of the query a read split
    longest = max(sizes)
    assert all(len(c) <= chunk_rows + longest for c in chunks)


def test_a_split_query_is_named_with_its_run_rows(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text(
        "# a comment line\n1 Q0 a 1 0.9 t\n1 Q0 b 2 0.8 t\n2 Q0 c 1 0.5 t\n"
        "1 Q0 z 9 0.5 t\n"
    )
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n2 0 c 1\n")
    for batch_lines in (1, 2, 3, 10):
        with pytest.raises(ValueError) as err:
            score_trec_run(run, qrels, ["map"], batch_lines=batch_lines)
        assert str(err.value).startswith(
            f"{run}: rows are not grouped by query id: qid='1' is on run rows "
            "0-1, then again from run row 3 on, after rows of other queries."
        )


def test_a_single_row_query_is_named_by_its_row(tmp_path):
    path = tmp_path / "p.parquet"
    pd.DataFrame({"q": [3, 3, 1, 2, 1], "y": [1, 0, 1, 0, 1],
                  "s": [0.1, 0.2, 0.3, 0.4, 0.5]}).to_parquet(path)  # fmt: skip
    from skndcg.streaming import score_parquet

    with pytest.raises(ValueError, match=r"q=1 is on row 2, then again from row 4"):
        score_parquet(path, ["map"], qid_col="q", label_col="y", score_col="s",
                      batch_size=2)  # fmt: skip


def _first_return(ids):
    """Brute force: (key, first row, last row of its first run, row it returns at)
    of the first query id that comes back after another one, or None."""
    runs = []  # [key, start, stop)
    for row, key in enumerate(ids):
        if runs and runs[-1][0] == key:
            runs[-1][2] = row + 1
        else:
            runs.append([key, row, row + 1])
    seen = {}
    for key, start, stop in runs:
        if key in seen:
            return key, seen[key][0], seen[key][1] - 1, start
        seen[key] = (start, stop)
    return None


@settings(max_examples=60, deadline=None)
@given(
    ids=st.lists(st.integers(0, 4), min_size=1, max_size=30),
    cuts=st.lists(st.integers(1, 29), max_size=5),
)
def test_the_order_check_names_the_first_query_that_comes_back(ids, cuts):
    from itertools import pairwise

    from skndcg._partial._driver import whole_queries
    from skndcg.streaming._order import GroupedCheck

    frame = pd.DataFrame({"q": ids})
    edges = [0, *sorted(c for c in cuts if c < len(ids)), len(ids)]
    batches = [frame.iloc[a:b].reset_index(drop=True) for a, b in pairwise(edges)]
    want = _first_return(ids)
    check = GroupedCheck("f", "q")
    if want is None:
        list(whole_queries(batches, "q", check))
        return
    key, first, last, again = want
    span = f"row {first}" if first == last else f"rows {first}-{last}"
    with pytest.raises(ValueError) as err:
        list(whole_queries(batches, "q", check))
    assert str(err.value).startswith(
        f"f: rows are not grouped by query id: q={key} is on {span}, then again "
        f"from row {again} on, after rows of other queries."
    )
