"""GroupTimeSeriesSplit: every bad input gets a clear error naming what is wrong."""

import re

import numpy as np
import pandas as pd
import pytest

from skndcg.model_selection import GroupTimeSeriesSplit

X10 = np.zeros((10, 1))
G10 = np.arange(10)


def run(cv, X=X10, groups=G10, time=None):
    return list(cv.split(X, groups=groups, time=time))


@pytest.mark.parametrize("n_splits", [0, -1, 2.0, True, "3"])
def test_bad_n_splits(n_splits):
    with pytest.raises(
        ValueError,
        match=re.escape(f"n_splits must be an int >= 1 or None, got {n_splits!r}"),
    ):
        GroupTimeSeriesSplit(n_splits)


def test_bad_parameters_are_also_caught_after_set_params_style_changes():
    cv = GroupTimeSeriesSplit(3)
    cv.n_splits = 0
    with pytest.raises(ValueError, match="n_splits must be an int >= 1 or None, got 0"):
        cv.get_n_splits()
    with pytest.raises(ValueError, match="n_splits must be"):
        run(cv)


def test_n_splits_none_requires_test_size():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "n_splits=None requires test_size (int, duration or frequency)"
        ),
    ):
        GroupTimeSeriesSplit(None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"gap": -1},
            (
                "gap must be an int >= 0 (number of groups) or a "
                "non-negative duration such as '1D', got -1"
            ),
        ),
        (
            {"gap": True},
            (
                "gap must be an int >= 0 (number of groups) or a "
                "non-negative duration such as '1D', got True"
            ),
        ),
        (
            {"gap": 1.5},
            (
                "gap must be an int >= 0 (number of groups) or a "
                "non-negative duration such as '1D', got 1.5"
            ),
        ),
        (
            {"gap": "W"},
            (
                "gap must be an int >= 0 (number of groups) or a "
                "non-negative duration such as '1D', got 'W'"
            ),
        ),
        ({"gap": "-1D"}, "gap must be an int >= 0"),
        (
            {"max_train_size": 0},
            (
                "max_train_size must be None, an int >= 1 (number of groups) "
                "or a positive duration such as '1D', got 0"
            ),
        ),
        ({"max_train_size": False}, "max_train_size must be None, an int >= 1"),
        (
            {"min_train_size": 0},
            "min_train_size must be an int >= 1 (number of groups), got 0",
        ),
        (
            {"min_train_size": None},
            "min_train_size must be an int >= 1 (number of groups), got None",
        ),
        ({"test_size": 0}, "test_size must be an int >= 1 (number of groups)"),
        (
            {"test_size": 1.0},
            "test_size as a float must be a fraction in (0, 1), got 1.0",
        ),
        ({"test_size": "-3D"}, "test_size must be a positive duration, got '-3D'"),
        ({"test_size": [3]}, "test_size must be None, an int >= 1"),
        (
            {"test_size": "7 dayz"},
            (
                "test_size='7 dayz' is neither a duration (pd.Timedelta) nor "
                "a pandas period frequency"
            ),
        ),
        (
            {"balance": "weeks"},
            "balance must be one of 'groups', 'rows', 'time', got 'weeks'",
        ),
        (
            {"balance": "rows", "test_size": 3},
            "balance='rows' only applies when test_size is None or a float",
        ),
        (
            {"balance": "time", "test_size": "90D"},
            "balance='time' only applies when test_size is None or a float",
        ),
        (
            {"on_overlap": "drop"},
            "on_overlap must be one of 'purge', 'raise', got 'drop'",
        ),
        (
            {"time_col": 1.5},
            "time_col must be None or a column name (str or int), got 1.5",
        ),
    ],
)
def test_bad_parameter_values(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        GroupTimeSeriesSplit(**kwargs)


def test_groups_missing():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "GroupTimeSeriesSplit requires groups: pass groups= to "
            "split/cross_validate/GridSearchCV.fit, set group_col, or give X a "
            "'qid' column. With metadata routing on, a routed qid can serve as "
            "the groups: cv.set_split_request(groups='qid') and pass only qid=..."
        ),
    ):
        run(GroupTimeSeriesSplit(2), groups=None)


def test_length_mismatch():
    with pytest.raises(ValueError, match="groups has 9 rows but X has 10"):
        run(GroupTimeSeriesSplit(2), groups=np.arange(9))
    with pytest.raises(ValueError, match="time has 11 rows but X has 10"):
        run(GroupTimeSeriesSplit(2), time=np.arange(11))


