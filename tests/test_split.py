"""GroupTimeSeriesSplit: exact folds on small hand-made cases, every mode."""

import copy
import pickle

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.base import clone

from skndcg.model_selection import GroupTimeSeriesSplit


def folds(cv, X=None, groups=None, time=None):
    n = len(groups) if X is None else len(X)
    X = np.zeros((n, 1)) if X is None else X
    return [
        (tr.tolist(), te.tolist()) for tr, te in cv.split(X, groups=groups, time=time)
    ]


def days(*offsets, tz=None):
    return pd.DatetimeIndex(
        pd.Timestamp("2024-01-01") + pd.to_timedelta(offsets, unit="D")
    ).tz_localize(tz)


# Interleaved rows; group c = [2, 5] spans the first cutoff (4).
G5 = np.array(["a", "b", "a", "c", "b", "d", "c", "e", "d", "e"])
T5 = np.array([0, 1, 1, 2, 3, 4, 5, 6, 7, 8])


def test_interleaved_groups_exact_indices_and_purge():
    assert folds(GroupTimeSeriesSplit(2), groups=G5, time=T5) == [
        ([0, 1, 2, 4], [5, 8]),
        ([0, 1, 2, 3, 4, 6], [7, 9]),
    ]


def test_split_yields_sorted_intp_arrays():
    for train, test in GroupTimeSeriesSplit(2).split(
        np.zeros((10, 1)), groups=G5, time=T5
    ):
        assert train.dtype == np.intp and test.dtype == np.intp
        assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)


def test_without_time_row_order_is_used():
    groups = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    assert folds(GroupTimeSeriesSplit(3), groups=groups) == [
        ([0, 1], [2, 3]),
        ([0, 1, 2, 3], [4, 5]),
        ([0, 1, 2, 3, 4, 5], [6, 7]),
    ]
    info = GroupTimeSeriesSplit(3).split_info(np.zeros((8, 1)), groups=groups)
    assert set(info["time_source"]) == {"no time given; row order is used as time"}


def test_group_order_does_not_depend_on_labels():
    # labels sort opposite to time: "z" starts first
    groups = np.array(["z", "y", "x", "w"])
    assert folds(
        GroupTimeSeriesSplit(1, test_size=1), groups=groups, time=[0, 1, 2, 3]
    ) == [([0, 1, 2], [3])]


def test_tied_starts_stay_in_one_block_and_ties_snap_earlier():
    # starts 0, 1, 1, 1, 1, 2: boundaries only at positions 1 and 5;
    # target 6 - 3 = 3 is equally far from both and snaps to the earlier.
    time = np.array([0, 1, 1, 1, 1, 2])
    groups = np.arange(6)
    assert folds(GroupTimeSeriesSplit(1, test_size=3), groups=groups, time=time) == [
        ([0], [1, 2, 3, 4, 5])
    ]
    assert folds(GroupTimeSeriesSplit(2), groups=groups, time=time) == [
        ([0], [1, 2, 3, 4]),
        ([0, 1, 2, 3, 4], [5]),
    ]


def test_balance_rows_versus_groups():
    groups = np.repeat(np.arange(6), [1, 1, 1, 1, 4, 4])
    time = np.repeat(np.arange(6), [1, 1, 1, 1, 4, 4])
    by_rows = folds(GroupTimeSeriesSplit(2, balance="rows"), groups=groups, time=time)
    assert [te for _, te in by_rows] == [[4, 5, 6, 7], [8, 9, 10, 11]]
    by_groups = folds(GroupTimeSeriesSplit(2), groups=groups, time=time)
    assert [te for _, te in by_groups] == [[2, 3], [4, 5, 6, 7, 8, 9, 10, 11]]
    # 6 of 12 rows: boundaries reach 4 or 8 rows, equally far; the earlier wins
    half = folds(
        GroupTimeSeriesSplit(1, test_size=0.5, balance="rows"), groups=groups, time=time
    )
    assert half == [([0, 1, 2, 3], [4, 5, 6, 7, 8, 9, 10, 11])]
    part = folds(
        GroupTimeSeriesSplit(1, test_size=0.4, balance="rows"), groups=groups, time=time
    )
    assert part == [([0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11])]


