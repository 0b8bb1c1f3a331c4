"""Ranking scorers inside scikit-learn model selection, in both query-id channels.

Every scenario runs three ways (see ``Mode``): routing off with the ``qid``
column, routing on with the column, routing on with ``qid`` routed and X
without the column. Each score must equal ``grouped_ndcg_score`` (or its
siblings) computed by hand on the same fold's predictions.
"""

import lightgbm as lgb
import numpy as np
import pytest
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    HalvingGridSearchCV,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
)
from test_scorer_common import (
    CV,
    LGBM,
    MODES,
    Mode,
    make_data,
    manual_fold_scores,
    split_scores,
)

from skndcg.metrics import (
    grouped_map_score,
    grouped_mrr_score,
    grouped_ndcg_score,
    grouped_precision_score,
    make_ndcg_scorer,
    make_ranking_scorer,
)
from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.ranker import QueryRanker

ESTIMATORS = {
    "ridge": (QueryRanker(Ridge()), "estimator__alpha", [0.1, 100.0]),
    "lgbm": (QueryRanker(lgb.LGBMRanker(**LGBM)), "estimator__num_leaves", [2, 4]),
}


def ndcg_at(k):
    return lambda yt, ys, q: grouped_ndcg_score(yt, ys, q, k=k)


@pytest.fixture(scope="module")
def data():
    return make_data()


@pytest.fixture(params=MODES)
def mode(request):
    return Mode(request.param)


