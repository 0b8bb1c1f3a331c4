"""cross_val_ranking_report: the scorer's numbers, kept per query."""

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.compose import make_column_transformer
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, KFold, cross_validate
from sklearn.pipeline import make_pipeline
from test_ranker import LGBM, make_data

from skndcg.evaluation import compare, cross_val_ranking_report
from skndcg.metrics import make_ranking_scorer
from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.ranker import QueryRanker

METRICS = ["ndcg@5", "map@5", "mrr"]


@pytest.fixture(scope="module")
def data():
    X, y = make_data(n_queries=30, seed=3)
    return X, y, X["qid"].to_numpy()


def ridge():
    keep = make_column_transformer(("passthrough", ["a", "b", "c"]))
    return make_pipeline(keep, Ridge())


def _fold_means(report, metrics=METRICS):
    return report.groupby("fold")[metrics].mean()  # NaN (skipped) left out


def _assert_equal_to_scorer(report, result, metrics=METRICS):
    means = _fold_means(report, metrics)
    for m in metrics:
        assert means[m].to_numpy() == pytest.approx(result[f"test_{m}"], rel=1e-12)


def test_equals_scorer_routing_off(data):
    X, y, qid = data
    cv = GroupKFold(3)
    report = cross_val_ranking_report(ridge(), X, y, cv=cv, groups=qid, metrics=METRICS)
    scorer = make_ranking_scorer(METRICS)
    result = cross_validate(ridge(), X, y, cv=cv, groups=qid, scoring=scorer)
    _assert_equal_to_scorer(report, result)
    assert list(report.columns[:2]) == ["fold", "qid"]
    # Every query is tested once, by a model that did not see it.
    assert sorted(report["qid"]) == sorted(np.unique(qid))
    for fold, (train, _) in enumerate(cv.split(X, y, qid)):
        tested = report.loc[report["fold"] == fold, "qid"]
        assert not set(tested) & set(qid[train])


def test_query_ranker_routing_on_and_off(data):
    X, y, qid = data
    cv = GroupKFold(3)
    model = QueryRanker(lgb.LGBMRanker(**LGBM))
    scorer = make_ranking_scorer(METRICS)
    off = cross_val_ranking_report(model, X, y, cv=cv, groups=qid, metrics=METRICS)
    expected = cross_validate(model, X, y, cv=cv, groups=qid, scoring=scorer)
    _assert_equal_to_scorer(off, expected)
    X_feat = X.drop(columns="qid")
    with sklearn.config_context(enable_metadata_routing=True):
        on = cross_val_ranking_report(
            model, X_feat, y, cv=cv, metrics=METRICS, params={"groups": qid, "qid": qid}
        )
        result = cross_validate(
            model, X_feat, y, cv=cv, scoring=scorer, params={"groups": qid, "qid": qid}
        )
        with pytest.raises(ValueError, match="groups can only be passed"):
            cross_val_ranking_report(model, X, y, cv=cv, groups=qid)
    _assert_equal_to_scorer(on, result)
    pd.testing.assert_frame_equal(on, off)


def test_group_time_series_split(data):
    X, y, qid = data
    rng = np.random.default_rng(0)
    start = {q: rng.integers(0, 100) for q in np.unique(qid)}
    X = X.assign(ts=[start[q] + rng.integers(0, 3) for q in qid])
    cv = GroupTimeSeriesSplit(3, group_col="qid", time_col="ts")
    report = cross_val_ranking_report(ridge(), X, y, cv=cv, metrics=METRICS)
    result = cross_validate(ridge(), X, y, cv=cv, scoring=make_ranking_scorer(METRICS))
    _assert_equal_to_scorer(report, result)
    assert report["fold"].nunique() == 3
    # Routing on: groups, time and query ids all routed, no column needed.
    X_feat = X.drop(columns=["qid", "ts"])
    params = {"groups": qid, "time": X["ts"].to_numpy(), "qid": qid}
    cv_routed = GroupTimeSeriesSplit(3)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = cross_val_ranking_report(
            Ridge(), X_feat, y, cv=cv_routed, metrics=METRICS, params=params
        )
        result = cross_validate(
            Ridge(),
            X_feat,
            y,
            cv=cv_routed,
            scoring=make_ranking_scorer(METRICS),
            params=params,
        )
    _assert_equal_to_scorer(routed, result)
    pd.testing.assert_frame_equal(routed[["fold", "qid"]], report[["fold", "qid"]])


class CountingRegressor(RegressorMixin, BaseEstimator):
    predict_calls = 0

    def fit(self, X, y):
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        type(self).predict_calls += 1
        return np.asarray(X)[:, 0]


def test_predicts_once_per_fold_and_compares(data):
    X, y, qid = data
    X_arr = X[["a", "b", "c"]].to_numpy()
    CountingRegressor.predict_calls = 0
    report = cross_val_ranking_report(
        CountingRegressor(),
        pd.DataFrame(X_arr).assign(qid=qid),
        y,
        cv=KFold(4),
        metrics=METRICS,
    )
    assert CountingRegressor.predict_calls == 4
    # Row-level folds may split a query: the report keeps one row per
    # (fold, query), so the query key for compare combines both.
    other = cross_val_ranking_report(ridge(), X, y, cv=KFold(4), metrics=METRICS)
    assert len(report) == len(other)
    both = pd.concat(
        [report.assign(model="first"), other.assign(model="ridge")], ignore_index=True
    )
    both["qid"] = both["fold"].astype(str) + ":" + both["qid"].astype(str)
    cmp = compare(both, baseline="first", metrics="ndcg@5", n_resamples=200)
    assert cmp.models == ["first", "ridge"]


def test_errors(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="qid"):
        cross_val_ranking_report(
            ridge(), X.drop(columns="qid"), y, cv=GroupKFold(3), groups=qid
        )
    with pytest.raises(ValueError, match="unknown metric 'ndcg@x'"):
        cross_val_ranking_report(
            ridge(), X, y, cv=GroupKFold(3), groups=qid, metrics="ndcg@x"
        )
