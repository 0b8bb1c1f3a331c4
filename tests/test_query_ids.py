"""Tests for skndcg.utils._query_ids (query-id resolution and layout)."""

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.utils._query_ids import query_layout, resolve_qid


@pytest.fixture
def frame():
    return pd.DataFrame({"qid": [3, 3, 1, 2, 1], "f": [0.1, 0.2, 0.3, 0.4, 0.5]})


def test_column_channel_drops_column_without_mutating(frame):
    before = frame.copy()
    X_model, qid = resolve_qid(frame)
    assert list(X_model.columns) == ["f"]
    assert qid.tolist() == [3, 3, 1, 2, 1]
    pd.testing.assert_frame_equal(frame, before)


def test_custom_column_name():
    X = pd.DataFrame({"user": ["a", "b", "a"], "f": [1.0, 2.0, 3.0]})
    X_model, qid = resolve_qid(X, qid_col="user")
    assert qid.tolist() == ["a", "b", "a"]
    assert list(X_model.columns) == ["f"]


def test_routed_qid_wins_and_column_is_still_dropped(frame):
    X_model, qid = resolve_qid(frame, qid=[9, 9, 9, 8, 8])
    assert qid.tolist() == [9, 9, 9, 8, 8]
    assert list(X_model.columns) == ["f"]


def test_drop_col_false_keeps_x(frame):
    X_model, qid = resolve_qid(frame, drop_col=False)
    assert X_model is frame
    assert qid.tolist() == [3, 3, 1, 2, 1]
    X_model, _ = resolve_qid(frame, qid=[1, 1, 1, 1, 1], drop_col=False)
    assert X_model is frame


def test_routed_qid_with_numpy_x():
    X = np.zeros((3, 2))
    X_model, qid = resolve_qid(X, qid=pd.Series([1, 2, 1]))
    assert X_model is X
    assert qid.tolist() == [1, 2, 1]


def test_polars_frame_and_series():
    X = pl.DataFrame({"qid": [1, 1, 2], "f": [0.1, 0.2, 0.3]})
    X_model, qid = resolve_qid(X)
    assert X_model.columns == ["f"]
    assert X.columns == ["qid", "f"]
    assert qid.tolist() == [1, 1, 2]
    _, qid = resolve_qid(X_model, qid=pl.Series([5, 5, 6]))
    assert qid.tolist() == [5, 5, 6]


def test_error_numpy_without_qid():
    with pytest.raises(ValueError, match=r"X is a ndarray.*enable_metadata_routing"):
        resolve_qid(np.zeros((2, 2)), caller="myfunc")
    with pytest.raises(ValueError, match=r"^myfunc: query ids not found"):
        resolve_qid(np.zeros((2, 2)), caller="myfunc")


def test_error_missing_column_lists_columns(frame):
    with pytest.raises(ValueError, match=r"no column 'user'.*\['qid', 'f'\]"):
        resolve_qid(frame, qid_col="user")


def test_error_missing_values_in_column():
    X = pd.DataFrame({"qid": [1.0, np.nan, 2.0, np.nan], "f": [0.0] * 4})
    with pytest.raises(ValueError, match=r"column 'qid' of X has 2 missing.*row 1"):
        resolve_qid(X)


def test_error_missing_values_in_routed_qid():
    with pytest.raises(
        ValueError, match=r"qid has 1 missing value\(s\) \(first at row 2\)"
    ):
        resolve_qid(np.zeros((3, 1)), qid=["a", "b", None])


def test_error_length_mismatch():
    with pytest.raises(ValueError, match="qid has 2 entries but X has 3 rows"):
        resolve_qid(np.zeros((3, 1)), qid=[1, 2])


def test_error_two_dimensional_qid():
    with pytest.raises(ValueError, match="one-dimensional"):
        resolve_qid(np.zeros((2, 1)), qid=[[1], [2]])


def test_layout_hand_computed():
    order, codes, sizes, uniques = query_layout(np.array([5, 2, 5, 7, 2, 5]))
    assert order.tolist() == [0, 2, 5, 1, 4, 3]
    assert codes.tolist() == [0, 0, 0, 1, 1, 2]
    assert sizes.tolist() == [3, 2, 1]
    assert uniques.tolist() == [5, 2, 7]


def test_layout_contiguous_but_not_ascending_is_left_alone():
    # np.unique would give sizes [3, 2] here; the true run lengths are [2, 3].
    order, codes, sizes, _ = query_layout(np.array([5, 5, 2, 2, 2]))
    assert order is None
    assert codes.tolist() == [0, 0, 1, 1, 1]
    assert sizes.tolist() == [2, 3]


def test_layout_empty():
    order, codes, sizes, _ = query_layout(np.array([], dtype=int))
    assert order is None
    assert codes.size == 0
    assert sizes.size == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=40))
def test_layout_properties(ids):
    qid = np.array(ids)
    order, codes, sizes, uniques = query_layout(qid)
    order = np.arange(len(ids)) if order is None else order
    # a permutation of the rows, stable within each query
    assert sorted(order.tolist()) == list(range(len(ids)))
    assert np.array_equal(uniques[codes], qid[order])
    assert np.all(np.diff(codes) >= 0)
    assert sizes.sum() == len(ids)
    for code in range(len(uniques)):
        rows = order[codes == code]
        assert np.all(np.diff(rows) > 0)
