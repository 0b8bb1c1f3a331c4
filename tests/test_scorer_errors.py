"""Bad input to the ranking scorers: each a clear error, never a silent number."""

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, cross_validate
from test_scorer_common import CV, FEATURES, make_data

from skndcg.metrics import make_ndcg_scorer, make_ranking_scorer
from skndcg.ranker import QueryRanker


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_data(n_queries=9, seed=7)
    return X, y, qid, Ridge().fit(X[FEATURES], y)


def test_no_query_ids_in_either_channel(data):
    X, y, _, model = data
    with pytest.raises(ValueError, match=r"query ids not found: X has no column 'qid'"):
        make_ndcg_scorer()(model, X[FEATURES], y)
    with pytest.raises(ValueError, match=r"no column 'user'.*set qid_col="):
        make_ndcg_scorer(qid_col="user")(model, X, y)


def test_no_query_ids_hint_depends_on_routing(data):
    X, y, _, model = data
    with pytest.raises(ValueError, match="Metadata routing is off, so a qid passed"):
        make_ndcg_scorer()(model, X[FEATURES], y)
    with (
        sklearn.config_context(enable_metadata_routing=True),
        pytest.raises(ValueError, match="Metadata routing is on: pass qid="),
    ):
        make_ndcg_scorer()(model, X[FEATURES], y)


def test_numpy_X_without_routed_qid(data):
    X, y, _, model = data
    with pytest.raises(ValueError, match="X is a ndarray, which has no named columns"):
        make_ndcg_scorer()(model, X[FEATURES].to_numpy(), y)


def test_numpy_X_with_qid_works(data):
    X, y, qid, model = data
    by_column = make_ndcg_scorer()(model, X, y)
    numpy_model = Ridge().fit(X[FEATURES].to_numpy(), y)
    X_np = X[FEATURES].to_numpy()
    assert make_ndcg_scorer()(numpy_model, X_np, y, qid=qid) == pytest.approx(by_column)


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_qid_column_with_missing_values(data, missing):
    X, y, _, model = data
    X = X.astype({"qid": object})
    X.loc[[2, 5], "qid"] = missing
    with pytest.raises(ValueError, match=r"column 'qid' of X has 2 missing value\(s\)"):
        make_ndcg_scorer()(model, X, y)


def test_routed_qid_with_missing_values(data):
    X, y, qid, model = data
    qid = qid.astype(float)
    qid[0] = np.nan
    with pytest.raises(
        ValueError, match=r"qid has 1 missing value\(s\) \(first at row 0\)"
    ):
        make_ndcg_scorer()(model, X, y, qid=qid)


def test_qid_length_differs_from_X(data):
    X, y, qid, model = data
    n = len(y)
    with pytest.raises(ValueError, match=f"qid has {n - 1} entries but X has {n} rows"):
        make_ndcg_scorer()(model, X, y, qid=qid[:-1])


def test_y_length_differs_from_X(data):
    X, y, _, model = data
    n = len(y)
    with pytest.raises(ValueError, match=f"y_true has {n - 1} entries but X has {n}"):
        make_ndcg_scorer()(model, X, y[:-1])


class WrongShape:
    def __init__(self, shape):
        self.shape = shape

    def predict(self, X):
        return np.zeros(self.shape(len(X)))


@pytest.mark.parametrize(
    ("shape", "shown"),
    [(lambda n: (n, 2), r"\(N, 2\)"), (lambda n: (n - 1,), r"\(M,\)")],
    ids=["two-columns", "too-short"],
)
def test_predict_with_wrong_shape(data, shape, shown):
    X, y, _, _ = data
    n = len(y)
    shown = shown.replace("N", str(n)).replace("M", str(n - 1))
    with pytest.raises(
        ValueError, match=rf"WrongShape.predict returned an array of shape {shown}"
    ):
        make_ndcg_scorer()(WrongShape(shape), X, y)


def test_predict_column_vector_is_accepted(data):
    X, y, _, model = data

    class Column:
        def predict(self, X):
            return model.predict(X)[:, None]

    assert make_ndcg_scorer()(Column(), X, y) == pytest.approx(
        make_ndcg_scorer()(model, X, y)
    )