def test_int_gap_drops_groups_before_the_block():
    groups = np.arange(8)
    got = folds(GroupTimeSeriesSplit(2, test_size=2, gap=1), groups=groups, time=groups)
    assert got == [([0, 1, 2], [4, 5]), ([0, 1, 2, 3, 4], [6, 7])]
    info = GroupTimeSeriesSplit(2, test_size=2, gap=1).split_info(
        np.zeros((8, 1)), groups=groups, time=groups
    )
    assert info["n_gap_groups"].tolist() == [1, 1]
    assert info["n_gap_rows"].tolist() == [1, 1]


def test_duration_gap_keeps_groups_ending_before_cutoff_minus_gap():
    # groups: 0 = days 0..1, 1 = day 4, 2 = day 5 (gap), 3 = day 6 (test)
    groups = np.array([0, 0, 1, 2, 3])
    time = days(0, 1, 4, 5, 6)
    cv = GroupTimeSeriesSplit(1, test_size=1, gap="1D")
    assert folds(cv, groups=groups, time=time) == [([0, 1, 2], [4])]
    # a day gap drops group 2 (ends exactly at cutoff - 1 day) as well
    cv = GroupTimeSeriesSplit(1, test_size=1, gap=pd.Timedelta("1D"))
    info = cv.split_info(np.zeros((5, 1)), groups=groups, time=time)
    assert info.loc[0, "n_gap_groups"] == 1 and info.loc[0, "n_train_groups"] == 2
    cv = GroupTimeSeriesSplit(1, test_size=1, gap="2D")
    assert folds(cv, groups=groups, time=time) == [([0, 1], [4])]


def test_rolling_window_by_groups_and_by_duration():
    groups = np.arange(10)
    cv = GroupTimeSeriesSplit(2, test_size=2, max_train_size=3)
    assert folds(cv, groups=groups, time=groups) == [
        ([3, 4, 5], [6, 7]),
        ([5, 6, 7], [8, 9]),
    ]
    time = days(*range(10))
    cv = GroupTimeSeriesSplit(2, test_size=2, max_train_size="3D")
    # cutoff day 6: keep starts >= day 3
    assert folds(cv, groups=groups, time=time) == [
        ([3, 4, 5], [6, 7]),
        ([5, 6, 7], [8, 9]),
    ]
    cv = GroupTimeSeriesSplit(1, test_size=2, gap="1D", max_train_size="3D")
    # cutoff day 8, train ends < day 7 and starts >= day 4
    assert folds(cv, groups=groups, time=time) == [([4, 5, 6], [8, 9])]


def test_duration_windows_are_anchored_at_latest_start():
    time = days(*range(0, 100, 10))
    cv = GroupTimeSeriesSplit(2, test_size="20D")
    assert folds(cv, groups=np.arange(10), time=time) == [
        ([0, 1, 2, 3, 4], [5, 6]),
        ([0, 1, 2, 3, 4, 5, 6], [7, 8, 9]),
    ]
    info = cv.split_info(np.zeros((10, 1)), groups=np.arange(10), time=time)
    assert info["cutoff"].tolist() == [
        pd.Timestamp("2024-02-20"),
        pd.Timestamp("2024-03-11"),
    ]