def test_missing_labels_and_times():
    groups = np.arange(10.0)
    groups[[3, 7]] = np.nan
    with pytest.raises(
        ValueError,
        match=re.escape(
            "groups has 2 missing values (first at row 3); drop or impute them"
        ),
    ):
        run(GroupTimeSeriesSplit(2), groups=groups)
    time = np.arange(10.0)
    time[[1, 4, 5]] = np.nan
    with pytest.raises(
        ValueError,
        match=re.escape(
            "time has 3 missing values (first at row 1); drop or impute them"
        ),
    ):
        run(GroupTimeSeriesSplit(2), time=time)
    stamps = pd.Series(pd.date_range("2024-01-01", periods=10))
    stamps[8] = pd.NaT
    with pytest.raises(
        ValueError, match=re.escape("time has 1 missing values (first at row 8)")
    ):
        run(GroupTimeSeriesSplit(2), time=stamps)
    with pytest.raises(ValueError, match="time has 1 infinite values"):
        run(GroupTimeSeriesSplit(2), time=np.r_[np.arange(9.0), np.inf])


@pytest.mark.parametrize(
    ("time", "dtype"),
    [
        (np.array([str(i) for i in range(10)], dtype=object), "object"),
        (np.array([f"2024-01-{i + 1:02d}" for i in range(10)]), "<U10"),
        (pd.Series([f"2024-01-{i + 1:02d}" for i in range(10)]), "str"),
        (np.ones(10, dtype=bool), "bool"),
    ],
)
def test_time_of_wrong_type(time, dtype):
    with pytest.raises(
        TypeError,
        match=re.escape(
            f"time must be numeric or datetime64, got {dtype}; convert "
            "with pd.to_datetime(...)"
        ),
    ):
        run(GroupTimeSeriesSplit(2), time=time)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"gap": "1D"},
            (
                "gap='1D' is a duration but time is numeric (int64); pass "
                "datetime64 time, e.g. pd.to_datetime(ts, unit='s')"
            ),
        ),
        (
            {"test_size": "90D"},
            "test_size='90D' is a duration but time is numeric (int64)",
        ),
        (
            {"test_size": "W-MON"},
            "test_size='W-MON' is a calendar frequency but time is numeric (int64)",
        ),
        (
            {"max_train_size": "30D"},
            "max_train_size='30D' is a duration but time is numeric (int64)",
        ),
    ],
)
def test_time_parameters_need_datetime_time(kwargs, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        run(GroupTimeSeriesSplit(2, **kwargs), time=np.arange(10))


def test_time_parameter_without_any_time():
    with pytest.raises(
        TypeError,
        match=re.escape(
            "gap='1D' is a duration but no time given; row order is used as "
            "time; pass time= or set time_col"
        ),
    ):
        run(GroupTimeSeriesSplit(2, gap="1D"))


def test_columns_not_found():
    df = pd.DataFrame({"a": np.arange(10), "qid": G10})
    with pytest.raises(
        ValueError,
        match=re.escape("time_col='timestamp' not found in X (columns: ['a', 'qid'])"),
    ):
        run(GroupTimeSeriesSplit(2, time_col="timestamp"), X=df)
    with pytest.raises(
        ValueError,
        match=re.escape("group_col='user' not found in X (columns: ['a', 'qid'])"),
    ):
        run(GroupTimeSeriesSplit(2, group_col="user"), X=df, groups=None)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "time_col='timestamp' not found in X: X is a ndarray, not a "
            "pandas or polars DataFrame"
        ),
    ):
        run(GroupTimeSeriesSplit(2, time_col="timestamp"))


def test_both_metadata_and_column():
    df = pd.DataFrame({"timestamp": np.arange(10), "qid": G10})
    with pytest.raises(
        ValueError,
        match=re.escape(
            "time given both as metadata and via time_col='timestamp'; pass only one"
        ),
    ):
        run(GroupTimeSeriesSplit(2, time_col="timestamp"), X=df, time=np.arange(10))
    with pytest.raises(
        ValueError,
        match=re.escape(
            "groups given both as metadata and via group_col='qid'; pass only one"
        ),
    ):
        run(GroupTimeSeriesSplit(2, group_col="qid"), X=df)


def test_labels_not_comparable():
    groups = np.array([1, "a"] * 5, dtype=object)
    with pytest.raises(TypeError, match="group labels must be mutually comparable"):
        GroupTimeSeriesSplit(2).split_info(X10, groups=list(groups))
    with pytest.raises(
        TypeError,
        match=re.escape(
            "group labels must be mutually comparable (e.g. all str or "
            "all int), got a mix of int, str"
        ),
    ):
        run(GroupTimeSeriesSplit(2), groups=groups)


