"""Per-user protocols as splitters: exact indices, properties, GridSearchCV."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.model_selection import GlobalTimeSplit, LeaveLastNSplit, UserFractionSplit

LOG = pd.DataFrame(
    {
        "user_id": [1, 1, 1, 1, 2, 2, 3],
        "item_id": [10, 11, 12, 13, 10, 14, 11],
        "timestamp": [40, 10, 30, 20, 15, 25, 50],
    }
)


def test_leave_last_n_exact():
    train, test = next(LeaveLastNSplit(n=2).split(LOG))
    # User 1 by time: rows 1, 3, 2, 0 -> test 2, 0. Users 2 (two rows) and 3
    # (one row) would have no training row left: cold, left out.
    assert train.tolist() == [1, 3]
    assert test.tolist() == [0, 2]
    train, test = next(LeaveLastNSplit(n=1).split(LOG))
    assert train.tolist() == [1, 2, 3, 4]
    assert test.tolist() == [0, 5]


def test_leave_last_n_folds_exact():
    folds = list(LeaveLastNSplit(n=1, n_splits=2).split(LOG))
    assert len(folds) == 2
    (tr0, te0), (tr1, te1) = folds
    # Fold 0 tests the second-to-last unit and drops the last one; user 2's
    # second-to-last is its first, so it has no training row: cold.
    assert tr0.tolist() == [1, 3] and te0.tolist() == [2]
    assert tr1.tolist() == [1, 2, 3, 4] and te1.tolist() == [0, 5]
    keep_cold = LeaveLastNSplit(n=1, filter_cold_users=False)
    assert next(keep_cold.split(LOG))[1].tolist() == [0, 5, 6]


def test_user_fraction_exact():
    train, test = next(UserFractionSplit(0.5).split(LOG))
    assert train.tolist() == [1, 3, 4]
    assert test.tolist() == [0, 2, 5]
    train, test = next(UserFractionSplit(0.3).split(LOG))
    # ceil(0.3 * 4) = 2 and ceil(0.3 * 2) = 1
    assert test.tolist() == [0, 2, 5]


def test_global_time_exact_and_filters():
    train, test = next(GlobalTimeSplit(28).split(LOG))
    assert train.tolist() == [1, 3, 4, 5]
    assert test.tolist() == [0, 2]  # user 3 is cold
    cv = GlobalTimeSplit([20, 30])
    assert cv.get_n_splits() == 2
    (tr0, te0), (tr1, te1) = cv.split(LOG)
    assert tr0.tolist() == [1, 4] and te0.tolist() == [3, 5]
    assert tr1.tolist() == [1, 3, 4, 5] and te1.tolist() == [0, 2]
    log = pd.DataFrame(
        {
            "user_id": [1, 1, 1, 2, 2],
            "item_id": [10, 11, 10, 11, 99],
            "timestamp": [1, 2, 5, 3, 6],
        }
    )
    assert next(GlobalTimeSplit(4).split(log))[1].tolist() == [2, 4]
    seen = GlobalTimeSplit(4, filter_already_seen=True)
    assert next(seen.split(log))[1].tolist() == [4]
    cold = GlobalTimeSplit(4, filter_cold_items=True)
    assert next(cold.split(log))[1].tolist() == [2]


def test_datetime_and_task_rows_keep_queries_whole():
    task = pd.DataFrame(
        {
            "qid": [0, 0, 1, 1, 1, 2, 2, 3],
            "user_id": [7, 7, 8, 8, 8, 7, 7, 8],
            "item_id": [1, 2, 1, 3, 4, 2, 5, 1],
            "window_start": pd.to_datetime(
                ["2024-01-01"] * 2
                + ["2024-01-01"] * 3
                + ["2024-02-01"] * 2
                + ["2024-03-01"]
            ),
        }
    )
    for cv in (
        LeaveLastNSplit(time_col="window_start"),
        UserFractionSplit(0.5, time_col="window_start"),
        GlobalTimeSplit("2024-01-15", time_col="window_start"),
    ):
        train, test = next(cv.split(task))
        assert train.tolist() == [0, 1, 2, 3, 4]
        assert test.tolist() == [5, 6, 7]


@st.composite
def logs(draw):
    n = draw(st.integers(1, 40))
    users = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    times = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    items = draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
    log = pd.DataFrame({"user_id": users, "item_id": items, "timestamp": times})
    return log.drop_duplicates(["user_id", "item_id", "timestamp"], ignore_index=True)


def _check_fold(log, train, test, per_user):
    assert np.intersect1d(train, test).size == 0
    assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)
    tr, te = log.iloc[train], log.iloc[test]
    # Every test user has a training row (cold users are filtered by default).
    assert set(te["user_id"]) <= set(tr["user_id"])
    if per_user:
        last_train = tr.groupby("user_id")["timestamp"].max()
        first_test = te.groupby("user_id")["timestamp"].min()
        assert (last_train.reindex(first_test.index) <= first_test).all()
    elif len(tr) and len(te):
        assert tr["timestamp"].max() < te["timestamp"].min()


@settings(max_examples=60, deadline=None)
@given(log=logs(), n=st.integers(1, 3), n_splits=st.integers(1, 3))
def test_leave_last_n_properties(log, n, n_splits):
    folds = list(LeaveLastNSplit(n=n, n_splits=n_splits).split(log))
    assert len(folds) == n_splits
    for fold, (train, test) in enumerate(folds):
        _check_fold(log, train, test, per_user=True)
        assert (log.iloc[test].groupby("user_id").size() == n).all()
        # Exactly the users with more than (n_splits - fold) * n rows are tested.
        sizes = log.groupby("user_id").size()
        expected = set(sizes[sizes > (n_splits - fold) * n].index)
        assert set(log.iloc[test]["user_id"]) == expected


@settings(max_examples=60, deadline=None)
@given(log=logs(), frac=st.floats(0.05, 0.95))
def test_user_fraction_properties(log, frac):
    train, test = next(UserFractionSplit(frac).split(log))
    _check_fold(log, train, test, per_user=True)
    sizes = log.groupby("user_id").size()
    n_test = np.maximum(np.ceil(frac * sizes - 1e-9 * sizes), 1).astype(int)
    tested = n_test[n_test < sizes]
    assert log.iloc[test].groupby("user_id").size().sort_index().tolist() == (
        tested.sort_index().tolist()
    )


@settings(max_examples=60, deadline=None)
@given(log=logs(), cut=st.integers(0, 31), seen=st.booleans(), cold=st.booleans())
def test_global_time_properties(log, cut, seen, cold):
    cv = GlobalTimeSplit(cut, filter_already_seen=seen, filter_cold_items=cold)
    train, test = next(cv.split(log))
    _check_fold(log, train, test, per_user=False)
    tr, te = log.iloc[train], log.iloc[test]
    assert len(tr) == int((log["timestamp"] < cut).sum())
    if seen:
        assert tr.merge(te, on=["user_id", "item_id"]).empty
    if cold:
        assert set(te["item_id"]) <= set(tr["item_id"])


def test_errors():
    dup = pd.concat([LOG, LOG.iloc[[0]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"repeat a \(user_id, item_id, timestamp\)"):
        next(LeaveLastNSplit().split(dup))
    ms = LOG.assign(timestamp=LOG["timestamp"] * 1000 + 1_700_000_000_000)
    with pytest.raises(ValueError, match="in the range of milliseconds"):
        next(UserFractionSplit().split(ms))
    with pytest.raises(ValueError, match="n must be an integer >= 1, got 0"):
        next(LeaveLastNSplit(n=0).split(LOG))
    with pytest.raises(ValueError, match=r"test_fraction must be a float in \(0, 1\)"):
        next(UserFractionSplit(1.5).split(LOG))
    with pytest.raises(ValueError, match="strictly increasing"):
        next(GlobalTimeSplit([30, 20]).split(LOG))
    with pytest.raises(ValueError, match="missing the column"):
        next(GlobalTimeSplit(30, time_col="when").split(LOG))
    with pytest.raises(ValueError, match="holds several users"):
        task = LOG.assign(qid=[0, 0, 0, 0, 0, 1, 1])
        next(LeaveLastNSplit().split(task))


@pytest.mark.parametrize("cut", [None, "", "NaT", pd.NaT, [20, None]])
def test_global_time_refuses_a_missing_cut(cut):
    # pd.Timestamp reads these as NaT: every fold came out empty, silently.
    with pytest.raises(ValueError, match="cuts must be datetimes or Unix seconds"):
        next(GlobalTimeSplit(cut).split(LOG))


@pytest.mark.parametrize("cut", [float("nan"), float("inf"), -float("inf")])
def test_global_time_refuses_a_non_finite_cut(cut):
    with pytest.raises(ValueError, match=r"cuts holds 1 value.* not finite"):
        next(GlobalTimeSplit(cut).split(LOG))


def test_non_finite_time_is_named_as_such():
    log = LOG.assign(timestamp=LOG["timestamp"].where(LOG.index != 2, np.inf))
    with pytest.raises(ValueError, match=r"X\['timestamp'\] holds 1 value.* inf"):
        next(LeaveLastNSplit().split(log))


def test_global_time_refuses_mixing_naive_and_aware_times():
    stamps = pd.Timestamp("2024-01-01") + pd.to_timedelta(LOG["timestamp"], "D")
    aware = LOG.assign(timestamp=stamps.dt.tz_localize("Asia/Tokyo"))
    naive = LOG.assign(timestamp=stamps)
    # A naive cut on an aware column was read as UTC, nine hours off.
    with pytest.raises(TypeError, match="cut '2024-01-21' is timezone-naive"):
        next(GlobalTimeSplit("2024-01-21").split(aware))
    with pytest.raises(TypeError, match="timezone-aware but X\\['timestamp'\\]"):
        next(GlobalTimeSplit("2024-01-21T00:00+09:00").split(naive))
    cut = pd.Timestamp("2024-01-21", tz="Asia/Tokyo")
    aware_folds = next(GlobalTimeSplit(cut).split(aware))
    naive_folds = next(GlobalTimeSplit("2024-01-21").split(naive))
    np.testing.assert_array_equal(aware_folds[0], naive_folds[0])
    np.testing.assert_array_equal(aware_folds[1], naive_folds[1])


@pytest.mark.parametrize("n_splits", [0, "2", 2.0, True])
def test_leave_last_n_refuses_a_bad_n_splits(n_splits):
    # 0 gave no fold at all; "2" failed in range() and get_n_splits returned it.
    cv = LeaveLastNSplit(n_splits=n_splits)
    for call in (cv.get_n_splits, lambda: next(cv.split(LOG))):
        with pytest.raises(ValueError, match="n_splits must be an integer >= 1"):
            call()


@pytest.mark.parametrize("flag", ["filter_cold_items", "filter_already_seen"])
def test_item_filters_refuse_missing_items(flag):
    # A missing item took code -1, which the (user, item) key of the
    # already-seen filter shared with the previous user's last item.
    log = LOG.assign(item_id=LOG["item_id"].where(LOG.index != 5))
    with pytest.raises(ValueError, match=r"X\['item_id'\] has 1 missing values"):
        next(LeaveLastNSplit(**{flag: True}).split(log))
    with pytest.raises(ValueError, match=r"missing the column\(s\) \['item_id'\]"):
        next(LeaveLastNSplit(**{flag: True}).split(LOG.drop(columns="item_id")))


def test_grid_search_with_query_ranker_under_the_protocol():
    lightgbm = pytest.importorskip("lightgbm")
    from sklearn.model_selection import GridSearchCV

    from skndcg.datasets import make_movielens_like, make_ranking_task
    from skndcg.ranker import QueryRanker

    ratings = make_movielens_like(120, 300, 6000, random_state=0)
    X, y = make_ranking_task(ratings, n_negatives=10, random_state=0)
    cv = LeaveLastNSplit(n=1, n_splits=2, time_col="window_start")
    for train, test in cv.split(X):
        # No query split; each user's training queries precede its test ones.
        assert not set(X["qid"].iloc[train]) & set(X["qid"].iloc[test])
        tr, te = X.iloc[train], X.iloc[test]
        last = tr.groupby("user_id")["window_start"].max()
        first = te.groupby("user_id")["window_start"].min()
        assert (last.reindex(first.index) <= first).all()
    model = QueryRanker(
        lightgbm.LGBMRanker(n_estimators=10, min_child_samples=5, verbose=-1),
        time_col="window_start",
        drop_cols=["user_id", "item_id"],
    )
    search = GridSearchCV(
        model, {"estimator__num_leaves": [3, 7]}, cv=cv, error_score="raise"
    )
    search.fit(X, y)
    assert np.isfinite(search.best_score_)
    assert search.n_splits_ == 2
