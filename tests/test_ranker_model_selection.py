"""QueryRanker inside scikit-learn model selection, routing off and on."""

import lightgbm as lgb
import numpy as np
import pytest
import sklearn
import xgboost as xgb
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    RandomizedSearchCV,
    cross_val_predict,
    cross_validate,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from test_ranker import LGBM, XGB, make_data

from skndcg.metrics import grouped_ndcg_score
from skndcg.ranker import QueryRanker

CV = GroupKFold(n_splits=3)


@pytest.fixture(scope="module")
def data():
    X, y = make_data(n_queries=30, seed=11)
    return X, y, X["qid"].to_numpy(), X.drop(columns="qid")


def manual_cv_scores(estimator, X, y, qid):
    """Fold scores computed by hand: fit on train, NDCG@10 on test."""
    scores = []
    for train, test in CV.split(X, y, groups=qid):
        model = QueryRanker(estimator).fit(X.iloc[train], y[train])
        pred = model.predict(X.iloc[test])
        scores.append(grouped_ndcg_score(y[test], pred, qid[test], k=10))
    return np.array(scores)


@pytest.mark.parametrize(
    "estimator",
    [
        lgb.LGBMRanker(**LGBM),
        xgb.XGBRanker(**XGB),
        Ridge(),
        Pipeline([("scale", StandardScaler()), ("rank", lgb.LGBMRanker(**LGBM))]),
    ],
    ids=["lgbm", "xgb", "ridge", "pipeline"],
)
def test_cross_validate_both_channels_match_manual(data, estimator):
    X, y, qid, X_feat = data
    expected = manual_cv_scores(estimator, X, y, qid)
    off = cross_validate(QueryRanker(estimator), X, y, groups=qid, cv=CV)
    assert np.allclose(off["test_score"], expected)
    with sklearn.config_context(enable_metadata_routing=True):
        on = cross_validate(
            QueryRanker(estimator), X_feat, y, cv=CV, params={"groups": qid, "qid": qid}
        )
        on_col = cross_validate(
            QueryRanker(estimator), X, y, cv=CV, params={"groups": qid}
        )
    assert np.allclose(on["test_score"], expected)
    assert np.allclose(on_col["test_score"], expected)


def test_grid_search_params_reach_inner_model(data):
    X, y, qid, X_feat = data
    grid = {"estimator__rank__n_estimators": [1, 6], "estimator__rank__num_leaves": [3]}
    pipe = Pipeline([("scale", StandardScaler()), ("rank", lgb.LGBMRanker(**LGBM))])
    off = GridSearchCV(QueryRanker(pipe), grid, cv=CV, error_score="raise")
    off.fit(X, y, groups=qid)
    scores = off.cv_results_["mean_test_score"]
    assert scores[0] != scores[1]
    best = off.best_estimator_.estimator_.named_steps["rank"]
    assert best.n_estimators == off.best_params_["estimator__rank__n_estimators"]
    assert best.booster_.num_trees() == best.n_estimators
    one_tree = dict(LGBM, n_estimators=1, num_leaves=3)
    pipe1 = Pipeline(
        [("scale", StandardScaler()), ("rank", lgb.LGBMRanker(**one_tree))]
    )
    assert np.isclose(scores[0], manual_cv_scores(pipe1, X, y, qid).mean())
    with sklearn.config_context(enable_metadata_routing=True):
        on = GridSearchCV(QueryRanker(pipe), grid, cv=CV, error_score="raise")
        on.fit(X_feat, y, groups=qid, qid=qid)
    assert np.allclose(on.cv_results_["mean_test_score"], scores)


@pytest.mark.parametrize("routing", [False, True])
def test_randomized_search_two_jobs(data, routing):
    X, y, qid, X_feat = data
    grid = {
        "estimator__n_estimators": [1, 3, 5],
        "estimator__learning_rate": [0.1, 0.3],
    }
    search = RandomizedSearchCV(
        QueryRanker(lgb.LGBMRanker(**LGBM)),
        grid,
        n_iter=3,
        cv=CV,
        n_jobs=2,
        random_state=0,
        error_score="raise",
    )
    with sklearn.config_context(enable_metadata_routing=routing):
        if routing:
            search.fit(X_feat, y, groups=qid, qid=qid)
        else:
            search.fit(X, y, groups=qid)
    reference = RandomizedSearchCV(
        QueryRanker(lgb.LGBMRanker(**LGBM)), grid, n_iter=3, cv=CV, random_state=0
    ).fit(X, y, groups=qid)
    assert np.allclose(
        search.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"]
    )
    assert np.isfinite(search.best_score_)


