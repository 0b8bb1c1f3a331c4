"""Ranking scorers with Pipelines, ColumnTransformers and plain regressors."""

import lightgbm as lgb
import numpy as np
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import Ridge
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from test_scorer_common import (
    CV,
    FEATURES,
    LGBM,
    MODES,
    Mode,
    make_data,
    manual_fold_scores,
    split_scores,
)

from skndcg.metrics import grouped_ndcg_score, make_ndcg_scorer
from skndcg.ranker import QueryRanker


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_data(seed=3)
    colour = np.array(["red", "green", "blue"])[np.arange(len(y)) % 3]
    return X.assign(colour=colour), y, qid


@pytest.fixture(params=MODES)
def mode(request):
    return Mode(request.param)


def ndcg5(y_true, y_score, qid):
    return grouped_ndcg_score(y_true, y_score, qid, k=5)


@pytest.mark.parametrize("mode_name", MODES)
def test_query_ranker_around_pipeline_with_column_transformer(data, mode_name):
    mode = Mode(mode_name)
    X, y, qid = data
    prep = ColumnTransformer(
        [
            ("num", StandardScaler(), ["a", "b", "c"]),
            ("cat", OneHotEncoder(), ["colour"]),
        ]
    )
    model = QueryRanker(Pipeline([("prep", prep), ("rank", lgb.LGBMRanker(**LGBM))]))
    search = GridSearchCV(
        model,
        {"estimator__rank__n_estimators": [1, 4]},
        scoring=make_ndcg_scorer(5),
        cv=CV,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
    for i, n in enumerate([1, 4]):
        expected = manual_fold_scores(
            model, X, y, qid, ndcg5, estimator__rank__n_estimators=n
        )
        assert np.allclose(split_scores(search.cv_results_, i), expected)


def selector_ridge():
    """A plain scikit-learn Ridge that picks its features by name."""
    select = ColumnTransformer([("keep", "passthrough", FEATURES)])
    return Pipeline([("select", select), ("ridge", Ridge())])


def test_plain_ridge_pipeline_keeps_the_column_it_was_fitted_with(data, mode):
    # Fitted on X with the qid column, the Pipeline lists it in
    # feature_names_in_, so the scorer hands X to predict unchanged.
    X, y, qid = data
    X = X[["qid", *FEATURES]]
    search = GridSearchCV(
        selector_ridge(),
        {"ridge__alpha": [0.1, 100.0]},
        scoring=make_ndcg_scorer(5),
        cv=CV,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
    # The same numbers as the QueryRanker(Ridge) route.
    for i, alpha in enumerate([0.1, 100.0]):
        expected = manual_fold_scores(QueryRanker(Ridge(alpha=alpha)), X, y, qid, ndcg5)
        assert np.allclose(split_scores(search.cv_results_, i), expected)
    assert "qid" in search.best_estimator_.feature_names_in_ or mode.routed


def test_bare_ridge_with_routed_qid(data):
    X, y, qid = data
    X_feat = X[FEATURES]
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(
            Ridge(),
            X_feat,
            y,
            cv=CV,
            scoring=make_ndcg_scorer(5),
            params={"groups": qid, "qid": qid},
            error_score="raise",
        )
    expected = manual_fold_scores(
        QueryRanker(Ridge()), X[["qid", *FEATURES]], y, qid, ndcg5
    )
    assert np.allclose(scores, expected)


@pytest.mark.parametrize("alias", [True, "groups"])
def test_make_scorer_with_score_request_matches(data, alias):
    X, y, qid = data
    X_feat = X[FEATURES]
    ours = make_ndcg_scorer(10)
    plain = make_scorer(grouped_ndcg_score, k=10)
    results = []
    with sklearn.config_context(enable_metadata_routing=True):
        plain.set_score_request(qid=alias)
        ours.set_score_request(qid=alias)
        fit_kwargs = (
            {"groups": qid} if alias == "groups" else {"groups": qid, "qid": qid}
        )
        for scorer in (plain, ours):
            search = GridSearchCV(
                Ridge(),
                {"alpha": [0.1, 100.0]},
                scoring=scorer,
                cv=CV,
                error_score="raise",
            ).fit(X_feat, y, **fit_kwargs)
            results.append(search.cv_results_["mean_test_score"])
    assert np.allclose(results[0], results[1])
    expected = manual_fold_scores(
        QueryRanker(Ridge(alpha=0.1)), X[["qid", *FEATURES]], y, qid
    )
    assert results[1][0] == pytest.approx(expected.mean())
