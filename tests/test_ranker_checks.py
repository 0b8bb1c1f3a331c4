"""scikit-learn's estimator checks for QueryRanker, and their DataFrame twins.

The common checks build plain numpy inputs and pass no query ids. A missing
qid is an error by design (DESIGN §3: routed qid, else the column, else a
ValueError), so every check that fits fails at that error before reaching the
property it tests. Those checks are listed as expected failures, a test below
proves that the qid error is the *only* reason they fail, and the properties
that matter are re-checked here with query ids supplied.
"""

import copy

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks

from skndcg.ranker import QueryRanker

_REASON = (
    "fits on a numpy/sparse X (or a DataFrame without a 'qid' column) and passes "
    "no qid; QueryRanker then raises its 'query ids not found' ValueError by "
    "design, before the property under test is reached"
)
_NEEDS_QID = [
    "check_all_zero_sample_weights_error",
    "check_complex_data",
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_dtype_object",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
    "check_estimator_sparse_tag",
    "check_estimators_dtypes",
    "check_estimators_empty_data_messages",
    "check_estimators_fit_returns_self",
    "check_estimators_nan_inf",
    "check_estimators_overwrite_params",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_fit2d_1feature",
    "check_fit2d_1sample",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_pipeline_consistency",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
    "check_requires_y_none",
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data",
    "check_sample_weights_list",
    "check_sample_weights_not_an_array",
    "check_sample_weights_not_overwritten",
    "check_sample_weights_pandas_series",
    "check_sample_weights_shape",
]


def _expected_failed_checks(estimator):
    return dict.fromkeys(_NEEDS_QID, _REASON)


@parametrize_with_checks(
    [QueryRanker(Ridge())], expected_failed_checks=_expected_failed_checks
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def _cause_chain(exc):
    while exc is not None:
        yield str(exc)
        exc = exc.__cause__ or exc.__context__


def test_expected_failures_are_only_the_missing_qid():
    results = check_estimator(QueryRanker(Ridge()), on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed == set(_NEEDS_QID)
    for r in results:
        if r["status"] == "failed":
            messages = list(_cause_chain(r["exception"]))
            assert any("query ids not found" in m for m in messages), r["check_name"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(12), 5)[rng.permutation(60)]
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 4, 60)
    return X, y, qid


def test_numpy_with_routed_qid(data):
    X, y, qid = data
    model = QueryRanker(Ridge()).fit(X, y, qid=qid)
    assert model.n_features_in_ == 3
    assert not hasattr(model, "feature_names_in_")
    assert np.allclose(model.predict(X), Ridge().fit(X, y).predict(X))


def test_fit_returns_self_idempotent_and_params_untouched(data):
    X, y, qid = data
    model = QueryRanker(Ridge(alpha=2.0))
    params = copy.deepcopy(model.get_params())
    assert model.fit(X, y, qid=qid) is model
    first = model.predict(X)
    assert np.array_equal(model.fit(X, y, qid=qid).predict(X), first)
    assert model.get_params()["estimator__alpha"] == 2.0
    assert {k: v for k, v in params.items() if k != "estimator"} == {
        k: v for k, v in model.get_params().items() if k != "estimator"
    }
    assert not hasattr(model.estimator, "coef_")  # the given estimator is not fitted


def test_predict_leaves_state_unchanged_and_subset_invariant(data):
    X, y, qid = data
    model = QueryRanker(Ridge()).fit(X, y, qid=qid)
    state = copy.deepcopy(model.__dict__)
    full = model.predict(X)
    assert np.array_equal(model.predict(X[:7]), full[:7])
    assert model.__dict__.keys() == state.keys()
    assert np.array_equal(model.estimator_.coef_, state["estimator_"].coef_)


def test_readonly_and_sparse_inputs(data):
    X, y, qid = data
    X_ro = X.copy()
    X_ro.setflags(write=False)
    dense = QueryRanker(Ridge()).fit(X_ro, y, qid=qid)
    sparse = QueryRanker(Ridge()).fit(sp.csr_array(X), y, qid=qid)
    assert np.allclose(sparse.predict(sp.csr_array(X)), dense.predict(X_ro))


def test_integer_weights_equal_repeated_rows(data):
    X, y, qid = data
    w = np.random.default_rng(1).integers(0, 3, len(y))
    weighted = QueryRanker(Ridge()).fit(X, y, qid=qid, sample_weight=w)
    rows = np.repeat(np.arange(len(y)), w)
    repeated = QueryRanker(Ridge()).fit(X[rows], y[rows], qid=qid[rows])
    assert np.allclose(weighted.predict(X), repeated.predict(X))


def test_clone_keeps_metadata_requests():
    with sklearn.config_context(enable_metadata_routing=True):
        model = QueryRanker(Ridge()).set_fit_request(qid=False)
    assert clone(model).get_metadata_routing().consumes("fit", ["qid"]) == set()
    fresh = QueryRanker(Ridge()).get_metadata_routing()
    assert fresh.consumes("fit", ["qid", "eval_set"]) == {"qid", "eval_set"}
    assert fresh.consumes("score", ["qid"]) == {"qid"}
    assert fresh.consumes("fit", ["sample_weight"]) == set()


def test_dataframe_with_integer_column_names():
    X = pd.DataFrame(np.random.default_rng(2).normal(size=(8, 2)))
    X["qid"] = [1, 1, 2, 2, 3, 3, 4, 4]
    model = QueryRanker(Ridge()).fit(X, np.arange(8))
    assert model.n_features_in_ == 2
    assert not hasattr(model, "feature_names_in_")