def test_calendar_periods_skip_empty_months():
    time = pd.to_datetime(
        [
            "2024-01-05",
            "2024-01-20",
            "2024-02-03",
            "2024-03-15",
            "2024-03-20",
            "2024-05-02",
        ]
    )
    cv = GroupTimeSeriesSplit(2, test_size="M")
    assert folds(cv, groups=np.arange(6), time=time) == [
        ([0, 1, 2], [3, 4]),
        ([0, 1, 2, 3, 4], [5]),
    ]
    info = cv.split_info(np.zeros((6, 1)), groups=np.arange(6), time=time)
    assert info["cutoff"].tolist() == [
        pd.Timestamp("2024-03-01"),
        pd.Timestamp("2024-05-01"),
    ]
    weekly = GroupTimeSeriesSplit(1, test_size="W-SUN").split_info(
        np.zeros((6, 1)), groups=np.arange(6), time=time
    )
    assert weekly.loc[0, "cutoff"] == pd.Timestamp("2024-04-29")  # a Monday


def test_seven_days_is_a_window_but_w_is_a_calendar_week():
    time = days(0, 3, 6, 9, 12, 13)  # 2024-01-01 is a Monday; last start Sat 13th
    window = GroupTimeSeriesSplit(1, test_size="7D").split_info(
        np.zeros((6, 1)), groups=np.arange(6), time=time
    )
    week = GroupTimeSeriesSplit(1, test_size="W").split_info(
        np.zeros((6, 1)), groups=np.arange(6), time=time
    )
    assert window.loc[0, "cutoff"] == pd.Timestamp("2024-01-07")
    assert week.loc[0, "cutoff"] == pd.Timestamp("2024-01-08")


def test_balance_time_with_numeric_time():
    cv = GroupTimeSeriesSplit(4, balance="time")
    got = folds(cv, groups=np.arange(11), time=np.arange(11))
    assert [te for _, te in got] == [[2, 3], [4, 5], [6, 7], [8, 9, 10]]
    cv = GroupTimeSeriesSplit(1, test_size=0.25, balance="time")
    assert folds(cv, groups=np.arange(9), time=np.arange(9.0)) == [
        ([0, 1, 2, 3, 4, 5], [6, 7, 8])
    ]


def test_n_splits_none_makes_as_many_folds_as_fit():
    groups = np.arange(10)
    cv = GroupTimeSeriesSplit(None, test_size=3)
    assert [te for _, te in folds(cv, groups=groups, time=groups)] == [
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
    ]
    assert cv.get_n_splits(np.zeros((10, 1)), groups=groups, time=groups) == 3
    cv = GroupTimeSeriesSplit(None, test_size=3, min_train_size=2)
    assert cv.get_n_splits(np.zeros((10, 1)), groups=groups, time=groups) == 2
    cv = GroupTimeSeriesSplit(None, test_size="M")
    time = pd.to_datetime(["2024-01-05", "2024-02-03", "2024-03-15", "2024-05-02"])
    assert cv.get_n_splits(np.zeros((4, 1)), groups=np.arange(4), time=time) == 3


def test_holdout_with_one_split():
    assert folds(GroupTimeSeriesSplit(1), groups=np.arange(4), time=np.arange(4)) == [
        ([0, 1], [2, 3])
    ]


def test_get_n_splits_without_data():
    assert GroupTimeSeriesSplit().get_n_splits() == 5
    assert GroupTimeSeriesSplit(3).get_n_splits(None, None, None, time=None) == 3


def test_split_info_columns_and_values():
    info = GroupTimeSeriesSplit(2).split_info(np.zeros((10, 1)), groups=G5, time=T5)
    assert list(info.columns) == [
        "fold", "cutoff", "test_start", "test_end", "train_start", "train_end",
        "n_train_groups", "n_test_groups", "n_gap_groups", "n_purged_groups",
        "n_train_rows", "n_test_rows", "n_gap_rows", "n_purged_rows", "time_source",
    ]  # fmt: skip
    assert info.iloc[0][
        ["cutoff", "test_start", "test_end", "train_start", "train_end"]
    ].tolist() == [4, 4, 7, 0, 3]
    assert info.iloc[0][["n_train_rows", "n_test_rows", "n_purged_rows"]].tolist() == [
        4,
        2,
        2,
    ]
    assert info["time_source"].tolist() == ["metadata", "metadata"]


