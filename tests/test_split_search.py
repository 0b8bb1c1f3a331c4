"""GroupTimeSeriesSplit inside GridSearchCV / cross_validate, routing off and on."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline

from skndcg.model_selection import GroupTimeSeriesSplit

RNG = np.random.default_rng(0)
N = 240
QID = RNG.integers(0, 40, N)
DAYS = RNG.integers(0, 5, N) + 6 * (QID % 20) + 2 * (QID // 20)
TIME = pd.Timestamp("2024-01-01") + pd.to_timedelta(DAYS, unit="D")
FEATURES = RNG.normal(size=(N, 3))
Y = FEATURES @ [1.0, -2.0, 0.5] + RNG.normal(scale=0.1, size=N)
FRAME = pd.DataFrame(FEATURES, columns=["f0", "f1", "f2"]).assign(qid=QID, ts=TIME)
GRID = {"alpha": [0.1, 10.0]}


def expected_indices(cv, X, **meta):
    pairs = list(cv.split(X, **meta))
    return [tr.tolist() for tr, _ in pairs], [te.tolist() for _, te in pairs]


def drop_meta_columns():
    keep = ColumnTransformer(
        [("num", "passthrough", ["f0", "f1", "f2"])], remainder="drop"
    )
    return make_pipeline(keep, Ridge())


def used_indices(result):
    return [i.tolist() for i in result["indices"]["train"]], [
        i.tolist() for i in result["indices"]["test"]
    ]


def test_routing_off_time_column_and_classic_groups():
    cv = GroupTimeSeriesSplit(3, time_col="ts")
    result = cross_validate(
        drop_meta_columns(), FRAME, Y, groups=QID, cv=cv, return_indices=True
    )
    assert used_indices(result) == expected_indices(cv, FRAME, groups=QID)
    assert np.all(result["test_score"] > 0.9)
    search = GridSearchCV(drop_meta_columns(), {"ridge__alpha": [0.1, 10.0]}, cv=cv)
    search.fit(FRAME, Y, groups=QID)
    assert search.n_splits_ == 3 and search.best_params_ == {"ridge__alpha": 0.1}


def test_routing_off_both_columns_without_groups():
    cv = GroupTimeSeriesSplit(
        2, test_size="14D", gap="1D", group_col="qid", time_col="ts"
    )
    result = cross_validate(drop_meta_columns(), FRAME, Y, cv=cv, return_indices=True)
    assert used_indices(result) == expected_indices(cv, FRAME)
    search = GridSearchCV(
        drop_meta_columns(), {"ridge__alpha": [0.1, 10.0]}, cv=cv, n_jobs=2
    )
    search.fit(FRAME, Y)
    assert search.n_splits_ == 2


def test_routing_on_groups_and_time_as_metadata():
    cv = GroupTimeSeriesSplit(3, gap=1, max_train_size=20)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            Ridge(),
            FEATURES,
            Y,
            cv=cv,
            params={"groups": QID, "time": TIME},
            return_indices=True,
        )
        search = GridSearchCV(Ridge(), GRID, cv=cv, n_jobs=2).fit(
            FEATURES, Y, groups=QID, time=TIME
        )
    assert used_indices(result) == expected_indices(cv, FEATURES, groups=QID, time=TIME)
    assert search.n_splits_ == 3 and search.best_params_ == {"alpha": 0.1}


def test_routing_on_requires_metadata_to_reach_the_splitter():
    with (
        sklearn.config_context(enable_metadata_routing=True),
        pytest.raises(ValueError, match="GroupTimeSeriesSplit requires groups"),
    ):
        cross_validate(Ridge(), FEATURES, Y, cv=GroupTimeSeriesSplit(3))


class CheckedSplit(GroupTimeSeriesSplit):
    """Asserts that the metadata it receives is the slice matching X's rows.

    Column 0 of X is the original row number, so the expected groups and
    time of any subset of rows can be looked up.
    """

    def split(self, X, y=None, groups=None, time=None):
        rows = np.asarray(X)[:, 0].astype(int)
        assert np.array_equal(np.asarray(groups), QID[rows])
        assert np.array_equal(np.asarray(time), TIME[rows].to_numpy())
        return super().split(X, y, groups=groups, time=time)


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_nested_cross_validation_slices_metadata(n_jobs):
    X = np.column_stack([np.arange(N), FEATURES])
    inner = CheckedSplit(2)
    outer = CheckedSplit(3)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(Ridge(), GRID, cv=inner, error_score="raise")
        result = cross_validate(
            search,
            X,
            Y,
            cv=outer,
            params={"groups": QID, "time": TIME},
            return_estimator=True,
            return_indices=True,
            n_jobs=n_jobs,
            error_score="raise",
        )
    assert used_indices(result) == expected_indices(outer, X, groups=QID, time=TIME)
    for fitted, train in zip(
        result["estimator"], result["indices"]["train"], strict=True
    ):
        # the inner search split only the outer training rows
        info = GroupTimeSeriesSplit(2).split_info(
            X[train], groups=QID[train], time=TIME[train]
        )
        assert fitted.n_splits_ == 2
        assert info["n_train_rows"].max() + info["n_test_rows"].iloc[-1] <= train.size


def test_nested_routing_off_with_columns():
    # without routing only the outer splitter receives groups; the inner one
    # reads both from the (sliced) DataFrame
    inner = GroupTimeSeriesSplit(2, group_col="qid", time_col="ts")
    outer = GroupTimeSeriesSplit(2, time_col="ts")
    search = GridSearchCV(drop_meta_columns(), {"ridge__alpha": [0.1, 10.0]}, cv=inner)
    result = cross_validate(search, FRAME, Y, groups=QID, cv=outer, return_indices=True)
    assert used_indices(result) == expected_indices(outer, FRAME, groups=QID)
    assert np.all(np.isfinite(result["test_score"]))
