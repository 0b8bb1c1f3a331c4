"""HistoryFeatures and the catalogue scorer: brute force, no leak, searches, errors."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator
from sklearn.compose import ColumnTransformer
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.impute import SimpleImputer
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    RandomizedSearchCV,
    cross_validate,
)
from sklearn.pipeline import Pipeline

from skndcg.datasets import make_movielens_like
from skndcg.ranker import QueryRanker
from skndcg.recommend import (
    CatalogueFallbackWarning,
    FeatureColumnRanker,
    HistoryFeatures,
    ItemKNNRecommender,
    catalogue_report,
    make_catalogue_scorer,
)

DAY = 86_400


@pytest.fixture(scope="module")
def ratings():
    return make_movielens_like(60, 150, 1500, random_state=0)


@pytest.fixture(scope="module")
def builder(ratings):
    return HistoryFeatures(n_candidates=15).fit(ratings)


@pytest.fixture(scope="module")
def task(builder):
    return builder.task()


def _ridge():
    """QueryRanker over a pipeline that drops the id columns, then Ridge."""
    drop = ColumnTransformer(
        [("ids", "drop", ["window_start", "user_id", "item_id"])],
        remainder="passthrough",
    )
    steps = [("drop", drop), ("fill", SimpleImputer()), ("ridge", Ridge())]
    return QueryRanker(Pipeline(steps))


class ItemHash(BaseEstimator):
    """Scores without ties: a fixed function of the item id."""

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        return (X["item_id"].to_numpy() * 0.6180339887) % 1.0


def _brute_force(ratings, user, start, end, score, k=10):
    """Rank every eligible item by hand; NDCG@k and recall@k (binary)."""
    past = ratings[ratings.timestamp < start]
    mine = set(past.loc[past.user_id == user, "item_id"])
    eligible = sorted(set(past["item_id"]) - mine)
    now = ratings[(ratings.timestamp >= start) & (ratings.timestamp < end)]
    pos = set(now.loc[now.user_id == user, "item_id"]) & set(eligible)
    ranked = sorted(eligible, key=lambda i: -score(i))[:k]
    dcg = sum(1 / np.log2(r + 2) for r, i in enumerate(ranked) if i in pos)
    ideal = sum(1 / np.log2(r + 2) for r in range(min(k, len(pos))))
    return dcg / ideal, len(pos & set(ranked)) / len(pos)


def test_catalogue_report_equals_ranking_every_eligible_item_by_hand(ratings):
    binary = ratings.drop(columns="rating")
    b = HistoryFeatures(n_candidates=15).fit(binary)
    q = b.queries_.iloc[-12:]
    rep = catalogue_report(
        ItemHash(), b, q["qid"], metrics=["ndcg@10", "recall@10"]
    ).set_index("qid")
    for row in q.itertuples():
        start = int(row.window_start.value // 10**9)
        end = int((row.window_start + pd.offsets.MonthBegin()).value // 10**9)
        ndcg, recall = _brute_force(
            binary, row.user_id, start, end, lambda i: (i * 0.6180339887) % 1.0
        )
        assert rep.loc[row.qid, "ndcg@10"] == pytest.approx(ndcg, abs=1e-12)
        assert rep.loc[row.qid, "recall@10"] == pytest.approx(recall, abs=1e-12)


def test_stage_rows_are_the_generator_fitted_on_the_past(ratings, builder, task):
    X, _ = task
    row = builder.queries_.iloc[-1]
    start = int(row.window_start.value // 10**9)
    past = ratings[ratings.timestamp < start]
    knn = ItemKNNRecommender().fit(past)
    expected = knn.recommend([row.user_id], n_items=15)
    got = X[X.qid == row.qid].sort_values("stage_rank")
    assert got["item_id"].tolist() == expected["item_id"].tolist()
    np.testing.assert_allclose(got["stage_score"], expected["score"])
    np.testing.assert_allclose(got["cooc"], expected["score"])  # item kNN stage


def test_recency_features_by_hand(ratings, builder, task):
    X, _ = task
    r = X.iloc[-1]
    t = int(r.window_start.value // 10**9)
    item = ratings[ratings.item_id == r.item_id]
    for col, days in (("pop_short", 7), ("pop_long", 30)):
        n = ((item.timestamp < t) & (item.timestamp >= t - days * DAY)).sum()
        assert r[col] == pytest.approx(np.log1p(n))
    decay = (0.5 ** ((t - item.timestamp[item.timestamp < t]) / (30 * DAY))).sum()
    assert r["pop_decay"] == pytest.approx(np.log1p(decay))
    assert list(X.columns[4:]) == list(HistoryFeatures().get_feature_names_out())


def test_nothing_before_a_cut_off_moves_when_everything_after_it_changes(ratings):
    cut = int(pd.Timestamp("2016-01-01").value // 10**9)
    rng = np.random.default_rng(1)
    late = ratings.timestamp >= cut
    changed = ratings.copy()
    changed.loc[late, "item_id"] = rng.permutation(changed.loc[late, "item_id"])
    changed.loc[late, "rating"] = rng.permutation(changed.loc[late, "rating"])
    changed = changed.drop_duplicates(["user_id", "item_id", "timestamp"])
    changed = pd.concat(
        [changed, pd.DataFrame({"user_id": [999], "item_id": [99_999],
                                "rating": [5.0], "timestamp": [cut + 5]})],
    )  # fmt: skip
    outs = []
    for log in (ratings, changed):
        b = HistoryFeatures(n_candidates=15).fit(log)
        early = b.queries_[b.queries_.window_start < pd.Timestamp(cut, unit="s")]
        X, y = b.task(early["qid"])
        rep = catalogue_report(ItemHash(), b, early["qid"], metrics=["ndcg@10"])
        scorer = make_catalogue_scorer(b, "ndcg@10", candidates="stage")
        outs.append((early, X, y, rep, scorer(FeatureColumnRanker("cooc"), X)))
    (q1, X1, y1, r1, s1), (q2, X2, y2, r2, s2) = outs
    assert len(q1) > 20
    pd.testing.assert_frame_equal(q1, q2)
    pd.testing.assert_frame_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    pd.testing.assert_frame_equal(r1, r2)
    assert s1 == s2


def _searches(model, grid, scorer):
    cv = GroupKFold(3)
    common = {"scoring": scorer, "cv": cv, "refit": "stage_ndcg@10"}
    return [
        GridSearchCV(model, grid, **common),
        RandomizedSearchCV(model, grid, n_iter=2, random_state=0, **common),
    ]


def test_works_in_every_search_with_query_ranker_and_pickles(builder, task):
    X, y = task
    scorer = make_catalogue_scorer(
        builder, ["ndcg@10", "recall@10"], candidates="stage"
    )
    scorer = pickle.loads(pickle.dumps(scorer))
    model = _ridge()
    grid = {"estimator__ridge__alpha": [0.1, 1000.0]}
    for search in _searches(model, grid, scorer):
        search.fit(X, y, groups=X["qid"])
        res = search.cv_results_
        assert "split2_test_stage_ndcg@10" in res
        assert "split0_test_candidates_recall@15" in res
        assert np.all(res["mean_test_stage_n_queries"] > 0)
    one = make_catalogue_scorer(builder, "ndcg@10", candidates="stage")
    halving = HalvingGridSearchCV(
        model, grid, scoring=one, cv=GroupKFold(2), factor=2,
        min_resources=len(X) // 2, return_train_score=False,
    )  # fmt: skip
    halving.fit(X, y, groups=X["qid"])
    assert 0 < halving.best_score_ <= 1


def test_cross_validate_in_parallel_equals_serial(builder, task):
    X, y = task
    scorer = make_catalogue_scorer(builder, ["ndcg@10"])
    model = FeatureColumnRanker("cooc")
    serial = cross_validate(model, X, y, groups=X["qid"], cv=GroupKFold(2),
                            scoring=scorer)  # fmt: skip
    parallel = cross_validate(model, X, y, groups=X["qid"], cv=GroupKFold(2),
                              scoring=scorer, n_jobs=2)  # fmt: skip
    np.testing.assert_array_equal(
        serial["test_catalogue_ndcg@10"], parallel["test_catalogue_ndcg@10"]
    )


def test_with_metadata_routing(builder, task):
    X, y = task
    scorer = make_catalogue_scorer(builder, ["ndcg@10"], candidates="stage")
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            _ridge(), {"estimator__ridge__alpha": [1.0]}, scoring=scorer,
            refit="stage_ndcg@10", cv=GroupKFold(2),
        )  # fmt: skip
        search.fit(X, y, groups=X["qid"])
    assert np.isfinite(search.best_score_)


def test_an_unfitted_builder_is_a_clear_error(task):
    X, y = task
    with pytest.raises(TypeError, match="builder must be a HistoryFeatures"):
        make_catalogue_scorer(X, "ndcg@10")
    scorer = make_catalogue_scorer(HistoryFeatures(), "ndcg@10")
    with pytest.raises(ValueError, match="needs the interaction history"):
        scorer(FeatureColumnRanker("cooc"), X, y)
    with pytest.raises(ValueError, match="reads the validation queries from X"):
        make_catalogue_scorer(
            HistoryFeatures(n_candidates=10).fit(
                make_movielens_like(20, 50, 300, random_state=0)
            ),
            "ndcg@10",
        )(FeatureColumnRanker("cooc"), X.drop(columns="user_id"), y)


def test_a_fold_of_users_without_a_past_warns_and_counts(builder, task):
    X, _ = task
    cold = builder.queries_.loc[builder.queries_.n_history == 0, "qid"]
    assert len(cold) > 2
    scorer = make_catalogue_scorer(builder, ["ndcg@10"], candidates="stage")
    with pytest.warns(CatalogueFallbackWarning, match="popularity fallback"):
        out = scorer(FeatureColumnRanker("cooc"), X[X.qid.isin(cold)])
    assert out["stage_n_no_past"] == out["stage_n_queries"] == len(cold)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatalogueFallbackWarning)
        scorer(FeatureColumnRanker("cooc"), X)


def test_more_candidates_than_items_is_a_clear_error(ratings):
    n = ratings["item_id"].nunique()
    with pytest.raises(ValueError, match=rf"n_candidates={n + 1} is larger than"):
        HistoryFeatures(n_candidates=n + 1).fit(ratings)


def test_a_log_without_queries_and_a_bad_time_are_clear_errors(builder):
    # Three interactions: nobody meets, in a later month, an item met before.
    tiny = pd.DataFrame(
        {"user_id": [1, 1, 2], "item_id": [10, 11, 10], "timestamp": [0, 86400, 86400]}
    )
    empty = HistoryFeatures(n_candidates=2).fit(tiny)  # (an IndexError before)
    assert len(empty.queries_) == 0
    assert empty.features([1], [10], at="1970-01-03").shape[0] == 1
    with pytest.raises(ValueError, match=r"the fitted log holds no query \(a user"):
        empty.task()
    # A time that is not one was read as pandas' earliest date, or raised
    # pandas' DateParseError.
    for at in ("x", None, np.nan):
        with pytest.raises(ValueError, match=r"at must be a time \(a datetime or"):
            builder.features([1], [1], at=at)


def test_stage_protocol_puts_items_outside_the_candidates_below(builder):
    qids = builder.queries_["qid"].iloc[-20:]
    _, rows = catalogue_report(
        FeatureColumnRanker("pop_log"), builder, qids, candidates="stage",
        metrics=["ndcg@10"], return_candidates=True,
    )  # fmt: skip
    retrieved = rows.dropna(subset=["score"])
    assert retrieved.groupby("qid").size().max() <= 15
    recall = builder.stage_recall(qids)
    missed = rows[rows.score.isna()].groupby("qid").size()
    n_pos = builder.queries_.set_index("qid")["n_positives"]
    got = 1 - missed.reindex(qids, fill_value=0) / n_pos.reindex(qids)
    np.testing.assert_allclose(got.to_numpy(), recall.reindex(qids).to_numpy())


@pytest.mark.parametrize(
    "qids, match",
    [
        ([], r"qids holds no query; pass None for every query"),
        (["x"], r"qids must hold query ids \(integers 0 to \d+ .*\), got 'x'\."),
        ([1.5], r"qids must hold query ids .*, got 1\.5\."),
    ],
)
def test_bad_qids_are_named(builder, qids, match):
    with pytest.raises(ValueError, match=match):
        catalogue_report(FeatureColumnRanker("pop_log"), builder, qids)
    with pytest.raises(ValueError, match=match):
        builder.task(qids)


def test_mixed_id_kinds_are_named(ratings):
    mixed = ratings.assign(item_id=ratings["item_id"].astype(object))
    mixed.loc[mixed.index[0], "item_id"] = "a"
    with pytest.raises(TypeError, match=r"X\['item_id'\] mixes ids of the kinds"):
        HistoryFeatures().fit(mixed)


def test_a_missing_rating_is_refused_by_row(ratings):
    # A rating is a query's label: a missing one was read as a NaN label
    # without a word (make_ranking_task refuses it; now both name the row).
    from skndcg.datasets import make_ranking_task

    log = ratings.copy()
    log.loc[log.index[7], "rating"] = np.nan
    with pytest.raises(
        ValueError, match=r"^X\['rating'\] has 1 missing values \(first at row 7\)\.$"
    ):
        HistoryFeatures(n_candidates=5).fit(log)
    with pytest.raises(
        ValueError,
        match=r"^ratings\['rating'\] has 1 missing values \(first at row 7\)",
    ):
        make_ranking_task(log, random_state=0)
    # The recommenders read no rating, and still take the log.
    ItemKNNRecommender().fit(log)