@pytest.mark.parametrize("routing", [False, True])
def test_halving_search_on_n_estimators(data, routing):
    X, y, qid, X_feat = data
    search = HalvingGridSearchCV(
        QueryRanker(lgb.LGBMRanker(**LGBM)),
        {"estimator__num_leaves": [3, 7, 15]},
        resource="estimator__n_estimators",
        min_resources=2,
        max_resources=8,
        factor=2,
        cv=CV,
        error_score="raise",
    )
    with sklearn.config_context(enable_metadata_routing=routing):
        if routing:
            search.fit(X_feat, y, groups=qid, qid=qid)
        else:
            search.fit(X, y, groups=qid)
    assert search.n_iterations_ >= 2
    resources = search.cv_results_["param_estimator__n_estimators"]
    assert sorted(set(resources)) == [2, 4]
    best = search.best_estimator_.estimator_
    assert best.booster_.num_trees() == search.best_params_["estimator__n_estimators"]
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_halving_on_samples_reorders_rows_safely(data):
    # resource="n_samples" subsamples rows out of query order; the wrapper re-sorts.
    X, y, qid, _ = data
    search = HalvingGridSearchCV(
        QueryRanker(xgb.XGBRanker(**XGB)),
        {"estimator__max_depth": [2, 3]},
        min_resources=60,
        cv=CV,
        error_score="raise",
        random_state=0,
    ).fit(X, y, groups=qid)
    assert np.isfinite(search.best_score_)


def test_query_ranker_inside_pipeline_with_routing(data):
    _, y, qid, X_feat = data
    pipe = Pipeline([("scale", StandardScaler()), ("qr", QueryRanker(Ridge()))])
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_validate(
            pipe, X_feat, y, cv=CV, params={"groups": qid, "qid": qid}
        )
        pred = cross_val_predict(
            pipe, X_feat, y, cv=CV, params={"groups": qid, "qid": qid}
        )
    inner = Pipeline([("scale", StandardScaler()), ("ridge", Ridge())])
    expected = []
    for train, test in CV.split(X_feat, y, groups=qid):
        p = inner.fit(X_feat.iloc[train], y[train]).predict(X_feat.iloc[test])
        expected.append(grouped_ndcg_score(y[test], p, qid[test], k=10))
        assert np.allclose(pred[test], p)
    assert np.allclose(scores["test_score"], expected)


def test_sample_weight_routed_to_pipeline_final_step(data):
    X, y, qid, X_feat = data
    w = 1.0 + (qid % 3)
    pipe = Pipeline([("scale", StandardScaler()), ("rank", lgb.LGBMRanker(**LGBM))])
    off = QueryRanker(pipe).fit(X, y, sample_weight=w)
    unweighted = QueryRanker(pipe).fit(X, y)
    assert not np.array_equal(off.predict(X), unweighted.predict(X))
    with sklearn.config_context(enable_metadata_routing=True):
        model = QueryRanker(pipe).set_fit_request(sample_weight=True)
        model.set_score_request(sample_weight=True)
        on = model.fit(X_feat, y, qid=qid, sample_weight=w)
        assert np.array_equal(on.predict(X_feat), off.predict(X))
        search = GridSearchCV(model, {"qid_col": ["qid"]}, cv=CV, error_score="raise")
        search.fit(X_feat, y, groups=qid, qid=qid, sample_weight=w)
    assert np.isfinite(search.best_score_)
    assert pipe.named_steps["rank"].get_metadata_routing().fit.requests["group"] is None


def test_inner_fit_params_routed_by_inner_request(data):
    X, y, qid, X_feat = data
    init = np.random.default_rng(3).normal(size=len(y))
    off = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y, init_score=init)
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match=r"\[init_score\] are passed but are not"):
            QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y, init_score=init)
        inner = lgb.LGBMRanker(**LGBM).set_fit_request(init_score=True)
        on = QueryRanker(inner).fit(X_feat, y, qid=qid, init_score=init)
    assert np.array_equal(on.predict(X), off.predict(X))


def test_score_is_grouped_ndcg_at_10(data):
    X, y, qid, X_feat = data
    model = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)
    expected = grouped_ndcg_score(y, model.predict(X), qid, k=10)
    assert model.score(X, y) == pytest.approx(expected)
    assert model.score(X_feat, y, qid=qid) == pytest.approx(expected)
    w = 1.0 + (qid % 2)
    weighted = grouped_ndcg_score(y, model.predict(X), qid, k=10, sample_weight=w)
    assert model.score(X, y, sample_weight=w) == pytest.approx(weighted)