def test_timezone_aware_time_keeps_its_zone():
    time = days(0, 1, 2, 3, tz="Europe/Paris")
    cv = GroupTimeSeriesSplit(1, test_size="1D")
    info = cv.split_info(np.zeros((4, 1)), groups=np.arange(4), time=time)
    assert info.loc[0, "cutoff"] == pd.Timestamp("2024-01-03", tz="Europe/Paris")
    assert str(info.loc[0, "cutoff"].tz) == "Europe/Paris"
    monthly = GroupTimeSeriesSplit(1, test_size="D").split_info(
        np.zeros((4, 1)), groups=np.arange(4), time=time
    )
    assert monthly.loc[0, "cutoff"] == pd.Timestamp("2024-01-04", tz="Europe/Paris")


@pytest.mark.parametrize("frame", ["pandas", "polars"])
def test_columns_of_a_dataframe(frame):
    data = {"qid": G5, "ts": days(*T5), "x": np.arange(10.0)}
    X = pd.DataFrame(data) if frame == "pandas" else pl.DataFrame(data)
    cv = GroupTimeSeriesSplit(2, group_col="qid", time_col="ts")
    assert folds(cv, X) == folds(GroupTimeSeriesSplit(2), groups=G5, time=T5)
    assert set(cv.split_info(X)["time_source"]) == {"column"}
    # metadata groups with a time column
    cv = GroupTimeSeriesSplit(2, time_col="ts")
    assert folds(cv, X, groups=G5) == folds(GroupTimeSeriesSplit(2), groups=G5, time=T5)


def test_polars_timezone_series_and_numpy_seconds_agree():
    stamps = days(*T5, tz="UTC")
    expected = folds(GroupTimeSeriesSplit(2, test_size="2D"), groups=G5, time=stamps)
    as_seconds = stamps.tz_localize(None).to_numpy().astype("datetime64[s]")
    assert (
        folds(GroupTimeSeriesSplit(2, test_size="2D"), groups=G5, time=as_seconds)
        == expected
    )
    series = pl.Series(stamps.tz_localize(None).to_numpy()).dt.replace_time_zone("UTC")
    assert (
        folds(
            GroupTimeSeriesSplit(2, test_size="2D"), groups=pl.Series(G5), time=series
        )
        == expected
    )


def test_inputs_are_not_modified():
    groups, time = G5.copy(), pd.Series(T5)
    GroupTimeSeriesSplit(2).split_info(np.zeros((10, 1)), groups=groups, time=time)
    list(GroupTimeSeriesSplit(2).split(np.zeros((10, 1)), groups=groups, time=time))
    assert np.array_equal(groups, G5) and time.tolist() == T5.tolist()


def test_stateless_reuse_pickle_deepcopy_clone():
    cv = GroupTimeSeriesSplit(2, gap=1)
    before = dict(vars(cv))
    other_groups = np.repeat(np.arange(7), 2)
    first = folds(cv, groups=G5, time=T5)
    second = folds(cv, groups=other_groups)
    assert vars(cv) == before
    assert first == folds(GroupTimeSeriesSplit(2, gap=1), groups=G5, time=T5)
    assert second == folds(GroupTimeSeriesSplit(2, gap=1), groups=other_groups)
    for copied in (
        pickle.loads(pickle.dumps(cv)),
        copy.deepcopy(cv),
        clone(cv, safe=False),
    ):
        assert folds(copied, groups=G5, time=T5) == first


def test_metadata_request_and_repr():
    cv = GroupTimeSeriesSplit(3, gap="1D")
    request = cv.get_metadata_routing().split.requests
    assert request == {"groups": True, "time": True}
    assert hasattr(cv, "set_split_request")
    assert repr(cv).startswith("GroupTimeSeriesSplit(") and "gap='1D'" in repr(cv)
