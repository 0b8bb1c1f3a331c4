"""Each column is declared once: QueryRanker, the scorers and the splitter agree.

Every search runs through GridSearchCV, with metadata routing off (columns) and
on (routed qid and time), and must give the same folds and the same scores as
fitting and scoring each fold by hand.
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from frames import FEATURES, ROLES, ranking_frame, to_polars
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold

from skndcg.metrics import grouped_map_score, grouped_ndcg_score, make_ranking_scorer
from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.ranker import QueryRanker

lgb = pytest.importorskip("lightgbm")

LGBM = {"n_estimators": 8, "min_child_samples": 5, "verbose": -1, "n_jobs": 1}


@pytest.fixture(scope="module")
def data():
    return ranking_frame()


def _search(routing):
    cv = GroupTimeSeriesSplit(n_splits=3, time_col=None if routing else "ts")
    if routing:
        cv.set_split_request(groups="qid")
    return GridSearchCV(
        QueryRanker(lgb.LGBMRanker(**LGBM), **ROLES),
        {"estimator__num_leaves": [3, 7]},
        scoring=make_ranking_scorer(["ndcg@5", "map@5"]),
        refit="ndcg@5",
        cv=cv,
        error_score="raise",
    )


def _by_hand(X, y, folds, num_leaves):
    out = []
    for train, test in folds:
        model = QueryRanker(lgb.LGBMRanker(num_leaves=num_leaves, **LGBM), **ROLES)
        model.fit(X.iloc[train], y[train])
        s = model.predict(X.iloc[test])
        q = X["qid"].to_numpy()[test]
        out.append(
            (
                grouped_ndcg_score(y[test], s, q, k=5),
                grouped_map_score(y[test], s, q, k=5),
            )
        )
    return out


@pytest.mark.parametrize("routing", [False, True])
def test_search_names_each_column_once(data, routing):
    X, y = data
    if routing:
        with sklearn.config_context(enable_metadata_routing=True):
            search = _search(routing)
            # The routed qid is the model's query id, the scorer's and (by the
            # alias) the splitter's groups: one keyword, plus the time.
            search.fit(
                X.drop(columns=["qid"]), y, qid=X["qid"].to_numpy(), time=X["ts"]
            )
    else:
        search = _search(routing).fit(X, y)
    best = search.best_estimator_
    assert list(best.feature_names_in_) == FEATURES
    assert list(best.estimator_.feature_name_) == FEATURES
    folds = list(GroupTimeSeriesSplit(n_splits=3, time_col="ts").split(X))
    for i, leaves in enumerate(search.cv_results_["param_estimator__num_leaves"]):
        want = _by_hand(X, y, folds, leaves)
        for k, (ndcg, map_) in enumerate(want):
            res = search.cv_results_
            assert res[f"split{k}_test_ndcg@5"][i] == pytest.approx(ndcg, abs=1e-12)
            assert res[f"split{k}_test_map@5"][i] == pytest.approx(map_, abs=1e-12)


def test_search_leaves_the_callers_frame_alone(data):
    X, y = data
    before = X.copy()
    _search(False).fit(X, y)
    pd.testing.assert_frame_equal(X, before)


def test_predict_drops_the_declared_columns_wherever_present(data):
    X, y = data
    model = QueryRanker(lgb.LGBMRanker(**LGBM), **ROLES).fit(X, y)
    full = model.predict(X)
    np.testing.assert_array_equal(model.predict(X[FEATURES]), full)
    np.testing.assert_array_equal(model.predict(X.drop(columns=["ts"])), full)
    assert model.n_features_in_ == 2


def test_scorer_reads_the_query_column_from_the_ranker(data):
    X, y = data
    X = X.rename(columns={"qid": "query"})
    ranker = QueryRanker(Ridge(), qid_col="query", **ROLES)
    # The splitter is told the group column; the scorer is not.
    cv = GroupTimeSeriesSplit(n_splits=3, group_col="query", time_col="ts")
    search = GridSearchCV(
        ranker,
        {"estimator__alpha": [0.1, 10.0]},
        scoring=make_ranking_scorer("ndcg@5"),
        cv=cv,
        error_score="raise",
    ).fit(X, y)
    told = GridSearchCV(
        ranker,
        {"estimator__alpha": [0.1, 10.0]},
        scoring=make_ranking_scorer("ndcg@5", qid_col="query"),
        cv=cv,
        error_score="raise",
    ).fit(X, y)
    np.testing.assert_array_equal(
        search.cv_results_["mean_test_score"], told.cv_results_["mean_test_score"]
    )
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_scorer_falls_back_to_qid_for_other_estimators(data):
    X, y = data
    model = Ridge().fit(X[FEATURES], y)
    scorer = make_ranking_scorer("ndcg@5")
    assert repr(scorer) == "make_ranking_scorer('ndcg@5')"
    got = scorer(model, X[["qid", *FEATURES]], y)
    want = grouped_ndcg_score(y, model.predict(X[FEATURES]), X["qid"], k=5)
    assert got == pytest.approx(want, abs=1e-12)
    # An explicit qid_col still wins over the estimator's.
    ranker = QueryRanker(Ridge(), qid_col="other").fit(
        X[FEATURES].assign(other=X["qid"]), y
    )
    assert make_ranking_scorer("ndcg@5", qid_col="qid")(
        ranker, X[["qid", *FEATURES]], y
    ) == pytest.approx(want, abs=1e-12)


def test_splitter_groups_default_to_the_qid_column(data):
    X, _ = data
    cv = GroupTimeSeriesSplit(n_splits=3, time_col="ts")
    by_column = list(cv.split(X))
    explicit = list(cv.split(X.drop(columns=["qid"]), groups=X["qid"]))
    for (a, b), (c, d) in zip(by_column, explicit, strict=True):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    # Passed groups win over the default column, silently: the user asked.
    other = (X["qid"] // 2).to_numpy()
    n_groups = cv.split_info(X, groups=other)["n_test_groups"].sum()
    assert n_groups < cv.split_info(X)["n_test_groups"].sum()


@pytest.mark.parametrize(
    ("roles", "column", "fix"),
    [
        ({"drop_cols": ["user_id", "item_id"]}, "ts", "time_col='ts'"),
        ({"time_col": "ts"}, "user_id", "drop_cols"),
    ],
)
@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("routing", [False, True])
def test_columns_the_library_cannot_take_fail_before_the_fit(
    data, roles, column, fix, library, routing
):
    X, y = data
    if library == "lightgbm":
        inner = lgb.LGBMRanker(**LGBM)
    else:
        xgb = pytest.importorskip("xgboost")
        inner = xgb.XGBRanker(n_estimators=3, n_jobs=1)
    with sklearn.config_context(enable_metadata_routing=routing):
        cv = GroupKFold(3)
        if routing:
            cv.set_split_request(groups="qid")
        search = GridSearchCV(
            QueryRanker(inner, **roles),
            {"estimator__learning_rate": [0.1]},
            cv=cv,
            error_score="raise",
        )
        params = {"qid": X["qid"]} if routing else {"groups": X["qid"]}
        with pytest.raises(ValueError, match=r"QueryRanker\.fit: column") as info:
            search.fit(X, y, **params)
    message = str(info.value)
    assert repr(column) in message and fix in message
    assert type(inner).__name__ in message


def test_object_array_features_fail_before_the_fit():
    X = np.array([["a", 1.0], ["b", 2.0], ["c", 0.5]], dtype=object)
    with pytest.raises(ValueError, match=r"numpy array of dtype object"):
        QueryRanker(lgb.LGBMRanker(**LGBM)).fit(X, [1, 0, 1], qid=[0, 0, 0])


def test_category_and_bool_features_are_accepted(data):
    X, y = data
    X = X.assign(user_id=X["user_id"].astype("category"), flag=X["f1"] > 100)
    model = QueryRanker(lgb.LGBMRanker(**LGBM), drop_cols="item_id", time_col="ts")
    model.fit(X, y)
    assert list(model.feature_names_in_) == ["user_id", *FEATURES, "flag"]


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"time_col": "when"}, r"\['when'\] given in time_col / drop_cols are not"),
        ({"drop_cols": ["user_id", "nope"]}, r"\['nope'\]"),
        ({"drop_cols": [1.5]}, r"drop_cols must be None, a column name or a list"),
    ],
)
def test_declared_columns_are_checked(data, params, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        QueryRanker(Ridge(), **params).fit(X[["qid", "user_id", *FEATURES]], y)


def test_declared_columns_need_a_dataframe():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"without column names"):
        QueryRanker(Ridge(), time_col="ts").fit(X, [0, 1, 0, 1], qid=[1, 1, 2, 2])


def test_polars_frames_follow_the_same_roles(data):
    pytest.importorskip("polars")
    X, y = data
    model = QueryRanker(lgb.LGBMRanker(**LGBM), **ROLES)
    want = model.fit(X, y).predict(X)
    got = model.fit(to_polars(X), y).predict(to_polars(X))
    np.testing.assert_allclose(got, want)
    with pytest.raises(ValueError, match=r"column 'ts' .* time_col='ts'"):
        QueryRanker(lgb.LGBMRanker(**LGBM), drop_cols=ROLES["drop_cols"]).fit(
            to_polars(X), y
        )


@settings(max_examples=25)
@given(
    n_extra=st.integers(0, 3),
    data_order=st.randoms(use_true_random=False),
)
def test_declared_columns_change_nothing_but_the_inputs(n_extra, data_order):
    # Property: whatever extra columns are declared and wherever they sit,
    # the model is the one fitted on the features alone.
    X, y = ranking_frame(n_queries=8, per_query=6, seed=1)
    extra = {f"junk{i}": np.arange(len(X)) * (i + 1) for i in range(n_extra)}
    wide = X.assign(**extra)
    columns = list(wide.columns)
    data_order.shuffle(columns)
    wide = wide[columns]
    model = QueryRanker(Ridge(), time_col="ts", drop_cols=["user_id", *extra])
    model.fit(wide.drop(columns="item_id"), y)
    features = [c for c in columns if c in FEATURES]
    plain = Ridge().fit(X[features], y)
    assert list(model.feature_names_in_) == features
    np.testing.assert_allclose(
        model.predict(wide.drop(columns="item_id")), plain.predict(X[features])
    )