def test_too_few_groups_or_boundaries():
    groups = np.repeat(np.arange(4), [2, 2, 3, 3])
    time = np.repeat([0, 1, 2, 3], [2, 2, 3, 3])
    with pytest.raises(
        ValueError,
        match=re.escape(
            "cannot form n_splits=5 non-empty folds from 4 groups (4 "
            "distinct start times) with test_size=None, balance='groups'"
        ),
    ):
        run(GroupTimeSeriesSplit(5), groups=groups, time=time)
    # ties leave only one boundary for two folds
    with pytest.raises(
        ValueError,
        match=re.escape(
            "cannot form n_splits=2 non-empty folds from 10 groups (2 "
            "distinct start times)"
        ),
    ):
        run(GroupTimeSeriesSplit(2), time=np.repeat([0, 1], 5))
    with pytest.raises(
        ValueError,
        match=re.escape(
            "cannot form n_splits=3 non-empty folds from 10 groups (10 "
            "distinct start times) with test_size=4"
        ),
    ):
        run(GroupTimeSeriesSplit(3, test_size=4))
    with pytest.raises(
        ValueError, match="cannot form any non-empty folds from 10 groups"
    ):
        run(GroupTimeSeriesSplit(None, test_size=10))
    with pytest.raises(ValueError, match="cannot split X with 0 rows"):
        run(GroupTimeSeriesSplit(2), X=np.zeros((0, 1)), groups=np.array([]))


def test_fold_without_enough_training_groups():
    # group 0 spans days 0..7, so it spans every cutoff
    groups = np.r_[0, 1, 2, 3, 0]
    time = pd.to_datetime(
        ["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-04", "2020-01-08"]
    )
    cv = GroupTimeSeriesSplit(2, test_size=1, gap=1)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "fold 0 (cutoff 2020-01-03) has 0 training groups "
            "(min_train_size=1): 1 purged for spanning the cutoff, "
            "1 in the gap. Use fewer splits, a smaller gap, "
            "or shorter-lived groups (e.g. user-week instead of user)"
        ),
    ):
        run(cv, X=np.zeros((5, 1)), groups=groups, time=time)
    cv = GroupTimeSeriesSplit(1, test_size=1, min_train_size=3)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "has 2 training groups (min_train_size=3): 1 purged for spanning the cutoff"
        ),
    ):
        run(cv, X=np.zeros((5, 1)), groups=groups, time=time)


def test_on_overlap_raise():
    cv = GroupTimeSeriesSplit(2, test_size=1, on_overlap="raise")
    groups = np.array([0, 1, 2, 3, 0, 2])
    time = pd.to_datetime(
        [
            "2009-01-01",
            "2009-01-02",
            "2009-01-03",
            "2009-01-04",
            "2009-01-10",
            "2009-01-08",
        ]
    )
    # fold 0 tests group 2 (cutoff Jan 3): group 0 (Jan 1 .. Jan 10) spans it
    with pytest.raises(
        ValueError,
        match=re.escape(
            "1 group spans the cutoff of fold 0 (2009-01-03), e.g. group "
            "0: 2009-01-01 .. 2009-01-10"
        ),
    ):
        run(cv, X=np.zeros((6, 1)), groups=groups, time=time)
    assert (
        len(
            run(
                GroupTimeSeriesSplit(2, test_size=1),
                X=np.zeros((6, 1)),
                groups=groups,
                time=time,
            )
        )
        == 2
    )


def test_fewer_windows_than_splits():
    time = pd.to_datetime(["2024-01-01", "2024-01-02", "2024-06-01", "2024-06-02"])
    # two 90-day windows hold data; the earlier one can only train
    cv = GroupTimeSeriesSplit(2, test_size="90D")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "only 1 non-empty test windows of 90 days 00:00:00 are "
            "available for n_splits=2"
        ),
    ):
        run(cv, X=np.zeros((4, 1)), groups=np.arange(4), time=time)
    cv = GroupTimeSeriesSplit(4, test_size="M")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "only 1 non-empty test periods of 'M' are available for n_splits=4"
        ),
    ):
        run(cv, X=np.zeros((4, 1)), groups=np.arange(4), time=time)


def test_get_n_splits_none_needs_data():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "n_splits=None: the number of folds depends on the data; "
            "pass X and groups (and time)"
        ),
    ):
        GroupTimeSeriesSplit(None, test_size=2).get_n_splits()


@pytest.mark.parametrize("kind", [np.uint64, "UInt64"])
def test_unsigned_time_beyond_int64_is_refused(kind):
    # It wrapped round to negative: the latest row trained every fold.
    time = pd.Series(np.arange(10, dtype=np.uint64), dtype=kind)
    time.iloc[-1] = 2**63
    with pytest.raises(ValueError, match="time holds 9223372036854775808, beyond"):
        run(GroupTimeSeriesSplit(2), time=time if kind == "UInt64" else time.to_numpy())


def test_datetimes_out_of_nanosecond_range_name_time():
    time = np.array(["1500-01-01", *(f"20{i:02d}-01-01" for i in range(9))], "M8[D]")
    with pytest.raises(ValueError, match=r"time runs from 1500-01-01 .* outside"):
        run(GroupTimeSeriesSplit(2), time=time)


@pytest.mark.parametrize("name", ["groups", "time"])
def test_a_scalar_for_groups_or_time_is_named(name):
    kwargs = {"groups": G10, "time": None, name: 5}
    with pytest.raises(TypeError, match=f"{name} must hold one value per row of X"):
        run(GroupTimeSeriesSplit(2), **kwargs)
