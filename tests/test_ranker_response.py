"""What QueryRanker ranks by: classifiers by probability, clusterers refused.

Also: a NaN relevance label is refused, naming ``y``.
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from frames import FEATURES, ROLES, ranking_frame
from sklearn.cluster import KMeans
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from skndcg.metrics import grouped_ndcg_score, make_ranking_scorer
from skndcg.ranker import QueryRanker


@pytest.fixture(scope="module")
def data():
    return ranking_frame(n_queries=24)


def _clf():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))


def test_multiclass_ranks_by_expected_label(data):
    X, y = data
    model = QueryRanker(_clf(), **ROLES).fit(X, y)
    assert model.response_method_ == "predict_proba"
    proba = model.estimator_.predict_proba(X[FEATURES])
    classes = model.estimator_.classes_
    assert list(classes) == [0, 1, 2, 3]
    want = proba[:, 0] * 0 + proba[:, 1] * 1 + proba[:, 2] * 2 + proba[:, 3] * 3
    np.testing.assert_allclose(model.predict(X), want)
    # Not the predicted class labels: those tie within almost every query.
    assert np.unique(model.predict(X)).size > 4 * np.unique(y).size


def test_binary_ranks_by_probability_of_the_positive_class(data):
    X, y = data
    for labels in ((y >= 2).astype(int), np.where(y >= 2, "yes", "no")):
        model = QueryRanker(_clf(), **ROLES).fit(X, labels)
        proba = model.estimator_.predict_proba(X[FEATURES])
        assert model.estimator_.classes_[1] in (1, "yes")
        np.testing.assert_allclose(model.predict(X), proba[:, 1])


def test_classifier_without_proba_ranks_by_decision_function(data):
    X, y = data
    binary = (y >= 2).astype(int)
    model = QueryRanker(LinearSVC(), **ROLES).fit(X, binary)
    assert model.response_method_ == "decision_function"
    want = model.estimator_.decision_function(X[FEATURES])
    np.testing.assert_allclose(model.predict(X), want)
    with pytest.raises(ValueError, match=r"LinearSVC has 4 classes and no"):
        QueryRanker(LinearSVC(), **ROLES).fit(X, y)


def test_many_non_numeric_classes_are_refused(data):
    X, y = data
    labels = np.array(["none", "low", "mid", "high"], dtype=object)[y]
    with pytest.raises(ValueError, match=r"4 non-numeric classes"):
        QueryRanker(_clf(), **ROLES).fit(X, labels)


def test_regressors_and_rankers_rank_by_predict(data):
    X, y = data
    model = QueryRanker(Ridge(), **ROLES).fit(X, y)
    assert model.response_method_ == "predict"
    np.testing.assert_allclose(model.predict(X), model.estimator_.predict(X[FEATURES]))


@pytest.mark.parametrize("routing", [False, True])
def test_clusterer_is_refused_in_a_search(data, routing):
    X, y = data
    with sklearn.config_context(enable_metadata_routing=routing):
        search = GridSearchCV(
            QueryRanker(KMeans(2, n_init=1), **ROLES),
            {"estimator__n_clusters": [2, 3]},
            cv=GroupKFold(3),
            error_score="raise",
        )
        params = {"groups": X["qid"]} if not routing else {}
        if routing:
            search.cv.set_split_request(groups="qid")
            params = {"qid": X["qid"].to_numpy()}
        with pytest.raises(TypeError, match=r"KMeans is a clusterer .* not scores"):
            search.fit(X.drop(columns="qid") if routing else X, y, **params)


@pytest.mark.parametrize("routing", [False, True])
def test_classifier_in_a_search_scores_its_expected_label(data, routing):
    X, y = data
    folds = list(GroupKFold(3).split(X, y, X["qid"]))
    with sklearn.config_context(enable_metadata_routing=routing):
        search = GridSearchCV(
            QueryRanker(_clf(), **ROLES),
            {"estimator__logisticregression__C": [0.1, 1.0]},
            scoring=make_ranking_scorer("ndcg@5"),
            cv=folds,
            error_score="raise",
        )
        if routing:
            search.fit(X.drop(columns="qid"), y, qid=X["qid"].to_numpy())
        else:
            search.fit(X, y)
    for i, c in enumerate([0.1, 1.0]):
        for k, (train, test) in enumerate(folds):
            clf = _clf().set_params(logisticregression__C=c)
            clf.fit(X.iloc[train][FEATURES], y[train])
            proba = clf.predict_proba(X.iloc[test][FEATURES])
            want = grouped_ndcg_score(
                y[test], proba @ clf.classes_, X["qid"].to_numpy()[test], k=5
            )
            got = search.cv_results_[f"split{k}_test_score"][i]
            assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        lambda y: np.where(np.arange(y.size) == 7, np.nan, y),
        lambda y: pd.Series(y, dtype="Int64").mask(np.arange(y.size) == 7),
        lambda y: np.array([None if i == 7 else v for i, v in enumerate(y)], object),
    ],
)
def test_missing_labels_are_refused_naming_y(data, bad):
    X, y = data
    with pytest.raises(ValueError, match=r"QueryRanker\.fit: y has 1 missing .*row 7"):
        QueryRanker(Ridge(), **ROLES).fit(X, bad(y))


@pytest.mark.parametrize("routing", [False, True])
def test_missing_labels_in_a_search_and_in_eval_sets(data, routing):
    lgb = pytest.importorskip("lightgbm")
    X, y = data
    y_nan = np.where(np.arange(y.size) == 3, np.nan, y)
    ranker = QueryRanker(lgb.LGBMRanker(n_estimators=3, verbose=-1), **ROLES)
    with sklearn.config_context(enable_metadata_routing=routing):
        search = GridSearchCV(
            ranker,
            {"estimator__num_leaves": [3]},
            cv=[(np.arange(200), np.arange(200, 240))],
            error_score="raise",
        )
        with pytest.raises(ValueError, match=r"y has 1 missing"):
            search.fit(X, y_nan)
    with pytest.raises(ValueError, match=r"the y of eval_set\[0\] has 1 missing"):
        ranker.fit(X, y, eval_set=[(X, y_nan)])
