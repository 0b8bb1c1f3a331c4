"""QueryRanker notices a fold leak: scored on queries it was fitted on."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, cross_validate

from skndcg.metrics import make_ranking_scorer
from skndcg.ranker import QueryLeakWarning, QueryRanker


def _data(n_queries=30, per_query=8, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, per_query)
    f = rng.normal(size=qid.size)
    y = (f + rng.normal(scale=0.5, size=qid.size) > 0).astype(int)
    return pd.DataFrame({"qid": qid, "f": f}), y, qid


def _leaks(record):
    return [w for w in record if issubclass(w.category, QueryLeakWarning)]


def test_warning_class_is_a_user_warning():
    assert issubclass(QueryLeakWarning, UserWarning)


@pytest.mark.parametrize("scoring", [None, "scorer"])
def test_grid_search_with_kfold_warns(scoring):
    X, y, _ = _data()
    scorer = make_ranking_scorer("ndcg@5") if scoring else None
    search = GridSearchCV(
        QueryRanker(Ridge()),
        {"estimator__alpha": [0.1, 1.0]},
        cv=KFold(3, shuffle=True, random_state=0),
        scoring=scorer,
        error_score="raise",
    )
    with pytest.warns(QueryLeakWarning, match=r"\d+ of the \d+ queries") as record:
        search.fit(X, y)
    message = str(_leaks(record)[0].message)
    for fix in ("GroupKFold", "GroupTimeSeriesSplit", "groups=", "query_overlap"):
        assert fix in message


def test_warning_can_be_made_an_error():
    X, y, _ = _data()
    search = GridSearchCV(
        QueryRanker(Ridge()),
        {"estimator__alpha": [1.0]},
        cv=KFold(3, shuffle=True, random_state=0),
        scoring=make_ranking_scorer("ndcg@5"),
        error_score="raise",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryLeakWarning)
        with pytest.raises(QueryLeakWarning):
            search.fit(X, y)


def test_cross_validate_kfold_warns_and_group_kfold_does_not():
    X, y, qid = _data()
    model = QueryRanker(Ridge())
    scorer = make_ranking_scorer(["ndcg@5", "map"])
    with pytest.warns(QueryLeakWarning):
        cross_validate(
            model, X, y, cv=KFold(4, shuffle=True, random_state=1), scoring=scorer
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryLeakWarning)
        res = cross_validate(
            model,
            X,
            y,
            groups=qid,
            cv=GroupKFold(4),
            scoring=scorer,
            return_train_score=True,
        )
    assert np.all(np.isfinite(res["test_ndcg@5"]))


def test_routing_on_kfold_warns_group_kfold_does_not():
    X, y, qid = _data()
    X_feat = X[["f"]]
    scorer = make_ranking_scorer("ndcg@5")
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            QueryRanker(Ridge()),
            {"estimator__alpha": [1.0]},
            cv=KFold(3, shuffle=True, random_state=0),
            scoring=scorer,
            error_score="raise",
        )
        with pytest.warns(QueryLeakWarning):
            search.fit(X_feat, y, qid=qid)
        with warnings.catch_warnings():
            warnings.simplefilter("error", QueryLeakWarning)
            res = cross_validate(
                QueryRanker(Ridge()),
                X_feat,
                y,
                cv=GroupKFold(3),
                scoring=scorer,
                params={"qid": qid, "groups": qid},
            )
    assert res["test_score"].shape == (3,)


def test_opt_out_for_protocols_that_reuse_ids():
    X, y, _ = _data()
    search = GridSearchCV(
        QueryRanker(Ridge(), query_overlap="ignore"),
        {"estimator__alpha": [1.0]},
        cv=KFold(3, shuffle=True, random_state=0),
        scoring=make_ranking_scorer("ndcg@5"),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryLeakWarning)
        search.fit(X, y)


def test_counts_only_the_overlapping_queries_and_spares_the_training_rows():
    X, y, qid = _data(n_queries=10)
    # Fitted on ids 3, 10, ..., 38: 6 queries.
    model = QueryRanker(Ridge()).fit(X[qid < 40], y[qid < 40])
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryLeakWarning)
        model.score(X[qid < 40], y[qid < 40])  # the fit's own rows
        model.predict(X[qid >= 40])  # unseen queries
        model.predict(X[["f"]])  # no query ids: nothing to compare
    with pytest.warns(QueryLeakWarning, match=r"3 of the 6 queries") as record:
        model.predict(X[(qid >= 24) & (qid < 60)])
    assert "6 queries)" in str(record[0].message)
    with pytest.warns(QueryLeakWarning, match=r"1 of the 1 queries"):
        model.score(X.iloc[:3], y[:3])
    with pytest.warns(QueryLeakWarning, match=r"1 of the 1 queries"):
        model.predict(X[["f"]].iloc[:3], qid=qid[:3])


def test_ids_compared_across_dtypes():
    X, y, qid = _data(n_queries=4)
    model = QueryRanker(Ridge()).fit(X, y)
    with pytest.warns(QueryLeakWarning, match=r"1 of the 1"):
        model.predict(X[["f"]].iloc[:2], qid=qid[:2].astype(float))
    strings = X.assign(qid=X["qid"].astype(str))
    model = QueryRanker(Ridge()).fit(strings, y)
    with pytest.warns(QueryLeakWarning, match=r"1 of the 1"):
        model.predict(strings.iloc[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryLeakWarning)
        model.predict(strings.assign(qid="other").iloc[:2])


def test_pickled_model_still_remembers():
    X, y, _ = _data(n_queries=5)
    model = pickle.loads(pickle.dumps(QueryRanker(Ridge()).fit(X, y)))
    with pytest.warns(QueryLeakWarning):
        model.predict(X.iloc[:2])


def test_bad_option_is_refused():
    X, y, _ = _data(n_queries=3)
    with pytest.raises(ValueError, match="query_overlap"):
        QueryRanker(Ridge(), query_overlap="raise").fit(X, y)
