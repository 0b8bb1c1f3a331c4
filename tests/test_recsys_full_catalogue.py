"""Full-catalogue evaluation: equal to a brute-force loop over users."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LinearRegression

from skndcg.evaluation import compare, full_catalogue_report
from skndcg.metrics import ranking_report

METRICS = ["ndcg@5", "recall@5", "map@5", "p@3", "mrr@4", "hit@2"]


def _brute_force(matrix, train, test, metrics, exclude_seen=True, items=None):
    """Every eligible item of every user, scored and ranked without any cut."""
    catalogue = np.unique(train["item_id"] if items is None else items)
    labels, scores, qids = [], [], []
    for user in np.unique(test["user_id"]):
        seen = (
            set(train.loc[train["user_id"] == user, "item_id"])
            if exclude_seen
            else set()
        )
        eligible = [i for i in catalogue if i not in seen]
        held = test[test["user_id"] == user]
        gains = {}
        for item, rating in zip(held["item_id"], held["rating"], strict=True):
            if item in eligible:
                gains[item] = max(gains.get(item, -1.0), rating)
        if not gains:
            continue
        for item in eligible:
            labels.append(gains.get(item, 0.0))
            scores.append(matrix.loc[user, item])
            qids.append(user)
    return ranking_report(labels, scores, qids, metrics=metrics)


def _random_case(seed, n_users=7, n_items=12, ties=False):
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        items = rng.choice(n_items, size=rng.integers(1, n_items - 2), replace=False)
        for i in items:
            rows.append((u, int(i), float(rng.integers(0, 6))))
    log = pd.DataFrame(rows, columns=["user_id", "item_id", "rating"])
    is_test = rng.random(len(log)) < 0.35
    train, test = log[~is_test], log[is_test]
    values = (
        rng.integers(0, 4, (n_users, n_items))
        if ties
        else rng.random((n_users, n_items))
    )
    matrix = pd.DataFrame(
        values.astype(float), index=range(n_users), columns=range(n_items)
    )
    return matrix, train, test


def test_hand_computed_user():
    train = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "b"]})
    items = ["a", "b", "c", "d", "e"]
    test = pd.DataFrame(
        {"user_id": [1, 1], "item_id": ["d", "e"], "rating": [1.0, 1.0]}
    )
    matrix = pd.DataFrame([[9.0, 8.0, 3.0, 2.0, 1.0]], index=[1], columns=items)
    # Eligible c, d, e ranked c > d > e; top_n=2 keeps c, d; e is judged, not retrieved.
    report = full_catalogue_report(
        matrix, train, test, items=items, metrics=["recall@2", "ndcg@2"], top_n=2
    )
    assert report["recall@2"].iloc[0] == 0.5
    idcg = 1 + 1 / np.log2(3)
    assert report["ndcg@2"].iloc[0] == pytest.approx((1 / np.log2(3)) / idcg)
    assert report["n_items"].iloc[0] == 3  # c and d kept plus e unretrieved


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("top_n", [5, 7])
def test_equals_brute_force(ties, top_n):
    for seed in range(5):
        matrix, train, test = _random_case(seed, ties=ties)
        got = full_catalogue_report(
            matrix, train, test, metrics=METRICS, top_n=top_n, block_size=3
        )
        want = _brute_force(matrix, train, test, METRICS)
        assert got["qid"].tolist() == want["qid"].tolist()
        for m in METRICS:
            np.testing.assert_array_equal(
                got[m].to_numpy(), want[m].to_numpy(), err_msg=m
            )


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    ties=st.booleans(),
    exclude=st.booleans(),
    block=st.integers(1, 8),
)
def test_equals_brute_force_property(seed, ties, exclude, block):
    matrix, train, test = _random_case(seed, n_users=5, n_items=9, ties=ties)
    try:
        got = full_catalogue_report(
            matrix,
            train,
            test,
            metrics=METRICS,
            top_n=5,
            exclude_seen=exclude,
            block_size=block,
            items=np.arange(9),
        )
    except ValueError as exc:  # no user with an eligible held-out item
        if len(test) == 0:
            assert "need rows" in str(exc)
            return
        assert "nothing to evaluate" in str(exc)
        assert _brute_force(matrix, train, test, METRICS, exclude, range(9)).empty
        return
    want = _brute_force(matrix, train, test, METRICS, exclude, range(9))
    for m in METRICS:
        np.testing.assert_allclose(
            got[m].to_numpy(), want[m].to_numpy(), rtol=0, atol=0
        )


def test_callable_and_estimator_agree_with_matrix():
    matrix, train, test = _random_case(3)
    from_matrix = full_catalogue_report(matrix, train, test, metrics=METRICS, top_n=5)
    from_fn = full_catalogue_report(
        lambda u, i: matrix.loc[u, i].to_numpy(), train, test, metrics=METRICS, top_n=5
    )
    pd.testing.assert_frame_equal(from_matrix, from_fn)

    # An estimator with a feature-building callback: score = f(user, item) learnt.
    def features(users, items):
        uu, ii = np.meshgrid(users, items, indexing="ij")
        return np.column_stack([uu.ravel(), ii.ravel(), (uu * ii).ravel()]).astype(
            float
        )

    X = features(np.arange(7), np.arange(12))
    target = X @ np.array([0.3, -0.2, 0.05])
    model = LinearRegression().fit(X, target)
    expected = pd.DataFrame(
        model.predict(X).reshape(7, 12), index=range(7), columns=range(12)
    )
    got = full_catalogue_report(
        model, train, test, features=features, metrics=METRICS, top_n=5
    )
    want = full_catalogue_report(expected, train, test, metrics=METRICS, top_n=5)
    pd.testing.assert_frame_equal(got, want)


def test_candidates_and_compare():
    matrix, train, test = _random_case(4)
    report, cand = full_catalogue_report(
        matrix, train, test, metrics=["ndcg@5"], top_n=5, return_candidates=True
    )
    retrieved = cand[cand["score"].notna()]
    assert (retrieved.groupby("user_id").size() >= 5).all()
    # No training item of a user is among its candidates.
    merged = retrieved.merge(train, on=["user_id", "item_id"])
    assert merged.empty
    other = full_catalogue_report(-matrix, train, test, metrics=["ndcg@5"], top_n=5)
    result = compare(
        {"model": report, "reversed": other},
        baseline="reversed",
        n_resamples=200,
        random_state=0,
    )
    assert result.models == ["model", "reversed"]
    assert list(result.qids) == report["qid"].tolist()


def test_inputs_not_modified():
    matrix, train, test = _random_case(5)
    copies = matrix.copy(), train.copy(), test.copy()
    full_catalogue_report(matrix, train, test, metrics=["ndcg@5"], top_n=5)
    for before, after in zip(copies, (matrix, train, test), strict=True):
        pd.testing.assert_frame_equal(before, after)


def test_errors():
    matrix, train, test = _random_case(6)
    with pytest.raises(ValueError, match="no cut-off"):
        full_catalogue_report(matrix, train, test, metrics=["mrr"])
    with pytest.raises(ValueError, match="deeper than top_n=5"):
        full_catalogue_report(matrix, train, test, metrics=["ndcg@10"], top_n=5)
    with pytest.raises(ValueError, match="top_n=50 is larger than the 12 eligible"):
        full_catalogue_report(matrix, train, test, metrics=["ndcg@10"], top_n=50)
    with pytest.raises(ValueError, match="needs features="):
        full_catalogue_report(
            LinearRegression(), train, test, metrics=["ndcg@5"], top_n=5
        )
    with pytest.raises(ValueError, match="missing users"):
        full_catalogue_report(matrix.iloc[:2], train, test, metrics=["ndcg@5"], top_n=5)
    bad = matrix.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"finite; user \d+, item 3 scored nan"):
        full_catalogue_report(bad, train, test, metrics=["ndcg@5"], top_n=5)
    # A user who has seen the whole catalogue has no eligible item.
    full = pd.DataFrame({"user_id": [0, 0, 1], "item_id": [0, 1, 0]})
    held = pd.DataFrame({"user_id": [0, 1], "item_id": [1, 1]})
    small = pd.DataFrame(np.ones((2, 2)), index=[0, 1], columns=[0, 1])
    with pytest.raises(ValueError, match="user 0 has no eligible item"):
        full_catalogue_report(small, full, held, metrics=["ndcg@1"], top_n=1)
    with pytest.raises(TypeError, match="train must be a pandas DataFrame"):
        full_catalogue_report(
            matrix, train.to_numpy(), test, metrics=["ndcg@5"], top_n=5
        )


def test_query_ranker_through_a_feature_callback():
    lightgbm = pytest.importorskip("lightgbm")
    from skndcg.ranker import QueryRanker

    _, train, test = _random_case(7, n_users=8, n_items=15)
    rng = np.random.default_rng(0)
    item_f = rng.normal(size=15)
    user_f = rng.normal(size=8)

    def features(users, items):
        uu, ii = np.meshgrid(np.asarray(users), np.asarray(items), indexing="ij")
        return pd.DataFrame(
            {
                "qid": uu.ravel(),
                "item_f": item_f[ii.ravel()],
                "cross": user_f[uu.ravel()] * item_f[ii.ravel()],
            }
        )

    X = features(np.arange(8), np.arange(15))
    y = (X["cross"] > 0).astype(int).to_numpy()
    # The same users are fitted and ranked on purpose: this checks the callback.
    model = QueryRanker(
        lightgbm.LGBMRanker(n_estimators=5, min_child_samples=2, verbose=-1),
        query_overlap="ignore",
    ).fit(X, y)
    expected = pd.DataFrame(
        model.predict(X).reshape(8, 15), index=range(8), columns=range(15)
    )
    got = full_catalogue_report(
        model, train, test, features=features, metrics=METRICS, top_n=5, block_size=3
    )
    want = full_catalogue_report(expected, train, test, metrics=METRICS, top_n=5)
    pd.testing.assert_frame_equal(got, want)
