"""The demo's full-catalogue hold-out against a brute-force loop, and its
protocols through the grid search."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.datasets import CandidateFeatures, make_movielens_like, make_ranking_task
from skndcg.demo import _full, _protocols
from skndcg.demo._data import holdout_cut
from skndcg.demo._models import (
    METRIC_OPTIONS,
    RANDOM_EXPECTED,
    RANKER,
    build_search,
    rating_codes,
)
from skndcg.evaluation import sampled_metric_estimates
from skndcg.metrics import ranking_report
from skndcg.model_selection import GlobalTimeSplit, LeaveLastNSplit, UserFractionSplit


class AffinityModel:
    """A fitted model in the scikit-learn sense: predict on the task's rows.

    Popularity plus genre affinity, and an item-id term that breaks every tie
    so the brute force below needs no tie rule.
    """

    def predict(self, X):
        return (
            X["item_log_ratings"].to_numpy()
            + 0.5 * X["genre_affinity"].to_numpy()
            + 1e-7 * X["item_id"].to_numpy()
        )


@pytest.fixture(scope="module")
def holdout():
    ratings = make_movielens_like(70, 300, 3500, half_stars=True, random_state=5)
    X, y = make_ranking_task(ratings, n_negatives=10, min_history=0, random_state=0)
    cut, _ = holdout_cut(ratings)
    _, (X_hold, y_hold) = _protocols.split("global-time", X, y, cut)
    cands = _full.full_holdout(ratings, X_hold, y_hold, AffinityModel(), 0)
    return ratings, X_hold, y_hold, cands


def _brute_force(ratings, X_hold, y_hold):
    """Per hold-out query: NDCG@10, AP@10 / min(10, R) over the whole catalogue,
    and the per-item NDCG@10 and recall@10 against the pool alone."""
    model = AffinityModel()
    month = pd.to_datetime(ratings["timestamp"], unit="s").dt.to_period("M")
    builder = CandidateFeatures(ratings)
    out = {}
    # Every 3rd query: the brute force is slow, the sample still spans months.
    for qid, rows in list(X_hold.groupby("qid"))[::3]:
        user, start = rows["user_id"].iloc[0], rows["window_start"].iloc[0]
        w = pd.Period(start, "M")
        earlier = ratings[(month < w).to_numpy()]
        mine = set(earlier.loc[earlier["user_id"] == user, "item_id"])
        items = np.array(sorted(set(earlier["item_id"]) - mine))
        pos = rows[y_hold[rows.index] > 0]
        gain = dict(zip(pos["item_id"], y_hold[pos.index], strict=True))
        score = model.predict(builder.at(start)([user], items))
        ranked = items[np.argsort(-score, kind="stable")]
        labels = np.array([gain.get(i, 0.0) for i in ranked])
        disc = 1 / np.log2(np.arange(2, 12))
        ideal = np.sort(np.array(list(gain.values())))[::-1][:10]
        ndcg = (labels[:10] * disc[: len(labels[:10])]).sum() / (
            ideal * disc[: ideal.size]
        ).sum()
        hits = labels[:10] > 0
        prec = np.cumsum(hits) / np.arange(1, hits.size + 1)
        ap = (prec * hits).sum() / min(10, len(gain))
        # Per item: rank among the pool (non-positive items) alone.
        neg_scores = score[~np.isin(items, list(gain))]
        item_scores = dict(zip(items, score, strict=True))
        above = np.array([(neg_scores > item_scores[i]).sum() for i in gain])
        item_ndcg = np.where(above < 10, 1 / np.log2(above + 2), 0.0).mean()
        item_recall = (above < 10).mean()
        out[qid] = (ndcg, ap, item_ndcg, item_recall)
    return pd.DataFrame(out, index=["ndcg@10", "map@10", "i_ndcg", "i_recall"]).T


def test_full_catalogue_numbers_equal_a_brute_force_loop(holdout):
    ratings, X_hold, y_hold, cands = holdout
    expected = _brute_force(ratings, X_hold, y_hold)
    assert len(expected) >= 10
    c = cands[RANKER]
    report = ranking_report(
        c["label"].to_numpy(),
        c["score"].to_numpy(),
        c["qid"].to_numpy(),
        metrics=["ndcg@10", "map@10"],
        nan_score="unretrieved",
        queries="judged",
        **METRIC_OPTIONS,
    ).set_index("qid")
    assert sorted(report.index) == sorted(X_hold["qid"].unique())
    for metric in ("ndcg@10", "map@10"):
        np.testing.assert_allclose(
            report.loc[expected.index, metric], expected[metric], rtol=1e-12
        )
    sub = {n: c[c["qid"].isin(expected.index)] for n, c in cands.items()}
    per_item = _full.per_item_full(sub).set_index(["model", "metric"])["value"]
    assert per_item[(RANKER, "ndcg@10")] == pytest.approx(
        expected["i_ndcg"].mean(), rel=1e-12
    )
    assert per_item[(RANKER, "recall@10")] == pytest.approx(
        expected["i_recall"].mean(), rel=1e-12
    )


def test_per_item_full_with_ties_is_the_raw_sampled_metric_of_the_whole_pool(
    holdout,
):
    """Every item tied (random expected): the tie rule of the sampled
    estimates, read on a sample that is the whole pool."""
    _, _, _, cands = holdout
    c = cands[RANDOM_EXPECTED]
    report = sampled_metric_estimates(
        c["label"].to_numpy(),
        c["score"].to_numpy(),
        c["qid"].to_numpy(),
        c[c["label"] == 0].groupby("qid").size(),
        metrics=["ndcg@10", "recall@10"],
        estimates=["raw"],
    )
    ours = _full.per_item_full({RANDOM_EXPECTED: c}).set_index("metric")["value"]
    for metric in ("ndcg@10", "recall@10"):
        assert ours[metric] == pytest.approx(report[metric].mean(), rel=1e-12)
        assert 0 < ours[metric] < 0.1


def test_baselines_are_cached_across_runs(holdout):
    ratings, X_hold, y_hold, _ = holdout
    cache = {}
    first = _full.full_holdout(ratings, X_hold, y_hold, AffinityModel(), 0, cache)
    assert cache and all(key[0] != RANKER for key in cache)
    again = _full.full_holdout(ratings, X_hold, y_hold, AffinityModel(), 0, cache)
    for name, frame in first.items():
        pd.testing.assert_frame_equal(frame, again[name])


def test_n_pairs_counts_the_eligible_items_of_every_query(holdout):
    ratings, X_hold, _, _ = holdout
    month = pd.to_datetime(ratings["timestamp"], unit="s").dt.to_period("M")
    expected = 0
    for _, rows in X_hold.groupby("qid"):
        w = pd.Period(rows["window_start"].iloc[0], "M")
        expected += ratings.loc[(month < w).to_numpy(), "item_id"].nunique()
    assert _full.n_pairs(ratings, X_hold) == expected


@pytest.fixture(scope="module")
def task():
    ratings = make_movielens_like(90, 400, 5000, half_stars=True, random_state=2)
    X, y = make_ranking_task(ratings, n_negatives=10, min_history=0, random_state=0)
    cut, _ = holdout_cut(ratings)
    return X, y, cut


SPLITTERS = {
    "global-time": GlobalTimeSplit,
    "leave-last-n": LeaveLastNSplit,
    "user-fraction": UserFractionSplit,
}


def _check_fold(X, train, test, protocol):
    assert len(train) and len(test)
    q_train, q_test = set(X["qid"].iloc[train]), set(X["qid"].iloc[test])
    assert not q_train & q_test  # a query is never split
    t = X["window_start"]
    if protocol == "global-time":
        assert t.iloc[train].max() < t.iloc[test].min()
        return
    last = t.iloc[train].groupby(X["user_id"].iloc[train]).max()
    first = t.iloc[test].groupby(X["user_id"].iloc[test]).min()
    both = last.index.intersection(first.index)
    assert (last[both] < first[both]).all()


@pytest.mark.parametrize("protocol", _protocols.PROTOCOLS)
def test_protocols_hold_out_and_tune_under_one_rule(task, protocol):
    X, y, cut = task
    (X_dev, y_dev), (X_hold, _) = _protocols.split(protocol, X, y, cut)
    joined = pd.concat([X_dev, X_hold])
    _check_fold(joined, np.arange(len(X_dev)), np.arange(len(X_dev), len(joined)),
                protocol)  # fmt: skip
    if protocol != "global-time":  # per-user protocols leave no query out
        assert X_dev["qid"].nunique() + X_hold["qid"].nunique() == X["qid"].nunique()
    else:
        assert (X_hold["window_start"] >= cut).all()
    codes, gain = rating_codes(y_dev)
    cv = _protocols.cv_splitter(protocol, X_dev, 2)
    search = build_search(cv, gain, quick=True, random_state=0)
    search.param_grid = {"estimator__rank__num_leaves": [3]}
    search.estimator.set_params(estimator__rank__n_estimators=5)
    search.fit(X_dev, codes)
    assert isinstance(search.cv, SPLITTERS[protocol])
    n = 1 if protocol == "user-fraction" else 2
    assert cv.get_n_splits() == n
    assert search.n_splits_ == n
    for train, test in search.cv.split(X_dev):
        _check_fold(X_dev, train, test, protocol)
    assert np.isfinite(search.cv_results_["mean_test_ndcg@10"]).all()


def test_global_time_cuts_reproduce_the_quantiles(task):
    X, _, _ = task
    cuts = _protocols._time_cuts(X, 3)
    assert len(cuts) == 3 and cuts == sorted(set(cuts))
    months = X.groupby("qid")["window_start"].first()
    shares = [(months < c).mean() for c in cuts]
    # Each cut is the month boundary nearest its quantile of the queries.
    starts = np.unique(months)
    for k, s in enumerate(shares, start=1):
        options = [(months < b).mean() for b in starts]
        assert abs(s - k / 4) == pytest.approx(min(abs(o - k / 4) for o in options))
    n = starts.size
    with pytest.raises(
        ValueError, match=rf"cover {n} months; .* needs at least {n + 1}"
    ):
        _protocols._time_cuts(X, n)


@st.composite
def query_tasks(draw):
    """Small ranking tasks: queries (user, month) of 1-3 rows each."""
    n_queries = draw(st.integers(4, 30))
    users = draw(st.lists(st.integers(0, 5), min_size=n_queries, max_size=n_queries))
    months = draw(st.lists(st.integers(0, 11), min_size=n_queries, max_size=n_queries))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n_queries, max_size=n_queries))
    pairs = sorted(set(zip(months, users, strict=True)))
    rows = []
    for qid, (m, u) in enumerate(pairs):
        for item in range(sizes[qid % len(sizes)]):
            rows.append((qid, pd.Timestamp("2020-01-01") + pd.DateOffset(months=m), u,
                         item))  # fmt: skip
    X = pd.DataFrame(rows, columns=["qid", "window_start", "user_id", "item_id"])
    return X.sample(frac=1.0, random_state=draw(st.integers(0, 9))).reset_index(
        drop=True
    )


@settings(max_examples=40, deadline=None)
@given(X=query_tasks(), protocol=st.sampled_from(_protocols.PROTOCOLS))
def test_protocol_splits_keep_queries_whole_and_time_ordered(X, protocol):
    y = np.ones(len(X))
    cut = pd.Timestamp("2020-07-01")
    (X_dev, _), (X_hold, _) = _protocols.split(protocol, X, y, cut)
    assert not set(X_dev["qid"]) & set(X_hold["qid"])
    # Every row of a query lands on one side, all of them.
    for part in (X_dev, X_hold):
        sizes = part.groupby("qid").size()
        np.testing.assert_array_equal(sizes, X.groupby("qid").size()[sizes.index])
    if protocol == "global-time":
        assert (X_dev["window_start"] < cut).all()
        assert (X_hold["window_start"] >= cut).all()
    else:
        assert len(X_dev) + len(X_hold) == len(X)
        last = X_dev.groupby("user_id")["window_start"].max()
        first = X_hold.groupby("user_id")["window_start"].min()
        both = last.index.intersection(first.index)
        assert (last[both] < first[both]).all()
        if protocol == "leave-last-n":  # exactly each user's last query
            assert X_hold.groupby("user_id")["qid"].nunique().eq(1).all()
            assert set(X_hold["user_id"]) == set(X["user_id"])
    if X_dev["qid"].nunique() < 2:
        return
    try:
        cv = _protocols.cv_splitter(protocol, X_dev, 2)
    except ValueError as exc:  # too few months for two global cuts
        assert protocol == "global-time" and "needs at least 3" in str(exc)
        return
    for train, test in cv.split(X_dev):
        if len(train) and len(test):
            _check_fold(X_dev, train, test, protocol)
        assert not set(X_dev["qid"].iloc[train]) & set(X_dev["qid"].iloc[test])
