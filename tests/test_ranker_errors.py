"""QueryRanker guard rails: every error names the argument and the fix."""

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import Ridge
from sklearn.svm import LinearSVR
from sklearn.utils._param_validation import InvalidParameterError

from skndcg.ranker import QueryRanker

LGBM = dict(n_estimators=2, min_child_samples=2, n_jobs=1, verbose=-1)


def frame(qid, seed=0):
    rng = np.random.default_rng(seed)
    n = len(qid)
    X = pd.DataFrame({"qid": qid, "a": rng.normal(size=n), "b": rng.normal(size=n)})
    return X, rng.integers(0, 3, n)


@pytest.fixture
def data():
    return frame([1, 1, 2, 2, 2, 3, 3])


def test_numpy_x_without_qid(data):
    X, y = data
    with pytest.raises(
        ValueError, match=r"QueryRanker.fit: query ids not found.*ndarray"
    ):
        QueryRanker(Ridge()).fit(X.to_numpy(), y)


def test_missing_column_lists_columns(data):
    X, y = data
    with pytest.raises(ValueError, match=r"no column 'user'.*\['qid', 'a', 'b'\]"):
        QueryRanker(Ridge(), qid_col="user").fit(X, y)


def test_qid_with_missing_values():
    X, y = frame([1.0, 1.0, np.nan, 2.0])
    with pytest.raises(
        ValueError, match=r"QueryRanker.fit: column 'qid'.*1 missing.*row 2"
    ):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)


def test_qid_length_differs(data):
    X, y = data
    with pytest.raises(ValueError, match="qid has 3 entries but X has 7 rows"):
        QueryRanker(Ridge()).fit(X.drop(columns="qid"), y, qid=[1, 2, 3])


def test_y_length_differs(data):
    X, y = data
    with pytest.raises(ValueError, match="y has 6 entries but X has 7 rows"):
        QueryRanker(Ridge()).fit(X, y[:6])


def test_score_y_length_differs(data):
    # Named as the caller passed it: y of QueryRanker.score, against X's rows.
    X, y = data
    model = QueryRanker(Ridge()).fit(X, y)
    with pytest.raises(
        ValueError, match=r"^QueryRanker\.score: y has 6 entries but X has 7 rows"
    ):
        model.score(X, y[:6])


def test_sample_weight_length_differs(data):
    X, y = data
    with pytest.raises(
        ValueError, match=r"sample_weight must have one entry per row \(7\)"
    ):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(
        ValueError, match=r"sample_weight must have one entry per row \(7\)"
    ):
        QueryRanker(Ridge()).fit(X, y, sample_weight=np.ones(3))


def test_sample_weight_not_accepted_by_inner_fit(data):
    X, y = data

    class NoWeights(Ridge):
        def fit(self, X, y):
            return super().fit(X, y)

    with pytest.raises(
        TypeError, match=r"NoWeights\.fit does not accept sample_weight"
    ):
        QueryRanker(NoWeights()).fit(X, y, sample_weight=np.ones(7))


def test_lightgbm_query_size_limit():
    qid = np.r_[np.full(10_001, "big"), ["small"] * 3]
    X, y = frame(qid)
    with pytest.raises(ValueError, match=r"query 'big' has 10001 rows.*at most 10000"):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)


def test_lightgbm_query_size_limit_not_applied_to_pointwise_objective():
    qid = np.r_[np.full(10_001, 1), [2, 2, 2]]
    X, y = frame(qid)
    params = dict(LGBM, objective="regression")
    model = QueryRanker(lgb.LGBMRanker(**params)).fit(X, y)
    assert model.n_queries_ == 2


@pytest.mark.parametrize("name", ["group", "eval_group"])
def test_user_group_sizes_rejected(data, name):
    X, y = data
    with pytest.raises(TypeError, match=rf"got {name}=.*derives the query structure"):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y, **{name: [2, 3, 2]})


def test_eval_x_rejected(data):
    X, y = data
    with pytest.raises(TypeError, match=r"got eval_X=; pass eval sets as eval_set"):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y, eval_X=(X,), eval_y=(y,))


def test_eval_qid_count_and_presence(data):
    X, y = data
    with pytest.raises(ValueError, match="eval_qid has 2 entries but eval_set has 1"):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(
            X, y, eval_set=[(X, y)], eval_qid=[X["qid"], X["qid"]]
        )
    with pytest.raises(ValueError, match="got eval_qid but no eval_set"):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y, eval_qid=[X["qid"]])


def test_eval_set_without_query_ids(data):
    X, y = data
    with pytest.raises(
        ValueError, match=r"QueryRanker.fit \(eval_set\[0\]\): query ids not"
    ):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(
            X, y, eval_set=[(X.drop(columns="qid"), y)]
        )


def test_invalid_estimator_and_qid_col(data):
    X, y = data
    with pytest.raises(InvalidParameterError, match="'estimator' parameter"):
        QueryRanker("lightgbm").fit(X, y)
    with pytest.raises(InvalidParameterError, match="'qid_col' parameter"):
        QueryRanker(Ridge(), qid_col=["qid"]).fit(X, y)


def test_not_fitted(data):
    X, y = data
    with pytest.raises(NotFittedError, match="QueryRanker"):
        QueryRanker(LinearSVR()).predict(X)
    with pytest.raises(NotFittedError, match="QueryRanker"):
        QueryRanker(LinearSVR()).score(X, y)


def test_score_without_query_ids(data):
    X, y = data
    model = QueryRanker(Ridge()).fit(X, y)
    with pytest.raises(ValueError, match=r"QueryRanker.score: query ids not found"):
        model.score(X.drop(columns="qid"), y)


def test_predict_refuses_different_columns(data):
    X, y = data
    model = QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, y)
    with pytest.raises(ValueError, match=r"different order\) differ from those seen"):
        model.predict(X[["b", "a", "qid"]])
    with pytest.raises(ValueError, match=r"missing \['b'\], unexpected \['z'\]"):
        model.predict(X.rename(columns={"b": "z"}))
    with pytest.raises(ValueError, match=r"QueryRanker.score: the columns of X"):
        model.score(X[["qid", "b", "a"]], y)


@pytest.mark.parametrize("y", [None, 3])
def test_fit_names_a_scalar_y(data, y):
    X, _ = data  # failed with "IndexError: tuple index out of range"
    with pytest.raises(ValueError, match=f"QueryRanker.fit: y is {y} but X has 7 rows"):
        QueryRanker(Ridge()).fit(X, y)


def test_fit_refuses_x_without_features(data):
    X, y = data  # scikit-learn's "at least one array or dtype is required"
    with pytest.raises(ValueError, match=r"no feature column left .*\['a', 'b'\]"):
        QueryRanker(Ridge(), drop_cols=["a", "b"]).fit(X, y)
