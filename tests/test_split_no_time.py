"""GroupTimeSeriesSplit without time: it says so, and warns on shuffled rows.

Also the routing shortcut: one routed ``qid`` serves as the splitter's groups
when the splitter asks for it (``set_split_request(groups="qid")``).
"""

import re
import warnings

import numpy as np
import pytest
import sklearn
from frames import ROLES, ranking_frame, to_polars
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV

from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.ranker import QueryRanker

NO_TIME = "no time given; row order is used as time"


def _user_groups(X):
    # Long-lived groups (users): with shuffled rows each spans every cutoff.
    return X["user_id"].to_numpy()


def test_shuffled_rows_warn_once_and_the_error_names_the_cause():
    X, _ = ranking_frame()
    cv = GroupTimeSeriesSplit(n_splits=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match=re.escape(NO_TIME)) as info:
            list(cv.split(X, groups=_user_groups(X)))
    assert "fold 0" in str(info.value) and "time_col" in str(info.value)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    assert NO_TIME in messages[0] and "'ts' is not sorted" in messages[0]


def test_split_info_says_row_order_is_time():
    X, _ = ranking_frame(shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # rows in time order: no warning
        info = GroupTimeSeriesSplit(n_splits=3).split_info(X)
    assert set(info["time_source"]) == {NO_TIME}
    # With the time column, the same folds (rows were in time order).
    timed = GroupTimeSeriesSplit(n_splits=3, time_col="ts").split_info(X)
    assert set(timed["time_source"]) == {"column"}
    np.testing.assert_array_equal(info["n_test_rows"], timed["n_test_rows"])


def test_shuffled_index_alone_warns():
    X, _ = ranking_frame(shuffle=False)
    X = X.drop(columns="ts")
    X.index = np.random.default_rng(0).permutation(len(X))
    with pytest.warns(UserWarning, match=r"index is not in order"):
        GroupTimeSeriesSplit(n_splits=3).split_info(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # arrays carry no evidence: no warning
        GroupTimeSeriesSplit(n_splits=3).split_info(
            np.zeros((len(X), 1)), groups=X["qid"]
        )


def test_polars_unsorted_datetime_column_warns():
    pytest.importorskip("polars")
    X, _ = ranking_frame()
    with (
        pytest.warns(UserWarning, match=r"column 'ts' is not sorted"),
        pytest.raises(ValueError, match=re.escape(NO_TIME)),
    ):
        GroupTimeSeriesSplit(n_splits=3).split_info(to_polars(X))


@pytest.mark.parametrize("routing", [False, True])
def test_search_without_time_fails_saying_so(routing):
    X, y = ranking_frame()
    X = X.assign(qid=X["user_id"])  # user-level queries: long-lived groups
    with sklearn.config_context(enable_metadata_routing=routing):
        cv = GroupTimeSeriesSplit(n_splits=3)
        if routing:
            cv.set_split_request(groups="qid")
        search = GridSearchCV(
            QueryRanker(Ridge(), **ROLES),
            {"estimator__alpha": [1.0]},
            cv=cv,
            error_score="raise",
        )
        with (
            pytest.warns(UserWarning, match=re.escape(NO_TIME)),
            pytest.raises(ValueError, match=re.escape(NO_TIME)),
        ):
            if routing:
                qid = X["qid"].to_numpy()
                search.fit(X.drop(columns="qid"), y, qid=qid)
            else:
                search.fit(X, y)


def test_routed_qid_serves_as_groups_when_asked():
    X, y = ranking_frame()
    qid, t = X["qid"].to_numpy(), X["ts"]
    X = X.drop(columns="qid")
    with sklearn.config_context(enable_metadata_routing=True):
        asked = GroupTimeSeriesSplit(n_splits=3).set_split_request(groups="qid")
        search = GridSearchCV(
            QueryRanker(Ridge(), **ROLES),
            {"estimator__alpha": [1.0]},
            cv=asked,
            error_score="raise",
        )
        search.fit(X, y, qid=qid, time=t)
        assert np.isfinite(search.cv_results_["mean_test_score"]).all()
        # Not asked: the splitter finds no groups and says how to route them.
        search.set_params(cv=GroupTimeSeriesSplit(n_splits=3))
        with pytest.raises(ValueError, match=r"set_split_request\(groups='qid'\)"):
            search.fit(X, y, qid=qid, time=t)
    want = GroupTimeSeriesSplit(n_splits=3).split_info(X, groups=qid, time=t)
    assert search.n_splits_ == len(want)
