"""CatBoostRanker inside QueryRanker: query ids as ``group_id``, eval sets as Pools."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from frames import FEATURES, ROLES, ranking_frame, split_by_time
from peers import catboost_metric
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from skndcg.metrics import grouped_ndcg_score, make_ranking_scorer
from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.ranker import QueryRanker

catboost = pytest.importorskip("catboost")

# allow_writing_files=False: CatBoost would write a catboost_info folder.
PARAMS = {
    "iterations": 20,
    "depth": 3,
    "verbose": 0,
    "random_seed": 0,
    "allow_writing_files": False,
}


def _ranker(**extra):
    return catboost.CatBoostRanker(**PARAMS, thread_count=1, **extra)


@pytest.fixture(scope="module")
def data():
    return ranking_frame(n_queries=30)


def test_fits_with_group_id_in_any_row_order(data):
    X, y = data
    model = QueryRanker(_ranker(), **ROLES).fit(X, y)
    # By hand: rows sorted by query (in order of first appearance), the query
    # codes as group_id.
    codes = pd.factorize(X["qid"])[0]
    order = np.argsort(codes, kind="stable")
    direct = _ranker().fit(X[FEATURES].iloc[order], y[order], group_id=codes[order])
    np.testing.assert_array_equal(model.predict(X), direct.predict(X[FEATURES]))
    # Pointwise (no group_id) would be another model.
    pointwise = catboost.CatBoostRegressor(**PARAMS, thread_count=1)
    pointwise.fit(X[FEATURES], y)
    assert not np.allclose(model.predict(X), pointwise.predict(X[FEATURES]))


@pytest.mark.parametrize("pipeline", [False, True])
def test_eval_set_becomes_a_pool_with_group_ids(data, pipeline):
    X, y = data
    X_fit, y_fit, X_eval, y_eval = split_by_time(X, y)
    inner = _ranker(eval_metric="NDCG:top=5")
    if pipeline:
        inner = Pipeline([("scale", StandardScaler()), ("rank", inner)])
    model = QueryRanker(inner, **ROLES).fit(X_fit, y_fit, eval_set=[(X_eval, y_eval)])
    final = model.estimator_[-1] if pipeline else model.estimator_
    curve = final.evals_result_["validation"]["NDCG:top=5;type=Base"]
    best = final.get_best_iteration()
    # CatBoost's own metric, on the eval rows grouped by query, of the best model.
    want = catboost_metric(y_eval, model.predict(X_eval), X_eval["qid"], "NDCG:top=5")
    assert curve[best] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("routing", [False, True])
def test_grid_search_like_lgbmranker(data, routing):
    X, y = data
    with sklearn.config_context(enable_metadata_routing=routing):
        cv = GroupTimeSeriesSplit(n_splits=2, time_col=None if routing else "ts")
        if routing:
            cv.set_split_request(groups="qid")
        search = GridSearchCV(
            QueryRanker(_ranker(), **ROLES),
            {"estimator__depth": [2, 4]},
            scoring=make_ranking_scorer("ndcg@5"),
            cv=cv,
            error_score="raise",
        )
        if routing:
            search.fit(X.drop(columns="qid"), y, qid=X["qid"].to_numpy(), time=X["ts"])
        else:
            search.fit(X, y)
    folds = list(GroupTimeSeriesSplit(n_splits=2, time_col="ts").split(X))
    for i, depth in enumerate([2, 4]):
        for k, (train, test) in enumerate(folds):
            model = QueryRanker(_ranker().set_params(depth=depth), **ROLES)
            model.fit(X.iloc[train], y[train])
            want = grouped_ndcg_score(
                y[test], model.predict(X.iloc[test]), X["qid"].to_numpy()[test], k=5
            )
            got = search.cv_results_[f"split{k}_test_score"][i]
            assert got == pytest.approx(want, abs=1e-12)