@pytest.mark.parametrize("kind", ["ridge", "lgbm"])
def test_grid_search_matches_hand_computed_folds(data, mode, kind):
    X, y, qid = data
    estimator, key, values = ESTIMATORS[kind]
    search = GridSearchCV(
        estimator,
        {key: values},
        scoring=make_ndcg_scorer(k=5),
        cv=CV,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
    for i, value in enumerate(values):
        expected = manual_fold_scores(estimator, X, y, qid, ndcg_at(5), **{key: value})
        assert np.allclose(split_scores(search.cv_results_, i), expected)
    assert search.best_score_ == pytest.approx(
        search.cv_results_["mean_test_score"].max()
    )
    # The two candidates really differ, so the comparison above has teeth.
    assert not np.allclose(*search.cv_results_["mean_test_score"])


def test_grid_search_dict_returning_scorer_with_refit(data, mode):
    X, y, qid = data
    estimator, key, values = ESTIMATORS["ridge"]
    scorer = make_ranking_scorer(["ndcg@10", "map@10", "mrr"])
    search = GridSearchCV(
        estimator,
        {key: values},
        scoring=scorer,
        refit="ndcg@10",
        cv=CV,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
    metrics = {
        "ndcg@10": ndcg_at(10),
        "map@10": lambda yt, ys, q: grouped_map_score(yt, ys, q, k=10),
        "mrr": lambda yt, ys, q: grouped_mrr_score(yt, ys, q, k=None),
    }
    for name, metric in metrics.items():
        for i, value in enumerate(values):
            expected = manual_fold_scores(estimator, X, y, qid, metric, **{key: value})
            assert np.allclose(split_scores(search.cv_results_, i, name), expected)
    means = search.cv_results_["mean_test_ndcg@10"]
    assert search.best_index_ == int(np.argmax(means))
    assert search.best_score_ == pytest.approx(means.max())


def test_grid_search_dict_of_scorers(data, mode):
    X, y, qid = data
    estimator, key, values = ESTIMATORS["ridge"]
    scoring = {"ndcg@5": make_ndcg_scorer(5), "p@3": make_ranking_scorer("p@3")}
    search = GridSearchCV(
        estimator,
        {key: values},
        scoring=scoring,
        refit="ndcg@5",
        cv=CV,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
    p3 = lambda yt, ys, q: grouped_precision_score(yt, ys, q, k=3)  # noqa: E731
    for i, value in enumerate(values):
        params = {key: value}
        expected = manual_fold_scores(estimator, X, y, qid, ndcg_at(5), **params)
        assert np.allclose(split_scores(search.cv_results_, i, "ndcg@5"), expected)
        expected = manual_fold_scores(estimator, X, y, qid, p3, **params)
        assert np.allclose(split_scores(search.cv_results_, i, "p@3"), expected)


def test_randomized_search_two_jobs(data, mode):
    X, y, qid = data
    estimator, key, _ = ESTIMATORS["ridge"]
    search = RandomizedSearchCV(
        estimator,
        {key: [0.01, 1.0, 100.0, 1e4]},
        n_iter=2,
        random_state=0,
        scoring=make_ndcg_scorer(10),
        cv=CV,
        n_jobs=2,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
    for i, params in enumerate(search.cv_results_["params"]):
        expected = manual_fold_scores(estimator, X, y, qid, **params)
        assert np.allclose(split_scores(search.cv_results_, i), expected)


def test_halving_search_on_n_estimators(data, mode):
    X, y, qid = data
    estimator = ESTIMATORS["lgbm"][0]
    search = HalvingGridSearchCV(
        estimator,
        {"estimator__num_leaves": [2, 4]},
        resource="estimator__n_estimators",
        min_resources=2,
        max_resources=4,
        factor=2,
        scoring=make_ndcg_scorer(5),
        cv=CV,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
    results = search.cv_results_
    assert list(results["n_resources"]) == [2, 2, 4]
    for i, params in enumerate(results["params"]):
        expected = manual_fold_scores(estimator, X, y, qid, ndcg_at(5), **params)
        assert np.allclose(split_scores(results, i), expected)


def test_halving_search_on_n_samples_full_round(data, mode):
    # Subsampled rounds cut queries (documented); the last round uses every
    # row, so it must equal the hand computation (NDCG with averaged ties
    # does not depend on the row order the resampling produces).
    X, y, qid = data
    n = len(y) - len(y) % 2
    X, y, qid = X.iloc[:n], y[:n], qid[:n]
    estimator, key, values = ESTIMATORS["ridge"]
    search = HalvingGridSearchCV(
        estimator,
        {key: values},
        min_resources=n // 2,
        factor=2,
        scoring=make_ndcg_scorer(5),
        cv=CV,
        random_state=0,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
    results = search.cv_results_
    last = int(np.flatnonzero(results["n_resources"] == n)[0])
    expected = manual_fold_scores(
        estimator, X, y, qid, ndcg_at(5), **results["params"][last]
    )
    assert np.allclose(split_scores(results, last), expected)


@pytest.mark.parametrize("kind", ["ridge", "lgbm"])
def test_cross_val_score(data, mode, kind):
    X, y, qid = data
    estimator = ESTIMATORS[kind][0]
    with mode.context():
        scores = cross_val_score(
            estimator,
            mode.X(X),
            y,
            cv=CV,
            scoring=make_ndcg_scorer(10),
            error_score="raise",
            **mode.cv_kwargs(qid),
        )
    assert np.allclose(scores, manual_fold_scores(estimator, X, y, qid))


class CountingRidge(Ridge):
    """Ridge that counts its predict calls (the tests run in one process)."""

    calls = 0

    def predict(self, X):
        CountingRidge.calls += 1
        return super().predict(X)


@pytest.mark.parametrize("layout", ["dict_of_scorers", "dict_returning"])
def test_cross_validate_multimetric(data, mode, layout):
    X, y, qid = data
    estimator = QueryRanker(CountingRidge())
    if layout == "dict_of_scorers":
        scoring = {"ndcg@5": make_ndcg_scorer(5), "ndcg@10": make_ndcg_scorer(10)}
    else:
        scoring = make_ranking_scorer(["ndcg@5", "ndcg@10"])
    CountingRidge.calls = 0
    with mode.context():
        result = cross_validate(
            estimator,
            mode.X(X),
            y,
            cv=CV,
            scoring=scoring,
            error_score="raise",
            **mode.cv_kwargs(qid),
        )
    calls = CountingRidge.calls
    for k in (5, 10):
        expected = manual_fold_scores(estimator, X, y, qid, ndcg_at(k))
        assert np.allclose(result[f"test_ndcg@{k}"], expected)
    # One predict per fold for the dict-returning scorer, one per scorer otherwise.
    assert calls == (6 if layout == "dict_of_scorers" else 3)


def test_nested_cross_validation(data, mode):
    X, y, qid = data
    # Without a time column the splitters order queries by row position, so
    # keep each query's rows together.
    order = np.argsort(qid, kind="stable")
    X, y, qid = X.iloc[order].reset_index(drop=True), y[order], qid[order]
    inner = GridSearchCV(
        QueryRanker(Ridge()),
        {"estimator__alpha": [0.1, 100.0]},
        scoring=make_ndcg_scorer(5),
        cv=GroupTimeSeriesSplit(n_splits=2, group_col="qid"),
        error_score="raise",
    )
    outer = GroupTimeSeriesSplit(n_splits=2, group_col="qid")
    # Column channel: no groups passed anywhere, both splitters read the column.
    kwargs = {"params": mode.fit_kwargs(qid)} if mode.routed else {}
    with mode.context():
        scores = cross_val_score(
            inner,
            mode.X(X),
            y,
            cv=outer,
            scoring=make_ndcg_scorer(5),
            error_score="raise",
            **kwargs,
        )
    expected = manual_fold_scores(inner, X, y, qid, ndcg_at(5), cv=outer)
    assert np.allclose(scores, expected)
