"""GroupTimeSeriesSplit: guarantees checked over random group/time layouts."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import TimeSeriesSplit

from skndcg.model_selection import GroupTimeSeriesSplit

DAY = np.timedelta64(1, "D")


@st.composite
def layouts(draw):
    """Interleaved, non-contiguous groups with tied and overlapping times."""
    n = draw(st.integers(1, 40))
    n_labels = draw(st.integers(1, n))
    groups = np.array(
        draw(st.lists(st.integers(0, n_labels - 1), min_size=n, max_size=n))
    )
    time = np.array(draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)))
    return groups, time


@st.composite
def splitters(draw):
    test_size = draw(
        st.one_of(
            st.none(),
            st.integers(1, 4),
            st.sampled_from([0.2, 0.4]),
            st.sampled_from(["3D", "7D", "W", "M"]),
        )
    )
    n_splits = (
        draw(st.integers(1, 4))
        if test_size is None
        else draw(st.one_of(st.none(), st.integers(1, 4)))
    )
    balance = "groups"
    if test_size is None or isinstance(test_size, float):
        balance = draw(st.sampled_from(["groups", "rows", "time"]))
    gap = draw(st.one_of(st.integers(0, 2), st.sampled_from(["1D", "2D"])))
    max_train = draw(
        st.one_of(st.none(), st.integers(1, 5), st.sampled_from(["5D", "10D"]))
    )
    return GroupTimeSeriesSplit(
        n_splits, test_size=test_size, gap=gap, max_train_size=max_train,
        min_train_size=draw(st.integers(1, 2)), balance=balance,
    )  # fmt: skip


def fold_list(cv, groups, time):
    X = np.zeros((len(groups), 1))
    try:
        return list(cv.split(X, groups=groups, time=time))
    except ValueError as exc:
        assert str(exc).startswith(("cannot form", "fold ", "only ")), exc
        return None


def check_guarantees(cv, result, groups, time):
    gap = pd.Timedelta(cv.gap) if isinstance(cv.gap, str) else pd.Timedelta(0)
    X = np.zeros((len(groups), 1))
    assert len(result) == cv.get_n_splits(X, groups=groups, time=time)
    if cv.n_splits is not None:
        assert len(result) == cv.n_splits
    previous_test_start = None
    seen_test = set()
    for train, test in result:
        for idx in (train, test):
            assert idx.dtype == np.intp and idx.size > 0
            assert np.all(np.diff(idx) > 0)
        assert np.intersect1d(train, test).size == 0
        train_groups, test_groups = set(groups[train]), set(groups[test])
        assert not train_groups & test_groups
        # whole groups only
        assert np.isin(groups, list(train_groups)).sum() == train.size
        assert np.isin(groups, list(test_groups)).sum() == test.size
        # strictly after, by more than the gap
        assert time[test].min() - time[train].max() > gap
        # test blocks in time order and pairwise disjoint
        if previous_test_start is not None:
            assert pd.Series(time[test]).min() >= previous_test_start
        starts = pd.Series(time).groupby(groups).min()
        previous_test_start = starts[list(test_groups)].max()
        assert not seen_test & test_groups
        seen_test |= test_groups


@settings(max_examples=150, deadline=None)
@given(layouts(), splitters())
def test_guarantees_hold(layout, cv):
    groups, offsets = layout
    time = np.datetime64("2024-01-01") + offsets * DAY
    result = fold_list(cv, groups, time)
    if result is not None:
        check_guarantees(cv, result, groups, time)


@settings(max_examples=100, deadline=None)
@given(layouts(), splitters(), st.randoms(use_true_random=False))
def test_row_permutation_keeps_fold_membership(layout, cv, random):
    groups, offsets = layout
    time = np.datetime64("2024-01-01") + offsets * DAY
    perm = np.array(random.sample(range(len(groups)), len(groups)))
    original = fold_list(cv, groups, time)
    permuted = fold_list(cv, groups[perm], time[perm])
    assert (original is None) == (permuted is None)
    if original is None:
        return
    for (tr, te), (ptr, pte) in zip(original, permuted, strict=True):
        assert np.array_equal(np.sort(perm[ptr]), tr)
        assert np.array_equal(np.sort(perm[pte]), te)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 40),
    st.integers(2, 5),  # TimeSeriesSplit needs n_splits >= 2
    st.integers(0, 3),
    st.one_of(st.none(), st.integers(1, 6)),
    st.one_of(st.none(), st.integers(1, 6)),
)
def test_matches_time_series_split_with_singleton_groups(
    n, n_splits, gap, max_train, test_size
):
    tss = TimeSeriesSplit(
        n_splits, gap=gap, max_train_size=max_train, test_size=test_size
    )
    cv = GroupTimeSeriesSplit(
        n_splits, gap=gap, max_train_size=max_train, test_size=test_size
    )
    X = np.zeros((n, 1))
    try:
        expected = [(tr.tolist(), te.tolist()) for tr, te in tss.split(X)]
    except ValueError:
        with pytest.raises(ValueError, match=r"cannot form|training groups"):
            list(cv.split(X, groups=np.arange(n), time=np.arange(n)))
        return
    # labels unrelated to time order, numeric time
    labels = np.arange(n)[::-1]
    got = [
        (tr.tolist(), te.tolist())
        for tr, te in cv.split(X, groups=labels, time=np.arange(n))
    ]
    assert got == expected


@settings(max_examples=50, deadline=None)
@given(layouts(), st.sampled_from([None, 2, "3D"]))
def test_groups_purged_exactly_when_they_span_a_cutoff(layout, test_size):
    groups, offsets = layout
    time = np.datetime64("2024-01-01") + offsets * DAY
    cv = GroupTimeSeriesSplit(2, test_size=test_size)
    X = np.zeros((len(groups), 1))
    try:
        info = cv.split_info(X, groups=groups, time=time)
    except ValueError:
        return
    start = pd.Series(time).groupby(groups).min()
    end = pd.Series(time).groupby(groups).max()
    for _, row in info.iterrows():
        spans = (start < row["cutoff"]) & (end >= row["cutoff"])
        assert row["n_purged_groups"] == spans.sum()
        assert (
            row["n_train_groups"] + row["n_purged_groups"]
            == (start < row["cutoff"]).sum()
        )
