"""QueryRanker: fitting, prediction order, weights, eval sets and guard rails."""

import pickle

import lightgbm as lgb
import numpy as np
import pandas as pd
import polars as pl
import pytest
import xgboost as xgb
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from skndcg.ranker import QueryRanker

LGBM = dict(
    n_estimators=4,
    num_leaves=7,
    min_child_samples=2,
    deterministic=True,
    force_row_wise=True,
    n_jobs=1,
    verbose=-1,
)
XGB = dict(n_estimators=4, max_depth=3, n_jobs=1, tree_method="hist")


def make_data(n_queries=20, seed=0):
    """Shuffled rows, interleaved queries, ids neither contiguous nor ascending."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 10, n_queries)
    ids = rng.permutation(n_queries) * 11 + 5
    qid = np.repeat(ids, sizes)
    n = qid.size
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    noise = rng.normal(0, 0.7, n)
    y = np.clip(np.round(X["a"].to_numpy() + 0.5 * X["b"].to_numpy() + noise + 1), 0, 3)
    perm = rng.permutation(n)
    X = X.iloc[perm].reset_index(drop=True)
    X.insert(1, "qid", qid[perm])
    return X, y[perm].astype(int)


def hand_sorted(X):
    """What a careful user would do by hand: stable sort, sizes, sorted codes."""
    codes, _ = pd.factorize(X["qid"])
    order = np.argsort(codes, kind="stable")
    return order, np.bincount(codes), codes[order]


@pytest.fixture(scope="module")
def data():
    return make_data()


def test_lightgbm_equals_hand_sorted_fit(data):
    X, y = data
    order, sizes, _ = hand_sorted(X)
    features = X.drop(columns="qid")
    direct = lgb.LGBMRanker(**LGBM).fit(features.iloc[order], y[order], group=sizes)
    model = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)
    assert np.array_equal(model.predict(X), direct.predict(features))
    assert model.n_queries_ == 20
    assert model.n_features_in_ == 3
    assert model.feature_names_in_.tolist() == ["a", "b", "c"]
    assert model.estimator_.feature_name_ == ["a", "b", "c"]


def test_xgboost_equals_hand_sorted_fit(data):
    X, y = data
    order, _, codes = hand_sorted(X)
    features = X.drop(columns="qid")
    direct = xgb.XGBRanker(**XGB).fit(features.iloc[order], y[order], qid=codes)
    model = QueryRanker(xgb.XGBRanker(**XGB)).fit(X, y)
    assert np.array_equal(model.predict(X), direct.predict(features))


def test_predictions_follow_caller_row_order(data):
    X, y = data
    model = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)
    perm = np.random.default_rng(1).permutation(len(X))
    assert np.array_equal(model.predict(X.iloc[perm]), model.predict(X)[perm])
    # the qid column is optional at predict time; a routed qid is ignored
    no_col = X.drop(columns="qid")
    assert np.array_equal(model.predict(no_col), model.predict(X))
    assert np.array_equal(model.predict(no_col, qid=np.zeros(len(X))), model.predict(X))


def test_row_order_of_training_data_does_not_matter(data):
    X, y = data
    perm = np.random.default_rng(2).permutation(len(X))
    a = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)
    order, _, _ = hand_sorted(X)
    # the same rows pre-sorted: identical model (stable sort keeps the order)
    b = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X.iloc[order], y[order])
    assert np.array_equal(a.predict(X), b.predict(X))
    c = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X.iloc[perm], y[perm])
    assert c.n_queries_ == a.n_queries_


def test_routed_qid_equals_column(data):
    X, y = data
    a = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)
    b = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X.drop(columns="qid"), y, qid=X["qid"])
    assert np.array_equal(a.predict(X), b.predict(X))


def test_input_not_mutated(data):
    X, y = data
    X_before, y_before = X.copy(), y.copy()
    QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)
    pd.testing.assert_frame_equal(X, X_before)
    assert np.array_equal(y, y_before)


def test_regressor_is_fitted_pointwise(data):
    X, y = data
    model = QueryRanker(Ridge(), qid_col="qid").fit(X, y)
    direct = Ridge().fit(X.drop(columns="qid"), y)
    assert np.allclose(model.predict(X), direct.predict(X.drop(columns="qid")))


def test_pipeline_gets_prefixed_group(data):
    X, y = data
    order, sizes, _ = hand_sorted(X)
    features = X.drop(columns="qid")
    pipe = Pipeline([("scale", StandardScaler()), ("rank", lgb.LGBMRanker(**LGBM))])
    model = QueryRanker(pipe).fit(X, y)
    direct = clone(pipe).fit(features.iloc[order], y[order], rank__group=sizes)
    assert np.array_equal(model.predict(X), direct.predict(features))


def test_polars_input(data):
    X, y = data
    model = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(pl.from_pandas(X), y)
    reference = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)
    assert np.allclose(model.predict(pl.from_pandas(X)), reference.predict(X))
    assert model.feature_names_in_.tolist() == ["a", "b", "c"]


def test_string_query_ids_and_single_row_queries():
    X, y = make_data(n_queries=6, seed=3)
    X["qid"] = X["qid"].astype(str)
    extra = pd.DataFrame(
        {"a": [0.1, 0.2], "qid": ["solo1", "solo2"], "b": 0.0, "c": 0.0}
    )
    X2 = pd.concat([X, extra[X.columns]], ignore_index=True)
    y2 = np.concatenate([y, [1, 0]])
    model = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X2, y2)
    assert model.n_queries_ == 8
    assert np.isfinite(model.predict(X2)).all()
    model = QueryRanker(xgb.XGBRanker(**XGB)).fit(X2, y2)
    assert np.isfinite(model.predict(X2)).all()


def test_lightgbm_sample_weight_per_row(data):
    X, y = data
    w = np.random.default_rng(4).uniform(0.5, 2.0, len(X))
    order, sizes, _ = hand_sorted(X)
    features = X.drop(columns="qid")
    direct = lgb.LGBMRanker(**LGBM).fit(
        features.iloc[order], y[order], group=sizes, sample_weight=w[order]
    )
    model = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y, sample_weight=w)
    assert np.array_equal(model.predict(X), direct.predict(features))


def test_xgboost_sample_weight_per_query(data):
    X, y = data
    per_query = {q: 1.0 + (q % 3) for q in X["qid"].unique()}
    w = X["qid"].map(per_query).to_numpy()
    order, _, codes = hand_sorted(X)
    group_w = pd.unique(X["qid"].iloc[order])
    direct = xgb.XGBRanker(**XGB).fit(
        X.drop(columns="qid").iloc[order],
        y[order],
        qid=codes,
        sample_weight=np.array([per_query[q] for q in group_w]),
    )
    model = QueryRanker(xgb.XGBRanker(**XGB)).fit(X, y, sample_weight=w)
    assert np.array_equal(model.predict(X), direct.predict(X.drop(columns="qid")))


def test_xgboost_weights_varying_within_query_raise(data):
    X, y = data
    w = np.ones(len(X))
    w[np.flatnonzero(X["qid"] == X["qid"].iloc[0])[-1]] = 2.0
    q = X["qid"].iloc[0]
    with pytest.raises(ValueError, match=rf"sample_weight varies within query {q}"):
        QueryRanker(xgb.XGBRanker(**XGB)).fit(X, y, sample_weight=w)


def test_lightgbm_eval_set_early_stopping():
    X, y = make_data(n_queries=20, seed=5)
    X_val, y_val = make_data(n_queries=8, seed=6)
    params = dict(LGBM, n_estimators=30)
    model = QueryRanker(lgb.LGBMRanker(**params)).fit(
        X,
        y,
        eval_set=[(X_val, y_val)],
        eval_at=[3],
        callbacks=[lgb.early_stopping(3, verbose=False)],
    )
    order, sizes, _ = hand_sorted(X)
    v_order, v_sizes, _ = hand_sorted(X_val)
    direct = lgb.LGBMRanker(**params).fit(
        X.drop(columns="qid").iloc[order],
        y[order],
        group=sizes,
        eval_X=(X_val.drop(columns="qid").iloc[v_order],),
        eval_y=(y_val[v_order],),
        eval_group=[v_sizes],
        eval_at=[3],
        callbacks=[lgb.early_stopping(3, verbose=False)],
    )
    assert model.estimator_.best_iteration_ == direct.best_iteration_
    assert model.estimator_.evals_result_ == direct.evals_result_
    # routed eval_qid instead of the column gives the same run
    routed = QueryRanker(lgb.LGBMRanker(**params)).fit(
        X,
        y,
        eval_set=[(X_val.drop(columns="qid"), y_val)],
        eval_qid=[X_val["qid"]],
        eval_at=[3],
        callbacks=[lgb.early_stopping(3, verbose=False)],
    )
    assert routed.estimator_.evals_result_ == direct.evals_result_


def test_xgboost_eval_set_with_eval_qid():
    X, y = make_data(n_queries=20, seed=5)
    X_val, y_val = make_data(n_queries=8, seed=6)
    params = dict(XGB, n_estimators=20, early_stopping_rounds=3, eval_metric="ndcg@3")
    model = QueryRanker(xgb.XGBRanker(**params)).fit(
        X, y, eval_set=[(X_val.drop(columns="qid"), y_val)], eval_qid=[X_val["qid"]]
    )
    order, _, codes = hand_sorted(X)
    v_order, _, v_codes = hand_sorted(X_val)
    direct = xgb.XGBRanker(**params).fit(
        X.drop(columns="qid").iloc[order],
        y[order],
        qid=codes,
        eval_set=[(X_val.drop(columns="qid").iloc[v_order], y_val[v_order])],
        eval_qid=[v_codes],
    )
    assert model.estimator_.best_iteration == direct.best_iteration
    assert model.estimator_.evals_result() == direct.evals_result()


def test_other_per_row_fit_params_follow_rows(data):
    X, y = data
    init = np.random.default_rng(7).normal(size=len(X))
    order, sizes, _ = hand_sorted(X)
    direct = lgb.LGBMRanker(**LGBM).fit(
        X.drop(columns="qid").iloc[order], y[order], group=sizes, init_score=init[order]
    )
    model = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y, init_score=init)
    assert np.array_equal(model.predict(X), direct.predict(X.drop(columns="qid")))


def test_pickle_and_clone(data):
    X, y = data
    model = QueryRanker(lgb.LGBMRanker(**LGBM), qid_col="qid").fit(X, y)
    restored = pickle.loads(pickle.dumps(model))
    assert np.array_equal(restored.predict(X), model.predict(X))
    fresh = clone(model)
    assert not hasattr(fresh, "estimator_")
    assert fresh.get_params()["estimator__n_estimators"] == 4


def test_get_set_params_reach_inner_model(data):
    X, y = data
    pipe = Pipeline([("scale", StandardScaler()), ("rank", lgb.LGBMRanker(**LGBM))])
    model = QueryRanker(pipe)
    assert model.get_params()["estimator__rank__n_estimators"] == 4
    model.set_params(estimator__rank__n_estimators=2).fit(X, y)
    assert model.estimator_.named_steps["rank"].booster_.num_trees() == 2
    assert (
        pipe.named_steps["rank"].n_estimators == 2
    )  # set_params acts on the given object
    assert not hasattr(pipe.named_steps["rank"], "booster_")  # but fit uses a clone


def test_n_jobs_left_to_user(data):
    X, y = data
    model = QueryRanker(lgb.LGBMRanker(**dict(LGBM, n_jobs=2))).fit(X, y)
    assert model.estimator_.get_params()["n_jobs"] == 2
    model = QueryRanker(lgb.LGBMRanker(**dict(LGBM, n_jobs=None))).fit(X, y)
    assert model.estimator_.get_params()["n_jobs"] is None
