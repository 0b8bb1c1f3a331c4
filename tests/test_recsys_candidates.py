"""CandidateFeatures and train_test_ranking_task: the task's features for any
pair, and the task split by a protocol in one call."""

import numpy as np
import pandas as pd
import pytest

from skndcg.datasets import (
    CandidateFeatures,
    make_movielens_like,
    make_ranking_task,
    train_test_ranking_task,
)
from skndcg.model_selection import GlobalTimeSplit, LeaveLastNSplit, UserFractionSplit


@pytest.fixture(scope="module")
def data():
    ratings = make_movielens_like(80, 400, 4000, half_stars=True, random_state=3)
    X, y = make_ranking_task(ratings, n_negatives=15, min_history=0, random_state=1)
    return ratings, X, y


def test_candidate_rows_equal_the_tasks_rows_exactly(data):
    ratings, X, _ = data
    builder = CandidateFeatures(ratings)
    checked = 0
    months = X["window_start"].unique()
    chosen = X[X["window_start"].isin(months[:: max(1, months.size // 10)])]
    for month, part in chosen.groupby("window_start"):
        users = part["user_id"].unique()
        items = np.unique(part["item_id"])
        F = builder.at(month)(users, items)
        assert len(F) == users.size * items.size
        # User by user, every item in the order given.
        assert F["user_id"].tolist() == np.repeat(users, items.size).tolist()
        assert F["item_id"].tolist() == np.tile(items, users.size).tolist()
        assert list(F.columns) == list(X.columns)
        merged = part.merge(F, on=["user_id", "item_id"], suffixes=("", "_c"))
        assert len(merged) == len(part)
        for col in X.columns[4:]:
            np.testing.assert_array_equal(
                merged[col].to_numpy(), merged[f"{col}_c"].to_numpy(), err_msg=col
            )
        assert (merged["window_start"] == merged["window_start_c"]).all()
        assert (F["qid"] < 0).all()
        checked += len(part)
    assert checked == len(chosen) > 0


def test_candidate_features_do_not_read_the_future(data):
    ratings, X, _ = data
    month = X["window_start"].iloc[len(X) // 2]
    users = X.loc[X["window_start"] == month, "user_id"].unique()[:3]
    items = np.unique(ratings["item_id"])[:50]
    before = CandidateFeatures(ratings).at(month)(users, items)
    end = (month + pd.offsets.MonthBegin(1)).timestamp()
    cut = ratings[ratings["timestamp"] < end]
    cut_items = np.intersect1d(items, cut["item_id"])
    after = CandidateFeatures(cut).at(month)(users, cut_items)
    keep = before["item_id"].isin(cut_items).to_numpy()
    pd.testing.assert_frame_equal(
        before[keep].reset_index(drop=True),
        after.reset_index(drop=True),
    )


def test_candidate_features_errors(data):
    ratings, X, _ = data
    builder = CandidateFeatures(ratings)
    month = X["window_start"].iloc[0]
    rated = X.loc[X["window_start"] == month, "user_id"].iloc[0]
    idle = np.setdiff1d(ratings["user_id"].unique(), X.loc[
        X["window_start"] == month, "user_id"])[0]  # fmt: skip
    features = builder.at(month)
    with pytest.raises(ValueError, match=rf"user {idle} has no rating in the window"):
        features([idle], [ratings["item_id"].iloc[0]])
    with pytest.raises(ValueError, match="item 999999 is not in the ratings"):
        features([rated], [999999])
    with pytest.raises(ValueError, match="user -5 is not in the ratings"):
        features([-5], [ratings["item_id"].iloc[0]])
    with pytest.raises(ValueError, match="nobody rated in the window of '1990-01-01'"):
        builder.at("1990-01-01")
    with pytest.raises(ValueError, match="window_start must be a time, got 'soon'"):
        builder.at("soon")
    with pytest.raises(ValueError, match=r"window must be one of .*got 'H'"):
        CandidateFeatures(ratings, window="H")
    dup = pd.concat([ratings, ratings.iloc[:1]], ignore_index=True)
    with pytest.raises(ValueError, match="duplicate"):
        CandidateFeatures(dup)
    millis = ratings.assign(timestamp=ratings["timestamp"] * 1000)
    with pytest.raises(ValueError, match="milliseconds"):
        CandidateFeatures(millis)
    with pytest.raises(ValueError, match=r"missing the column\(s\) \['rating'\]"):
        CandidateFeatures(ratings.drop(columns="rating"))
    for missing in (None, pd.NaT):  # failed with "'NaTType' object has no ..."
        with pytest.raises(ValueError, match="window_start must be a time, got"):
            builder.at(missing)


def test_candidate_features_read_an_aware_time_in_utc(data):
    # The task's windows are UTC months; 08:00 on the 1st in Tokyo is still
    # the previous month in UTC (the local month was taken before).
    ratings, X, _ = data
    builder = CandidateFeatures(ratings)
    month = X["window_start"].iloc[len(X) // 2]
    user = X.loc[X["window_start"] == month, "user_id"].iloc[0]
    item = X.loc[X["window_start"] == month, "item_id"].iloc[0]
    last_hour = month + pd.offsets.MonthBegin(1) - pd.Timedelta("1h")
    aware = last_hour.tz_localize("UTC").tz_convert("Asia/Tokyo")
    assert aware.month != month.month
    expected = builder.at(month)([user], [item])
    pd.testing.assert_frame_equal(builder.at(aware)([user], [item]), expected)


@pytest.mark.parametrize(
    "cv",
    [
        LeaveLastNSplit(1, time_col="window_start", filter_cold_users=False),
        UserFractionSplit(0.3, time_col="window_start"),
        GlobalTimeSplit("2013-01-01", time_col="window_start"),
    ],
    ids=["leave-last-n", "user-fraction", "global-time"],
)
def test_train_test_ranking_task_is_the_task_split_by_the_protocol(data, cv):
    ratings, X, y = data
    X_tr, X_te, y_tr, y_te = train_test_ranking_task(
        ratings, cv, n_negatives=15, min_history=0, random_state=1
    )
    *_, (train, test) = cv.split(X)
    pd.testing.assert_frame_equal(X_tr, X.iloc[train].reset_index(drop=True))
    pd.testing.assert_frame_equal(X_te, X.iloc[test].reset_index(drop=True))
    np.testing.assert_array_equal(y_tr, y[train])
    np.testing.assert_array_equal(y_te, y[test])
    assert len(X_te) and len(X_tr)
    # Whole queries, and no training query of a user after a test query of theirs.
    assert not set(X_tr["qid"]) & set(X_te["qid"])
    last_train = X_tr.groupby("user_id")["window_start"].max()
    first_test = X_te.groupby("user_id")["window_start"].min()
    both = last_train.index.intersection(first_test.index)
    assert (last_train[both] < first_test[both]).all()


def test_train_test_ranking_task_errors(data):
    ratings, _, _ = data
    with pytest.raises(ValueError, match=r"cv\.time_col='timestamp' is not a column"):
        train_test_ranking_task(ratings, LeaveLastNSplit(1), n_negatives=5)
    with pytest.raises(ValueError, match=r"cv\.group_col must be 'qid'"):
        train_test_ranking_task(
            ratings,
            LeaveLastNSplit(1, time_col="window_start", group_col="user_id"),
            n_negatives=5,
        )
    with pytest.raises(TypeError, match="cv must be a protocol splitter"):
        train_test_ranking_task(ratings, object(), n_negatives=5)