@pytest.mark.parametrize(
    ("metrics", "error", "match"),
    [
        ("ndgc@10", ValueError, r"unknown metric 'ndgc@10'; valid forms are"),
        (["ndcg@5", "bogus"], ValueError, r"unknown metric 'bogus'"),
        ("ndcg@0", ValueError, r"cut-off 0; it must be >= 1"),
        (["ndcg@10", "NDCG@10"], ValueError, "names the same metric more than once"),
        ([], ValueError, r"metrics must name at least one metric, got \[\]"),
        (10, TypeError, r"metrics must be a metric name .* got 10 \(int\)"),
    ],
)
def test_bad_metric_names(metrics, error, match):
    with pytest.raises(error, match=match):
        make_ranking_scorer(metrics)


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"tie": "stable"}, TypeError, r"unknown metric option 'tie'; valid options"),
        ({"k": 5}, TypeError, r"put the cut-off in the metric name"),
        ({"sample_weight": [1.0]}, TypeError, "sample_weight is not a scorer option"),
        ({"ties": "random"}, ValueError, r"ties='random' is not valid"),
        ({"gain": "square"}, ValueError, r"gain='square' is not valid"),
        (
            {"convention": "nope"},
            ValueError,
            r"convention='nope' is not a known preset",
        ),
        (
            {"convention": "lightgbm", "ties": "average"},
            ValueError,
            r"ties='average' conflicts with convention='lightgbm'",
        ),
        ({"qid_col": 1.5}, TypeError, r"qid_col must be None or a column name"),
    ],
)
def test_bad_options_fail_when_the_scorer_is_made(options, error, match):
    with pytest.raises(error, match=match):
        make_ranking_scorer("ndcg@10", **options)


@pytest.mark.parametrize(
    ("k", "error", "match"),
    [(0, ValueError, "k must be >= 1, got 0"), (2.5, TypeError, "k must be an int")],
)
def test_bad_k(k, error, match):
    with pytest.raises(error, match=match):
        make_ndcg_scorer(k)


def _search(scoring, **kwargs):
    return GridSearchCV(
        QueryRanker(Ridge()),
        {"estimator__alpha": [1.0, 10.0]},
        scoring=scoring,
        cv=CV,
        **kwargs,
    )


@pytest.mark.parametrize(
    "scoring", [make_ndcg_scorer(), make_ranking_scorer(["ndcg@10", "mrr"])]
)
def test_search_with_error_score_raise_stops_on_scorer_error(data, scoring):
    # Routing off and qid passed to fit: QueryRanker gets it, the scorer cannot.
    X, y, qid, _ = data
    refit = "ndcg@10" if isinstance(scoring(data[3], X, y), dict) else True
    search = _search(scoring, refit=refit, error_score="raise")
    with pytest.raises(
        ValueError, match=r"query ids not found.*Metadata routing is off"
    ):
        search.fit(X[FEATURES], y, groups=qid, qid=qid)
    with pytest.raises(ValueError, match="query ids not found"):
        cross_validate(
            QueryRanker(Ridge()),
            X[FEATURES],
            y,
            groups=qid,
            cv=CV,
            scoring=scoring,
            params={"qid": qid},
            error_score="raise",
        )


def test_search_default_error_score_gives_nan_and_a_warning(data):
    # scikit-learn 1.9: a scorer error is not a fit error, so with the default
    # error_score=np.nan the search finishes with nan scores; the warning
    # carries the scorer's message (the reason to document error_score="raise").
    X, y, qid, _ = data
    search = _search(make_ndcg_scorer())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X[FEATURES], y, groups=qid, qid=qid)
    messages = [str(w.message) for w in caught]
    assert any("Scoring failed" in m and "query ids not found" in m for m in messages)
    assert any("keep the query ids in the X column" in m for m in messages)
    assert np.isnan(search.cv_results_["mean_test_score"]).all()


@pytest.mark.parametrize(
    ("popularity", "error", "match"),
    [
        ("abc", TypeError, r"popularity must be a dict mapping item id to count"),
        ({"a": -1.0}, ValueError, r"popularity counts must be finite and >= 0"),
    ],
)
def test_bad_popularity_is_refused_when_the_scorer_is_made(popularity, error, match):
    # It was read only when the scorer was called: inside a search, each fold
    # then scored nan with a warning.
    with pytest.raises(error, match=match):
        make_ranking_scorer("novelty@10", item_col="item", popularity=popularity)
