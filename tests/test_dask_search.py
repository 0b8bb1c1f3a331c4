"""Model selection on a Dask cluster: cv_results_ as with n_jobs=1."""

import sys

import joblib
import lightgbm as lgb
import numpy as np
import pytest
import sklearn
from scale_cases import local_cluster
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV
from test_ranker import LGBM, make_data

from skndcg.metrics import make_ndcg_scorer, make_ranking_scorer
from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.ranker import QueryRanker

GRID = {"estimator__n_estimators": [2, 5], "estimator__learning_rate": [0.1, 0.3]}


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


@pytest.fixture(scope="module")
def data():
    X, y = make_data(n_queries=40, seed=5)
    # Each query's rows together, so row order can stand for time.
    order = np.argsort(X["qid"].to_numpy(), kind="stable")
    X, y = X.iloc[order].reset_index(drop=True), y[order]
    return X, y, X["qid"].to_numpy(), X.drop(columns="qid")


def make_search(kind, n_jobs):
    common = dict(
        cv=GroupTimeSeriesSplit(3),
        scoring={"ndcg": make_ndcg_scorer(5), "map": make_ranking_scorer("map@5")},
        refit="ndcg",
        n_jobs=n_jobs,
        error_score="raise",
    )
    ranker = QueryRanker(lgb.LGBMRanker(**LGBM))
    if kind == "grid":
        return GridSearchCV(ranker, GRID, **common)
    return RandomizedSearchCV(ranker, GRID, n_iter=3, random_state=0, **common)


def fit(search, data, routing):
    X, y, qid, X_feat = data
    with sklearn.config_context(enable_metadata_routing=routing):
        if routing:
            return search.fit(X_feat, y, groups=qid, qid=qid)
        return search.fit(X, y, groups=qid)


def assert_same_results(got, expected):
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        if key.endswith("_time"):
            continue  # wall-clock timings differ from run to run
        if key == "params":
            assert got[key] == value
        else:
            np.testing.assert_array_equal(np.asarray(got[key]), np.asarray(value), key)


@pytest.mark.parametrize("kind", ["grid", "randomized"])
@pytest.mark.parametrize("routing", [False, True])
def test_search_on_the_cluster_equals_one_job(client, data, kind, routing):
    expected = fit(make_search(kind, n_jobs=1), data, routing)
    X, y = data[0], data[1]
    with joblib.parallel_backend("dask", scatter=[X, y]):
        got = fit(make_search(kind, n_jobs=-1), data, routing)
    assert_same_results(got.cv_results_, expected.cv_results_)
    assert got.best_params_ == expected.best_params_
    # The fits ran in the cluster's worker processes.
    loaded = client.run(lambda: "lightgbm" in sys.modules)
    assert len(loaded) == 2 and all(loaded.values())
    scores = got.cv_results_["mean_test_ndcg"]
    assert np.isfinite(scores).all() and len(set(scores.round(12))) > 1
