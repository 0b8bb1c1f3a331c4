"""make_ranking_scorer, make_ndcg_scorer: direct calls, options, routing, copies."""

import copy
import pickle

import lightgbm as lgb
import numpy as np
import pandas as pd
import polars as pl
import pytest
import sklearn
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.utils.metadata_routing import get_routing_for_object
from test_scorer_common import CV, FEATURES, LGBM, MODES, Mode, make_data

from skndcg.metrics import (
    grouped_dcg_score,
    grouped_hit_rate_score,
    grouped_map_score,
    grouped_mrr_score,
    grouped_ndcg_score,
    grouped_precision_score,
    grouped_ranking_scores,
    grouped_recall_score,
    make_ndcg_scorer,
    make_ranking_scorer,
)
from skndcg.ranker import QueryRanker


@pytest.fixture(scope="module")
def data():
    return make_data(seed=5)


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _ = data
    return Ridge().fit(X[FEATURES], y)


def test_hand_computed_value():
    # Query 1: ideal order, NDCG@2 = 1. Query 2: the relevant row is ranked
    # second, NDCG@2 = (1 / log2(3)) / 1.
    X = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "f": [3.0, 1.0, 2.0, 2.0, 1.0]})
    y = np.array([2, 0, 1, 0, 1])

    class Identity:
        def predict(self, X):
            return X["f"].to_numpy()

    expected = (1 + 1 / np.log2(3)) / 2
    assert make_ndcg_scorer(2)(Identity(), X, y) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("name", "function", "k"),
    [
        ("ndcg@5", grouped_ndcg_score, 5),
        ("ndcg", grouped_ndcg_score, None),
        ("dcg@3", grouped_dcg_score, 3),
        ("map@10", grouped_map_score, 10),
        ("mrr", grouped_mrr_score, None),
        ("p@5", grouped_precision_score, 5),
        ("r@4", grouped_recall_score, 4),
        ("hit@2", grouped_hit_rate_score, 2),
    ],
)
def test_single_metric_matches_function(data, fitted, name, function, k):
    X, y, qid = data
    score = make_ranking_scorer(name)(fitted, X, y)
    assert isinstance(score, float)
    assert score == pytest.approx(function(y, fitted.predict(X[FEATURES]), qid, k=k))


def test_list_of_metrics_returns_dict_in_order(data, fitted):
    X, y, qid = data
    names = ["NDCG@10", "map@5", "mrr"]
    scores = make_ranking_scorer(names)(fitted, X, y)
    assert list(scores) == names
    expected = grouped_ranking_scores(y, fitted.predict(X[FEATURES]), qid, names)
    assert scores == pytest.approx(expected)
    one = make_ranking_scorer(["ndcg@10"])(fitted, X, y)
    assert isinstance(one, dict) and list(one) == ["ndcg@10"]


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("ndcg@5", {"gain": "exponential"}),
        ("ndcg@5", {"ties": "stable", "empty": "zero"}),
        ("ndcg@5", {"convention": "lightgbm"}),
        ("ndcg@3", {"discount": np.array([1.0, 0.5, 0.25])}),
        ("map@5", {"rel_threshold": 2}),
        ("p@5", {"p_denominator": "min_k_items"}),
    ],
)
def test_options_pass_through(data, fitted, metric, options):
    X, y, qid = data
    y_score = np.round(fitted.predict(X[FEATURES]), 1)  # ties matter here

    class Rounded:
        def predict(self, X):
            return np.round(fitted.predict(X), 1)

    score = make_ranking_scorer(metric, **options)(Rounded(), X, y)
    expected = grouped_ranking_scores(y, y_score, qid, [metric], **options)[metric]
    assert score == pytest.approx(expected)
    default = grouped_ranking_scores(y, y_score, qid, [metric])[metric]
    assert score != pytest.approx(default)


def test_ndcg_scorer_options_and_qid_col(data, fitted):
    X, y, qid = data
    X = X.rename(columns={"qid": "user"})
    scorer = make_ndcg_scorer(k=3, qid_col="user", gain="exponential")
    expected = grouped_ndcg_score(
        y, fitted.predict(X[FEATURES]), qid, k=3, gain="exponential"
    )
    assert scorer(fitted, X, y) == pytest.approx(expected)


