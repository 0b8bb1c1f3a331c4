"""Early stopping inside a search: eval sets see the training data's preprocessing.

The eval fold is the latest quarter of the queries (by time), kept out of the
search. LightGBM's own NDCG on the eval set at its best iteration must equal
skndcg's ``convention="lightgbm"`` NDCG of the fitted QueryRanker's
predictions: it does only when the eval rows went through the same fitted
scaler and lost the same id and time columns as the training rows.
"""

import numpy as np
import pytest
import sklearn
from frames import ROLES, ranking_frame, split_by_time
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from skndcg.metrics import grouped_ndcg_score
from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.ranker import QueryRanker

lgb = pytest.importorskip("lightgbm")

N_ESTIMATORS = 300


@pytest.fixture(scope="module")
def data():
    # Features around 1000 with spread 10: a model trained on scaled features
    # sends every raw eval row to the same leaves.
    X, y = ranking_frame(n_queries=48, seed=3, scale=10.0)
    return split_by_time(X, y)


def _pipeline(routing=False):
    rank = lgb.LGBMRanker(
        n_estimators=N_ESTIMATORS,
        learning_rate=0.3,
        min_child_samples=5,
        metric="ndcg",
        verbose=-1,
        n_jobs=1,
    )
    if routing:
        rank.set_fit_request(callbacks=True, eval_at=True)
    return Pipeline([("scale", StandardScaler()), ("rank", rank)])


def _check_stopped_on_transformed_eval(model, X_eval, y_eval):
    rank = model.estimator_.named_steps["rank"]
    assert 0 < rank.best_iteration_ < N_ESTIMATORS
    theirs = rank.best_score_["valid_0"]["ndcg@5"]
    ours = grouped_ndcg_score(
        y_eval, model.predict(X_eval), X_eval["qid"], k=5, convention="lightgbm"
    )
    assert ours == pytest.approx(theirs, abs=1e-9)
    # The scaler was fitted once, on the training rows only.
    scale = model.estimator_.named_steps["scale"]
    assert list(scale.feature_names_in_) == ["f1", "f2"]


def test_pipeline_eval_set_is_preprocessed(data):
    X, y, X_eval, y_eval = data
    model = QueryRanker(_pipeline(), **ROLES).fit(
        X,
        y,
        eval_set=[(X_eval, y_eval)],
        rank__eval_at=[5],
        rank__callbacks=[lgb.early_stopping(5, verbose=False)],
    )
    _check_stopped_on_transformed_eval(model, X_eval, y_eval)
    # The same model without the scaler, fed the scaled data, predicts alike.
    scale = model.estimator_.named_steps["scale"]
    rank = model.estimator_.named_steps["rank"]
    Xs = scale.transform(X_eval[["f1", "f2"]])
    np.testing.assert_allclose(model.predict(X_eval), rank.predict(Xs))


@pytest.mark.parametrize("routing", [False, True])
def test_early_stopping_in_grid_search_with_a_time_ordered_eval_fold(data, routing):
    X, y, X_eval, y_eval = data
    stop = [lgb.early_stopping(5, verbose=False)]
    with sklearn.config_context(enable_metadata_routing=routing):
        cv = GroupTimeSeriesSplit(n_splits=2, time_col=None if routing else "ts")
        if routing:
            cv.set_split_request(groups="qid")
        search = GridSearchCV(
            QueryRanker(_pipeline(routing), **ROLES),
            {"estimator__rank__num_leaves": [3, 7]},
            cv=cv,
            error_score="raise",
        )
        if routing:
            search.fit(
                X.drop(columns="qid"),
                y,
                qid=X["qid"].to_numpy(),
                time=X["ts"],
                eval_set=[(X_eval, y_eval)],
                eval_at=[5],
                callbacks=stop,
            )
        else:
            search.fit(
                X,
                y,
                eval_set=[(X_eval, y_eval)],
                rank__eval_at=[5],
                rank__callbacks=stop,
            )
    # Every eval fold is later than every training fold of the search.
    assert X_eval["ts"].min() > X["ts"].max()
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    _check_stopped_on_transformed_eval(search.best_estimator_, X_eval, y_eval)


def test_nested_pipeline_eval_set_is_preprocessed(data):
    X, y, X_eval, y_eval = data
    inner = _pipeline()
    outer = Pipeline([("center", StandardScaler(with_std=False)), ("model", inner)])
    model = QueryRanker(outer, **ROLES).fit(
        X,
        y,
        eval_set=[(X_eval, y_eval)],
        model__rank__eval_at=[5],
        model__rank__callbacks=[lgb.early_stopping(5, verbose=False)],
    )
    rank = model.estimator_.named_steps["model"].named_steps["rank"]
    ours = grouped_ndcg_score(
        y_eval, model.predict(X_eval), X_eval["qid"], k=5, convention="lightgbm"
    )
    assert ours == pytest.approx(rank.best_score_["valid_0"]["ndcg@5"], abs=1e-9)


def test_bare_ranker_eval_set_loses_the_declared_columns(data):
    X, y, X_eval, y_eval = data
    model = QueryRanker(
        lgb.LGBMRanker(n_estimators=50, min_child_samples=5, verbose=-1, n_jobs=1),
        **ROLES,
    ).fit(X, y, eval_set=[(X_eval, y_eval)], eval_at=[5])
    ours = grouped_ndcg_score(
        y_eval, model.predict(X_eval), X_eval["qid"], k=5, convention="lightgbm"
    )
    last = model.estimator_.evals_result_["valid_0"]["ndcg@5"][-1]
    assert ours == pytest.approx(last, abs=1e-9)


def test_eval_set_columns_lightgbm_cannot_take_are_named(data):
    X, y, X_eval, y_eval = data
    bad = X_eval.assign(note="x")
    with pytest.raises(ValueError, match=r"column 'note' of the X of eval_set\[0\]"):
        QueryRanker(lgb.LGBMRanker(verbose=-1), **ROLES).fit(
            X, y, eval_set=[(bad, y_eval)]
        )


def test_step_parameters_that_match_no_step_are_refused(data):
    X, y, X_eval, y_eval = data
    with pytest.raises(TypeError, match=r"match no step"):
        QueryRanker(Pipeline([("rank", lgb.LGBMRanker())]), **ROLES).fit(
            X, y, eval_set=[(X_eval, y_eval)], scale__with_mean=False
        )


def test_xgboost_pipeline_eval_set_is_preprocessed(data):
    xgb = pytest.importorskip("xgboost")
    X, y, X_eval, y_eval = data
    rank = xgb.XGBRanker(
        n_estimators=40, max_depth=3, eval_metric="ndcg@5", n_jobs=1, random_state=0
    )
    model = QueryRanker(
        Pipeline([("scale", StandardScaler()), ("rank", rank)]), **ROLES
    ).fit(X, y, eval_set=[(X_eval, y_eval)], rank__verbose=False)
    curve = model.estimator_.named_steps["rank"].evals_result()["validation_0"]
    ours = grouped_ndcg_score(
        y_eval, model.predict(X_eval), X_eval["qid"], k=5, convention="xgboost"
    )
    assert ours == pytest.approx(curve["ndcg@5"][-1], abs=1e-6)