@pytest.mark.parametrize("mode_name", MODES)
def test_score_already_fitted_lgbm_ranker(data, mode_name):
    # A bare LGBMRanker fitted by hand on the feature columns, rows sorted by
    # query: the scorer drops the qid column before predicting.
    X, y, qid = data
    order = np.argsort(qid, kind="stable")
    sizes = np.unique(qid[order], return_counts=True)[1][
        np.argsort(np.unique(qid[order], return_index=True)[1])
    ]
    model = lgb.LGBMRanker(**LGBM).fit(X[FEATURES].iloc[order], y[order], group=sizes)
    expected = grouped_ndcg_score(y, model.predict(X[FEATURES]), qid, k=10)
    mode = Mode(mode_name)
    with mode.context():
        if mode.routed:
            score = make_ndcg_scorer()(model, mode.X(X), y, qid=qid)
        else:
            score = make_ndcg_scorer()(model, X, y)
    assert score == pytest.approx(expected)


def test_direct_qid_without_routing_wins_over_column(data, fitted):
    X, y, qid = data
    other = np.where(qid == qid[0], -1, qid)  # merge-free relabelling
    other[: len(other) // 2] = 0  # a different grouping
    scorer = make_ndcg_scorer(5)
    expected = grouped_ndcg_score(y, fitted.predict(X[FEATURES]), other, k=5)
    assert scorer(fitted, X, y, qid=other) == pytest.approx(expected)
    assert scorer(fitted, X, y) != pytest.approx(expected)


def test_polars_dataframe(data, fitted):
    X, y, qid = data
    X_pl = pl.from_pandas(X)
    model = QueryRanker(Ridge()).fit(X, y)
    expected = grouped_ndcg_score(y, fitted.predict(X[FEATURES]), qid, k=10)
    assert make_ndcg_scorer()(model, X_pl, y) == pytest.approx(expected)
    assert make_ndcg_scorer()(model, X_pl, pl.Series(y)) == pytest.approx(expected)


def test_repr():
    assert repr(make_ndcg_scorer()) == "make_ndcg_scorer(k=10)"
    assert (
        repr(make_ndcg_scorer(k=None, qid_col="user", ties="stable"))
        == "make_ndcg_scorer(k=None, qid_col='user', ties='stable')"
    )
    assert (
        repr(make_ranking_scorer(["ndcg@10", "mrr"], empty="zero"))
        == "make_ranking_scorer(['ndcg@10', 'mrr'], empty='zero')"
    )
    assert repr(make_ranking_scorer("p@5")) == "make_ranking_scorer('p@5')"


def _requests(scorer):
    return get_routing_for_object(scorer).score.requests


def test_default_requests_and_set_score_request():
    scorer = make_ndcg_scorer()
    assert _requests(scorer) == {"qid": True, "sample_weight": None}
    with sklearn.config_context(enable_metadata_routing=True):
        assert scorer.set_score_request(qid="groups") is scorer
        scorer.set_score_request(sample_weight=True)
    assert _requests(scorer) == {"qid": "groups", "sample_weight": True}
    assert scorer._accept_sample_weight() is False


def test_set_score_request_needs_routing():
    with pytest.raises(RuntimeError, match="enable_metadata_routing=True"):
        make_ndcg_scorer().set_score_request(qid=False)


def test_set_score_request_rejects_bad_input():
    scorer = make_ndcg_scorer()
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(TypeError, match="unexpected keyword argument 'groups'"):
            scorer.set_score_request(groups=True)
        with pytest.raises(ValueError, match="alias you're setting for `qid`"):
            scorer.set_score_request(qid="not an identifier")
    assert _requests(scorer)["qid"] is True


def test_qid_not_requested_falls_back_to_column(data):
    X, y, qid = data
    scorer = make_ndcg_scorer(5)
    search = GridSearchCV(
        QueryRanker(Ridge()),
        {"estimator__alpha": [1.0]},
        scoring=scorer,
        cv=CV,
        error_score="raise",
    )
    wrong = np.zeros_like(qid)  # one big query: a different number if used
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(qid=False)
        search.fit(X, y, groups=qid)
        column = search.cv_results_["mean_test_score"][0]
        # QueryRanker(Ridge) takes qid (and ignores it: pointwise); the scorer
        # must not.
        search.fit(X, y, groups=qid, qid=wrong)
        ignored = search.cv_results_["mean_test_score"][0]
        scorer.set_score_request(qid=True)
        search.fit(X, y, groups=qid, qid=wrong)
        used = search.cv_results_["mean_test_score"][0]
    assert ignored == pytest.approx(column)
    assert used != pytest.approx(column)


@pytest.mark.parametrize(
    "copier",
    [
        copy.deepcopy,
        lambda s: clone(s, safe=False),
        lambda s: pickle.loads(pickle.dumps(s)),
    ],
    ids=["deepcopy", "clone", "pickle"],
)
def test_copies_keep_metrics_options_and_requests(data, fitted, copier):
    X, y, _ = data
    scorer = make_ranking_scorer(["ndcg@5", "mrr"], qid_col="qid", ties="stable")
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(qid="groups")
    copied = copier(scorer)
    assert copied is not scorer
    assert repr(copied) == repr(scorer)
    assert _requests(copied) == _requests(scorer)
    assert copied(fitted, X, y) == scorer(fitted, X, y)


@pytest.mark.parametrize("mode_name", MODES)
def test_pickle_round_trip_of_fitted_search(data, mode_name):
    X, y, qid = data
    mode = Mode(mode_name)
    scorer = make_ranking_scorer(["ndcg@10", "map@10"])
    search = GridSearchCV(
        QueryRanker(lgb.LGBMRanker(**LGBM)),
        {"estimator__num_leaves": [2, 4]},
        scoring=scorer,
        refit="ndcg@10",
        cv=CV,
        error_score="raise",
    )
    with mode.context():
        search.fit(mode.X(X), y, **mode.fit_kwargs(qid))
        kwargs = {"qid": qid} if mode.routed else {}
        before = scorer(search.best_estimator_, mode.X(X), y, **kwargs)
        loaded_search, loaded_scorer = pickle.loads(pickle.dumps((search, scorer)))
        after = loaded_scorer(loaded_search.best_estimator_, mode.X(X), y, **kwargs)
    assert after == before
    expected = grouped_ndcg_score(y, search.predict(X), qid, k=10)
    assert after["ndcg@10"] == pytest.approx(expected)
    assert np.allclose(
        loaded_search.cv_results_["mean_test_ndcg@10"],
        search.cv_results_["mean_test_ndcg@10"],
    )


def test_sample_weight_direct_and_routed(data, fitted):
    X, y, qid = data
    weights = {q: 1.0 + (i % 3) for i, q in enumerate(np.unique(qid))}
    w = np.array([weights[q] for q in qid])
    scorer = make_ndcg_scorer(5)
    expected = grouped_ndcg_score(
        y, fitted.predict(X[FEATURES]), qid, k=5, sample_weight=w
    )
    assert scorer(fitted, X, y, sample_weight=w) == pytest.approx(expected)
    assert scorer(fitted, X, y) != pytest.approx(expected)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(sample_weight=True)
        # Weights for the scorer only (both levels must decline them).
        inner = Ridge().set_fit_request(sample_weight=False)
        model = QueryRanker(inner).set_fit_request(sample_weight=False)
        search = GridSearchCV(
            model,
            {"estimator__alpha": [1.0]},
            scoring=scorer,
            cv=CV,
            error_score="raise",
        ).fit(X, y, groups=qid, sample_weight=w)
    folds = []
    for train, test in CV.split(X, y, groups=qid):
        pred = QueryRanker(Ridge()).fit(X.iloc[train], y[train]).predict(X.iloc[test])
        folds.append(
            grouped_ndcg_score(y[test], pred, qid[test], k=5, sample_weight=w[test])
        )
    assert search.cv_results_["mean_test_score"][0] == pytest.approx(np.mean(folds))


def test_fit_sample_weight_not_forwarded_without_routing(data):
    # Per-row training weights, not constant within queries: used as query
    # weights they would raise. Both a single scorer and a dict of scorers.
    X, y, qid = data
    w = np.linspace(0.5, 2.0, len(y))
    for scoring in (
        make_ndcg_scorer(5),
        {"ndcg@5": make_ndcg_scorer(5), "mrr": make_ranking_scorer("mrr")},
    ):
        refit = "ndcg@5" if isinstance(scoring, dict) else True
        search = GridSearchCV(
            QueryRanker(Ridge()),
            {"estimator__alpha": [1.0]},
            scoring=scoring,
            refit=refit,
            cv=CV,
            error_score="raise",
        )
        # scikit-learn says so: the test scores are unweighted, by design.
        with pytest.warns(UserWarning, match="does not support sample_weight"):
            search.fit(X, y, groups=qid, sample_weight=w)
        key = "mean_test_ndcg@5" if isinstance(scoring, dict) else "mean_test_score"
        folds = []
        for train, test in CV.split(X, y, groups=qid):
            model = QueryRanker(Ridge()).fit(
                X.iloc[train], y[train], sample_weight=w[train]
            )
            pred = model.predict(X.iloc[test])
            folds.append(grouped_ndcg_score(y[test], pred, qid[test], k=5))
        assert search.cv_results_[key][0] == pytest.approx(np.mean(folds))
