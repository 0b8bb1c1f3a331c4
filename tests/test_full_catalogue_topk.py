"""Full-catalogue top-k: factors, the compiled top-k, chunked reports, errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LinearRegression

import skndcg.evaluation._protocols._catalogue_blocks as blocks
from skndcg.evaluation import full_catalogue_report

METRICS = ["ndcg@5", "recall@5", "map@5", "p@3", "mrr@4", "err@5"]


def _case(seed, n_users=9, n_items=14, width=3, ties=False):
    """A log of integer ids and factors indexed by those ids."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        items = rng.choice(n_items, size=rng.integers(1, n_items - 6), replace=False)
        rows += [(u, int(i), float(rng.integers(1, 5))) for i in items]
    log = pd.DataFrame(rows, columns=["user_id", "item_id", "rating"])
    is_test = rng.random(len(log)) < 0.3
    if ties:  # small integer factors: many equal scores
        U = rng.integers(-1, 2, (n_users, width)).astype(float)
        V = rng.integers(-1, 2, (n_items, width)).astype(float)
    else:
        U, V = rng.normal(size=(n_users, width)), rng.normal(size=(n_items, width))
    return log[~is_test], log[is_test], U, V


def _dense_top(U, V, train, test, top_n):
    """Per evaluated user, the set of items a full sort keeps: every eligible
    item scored at least as high as the top_n-th best eligible one."""
    catalogue = np.unique(train["item_id"])
    kept = {}
    for user in np.unique(test["user_id"]):
        seen = set(train.loc[train["user_id"] == user, "item_id"])
        held = set(test.loc[test["user_id"] == user, "item_id"])
        eligible = np.array([i for i in catalogue if i not in seen])
        if not held & set(eligible):
            continue
        scores = V[eligible] @ U[user]
        order = np.sort(scores)[::-1]
        cut = order[top_n - 1] if eligible.size >= top_n else -np.inf
        kept[user] = set(eligible[scores >= cut].tolist())
    return kept


def _retrieved(cand):
    got = cand[cand["score"].notna()]
    return {u: set(g["item_id"].tolist()) for u, g in got.groupby("user_id")}


def test_hand_computed_factors():
    # Two users, four items; user 0 saw item 2, user 1 saw item 0.
    train = pd.DataFrame({"user_id": [0, 1], "item_id": [2, 0]})
    test = pd.DataFrame({"user_id": [0, 1], "item_id": [3, 1]})
    U = np.array([[1.0, 0.0], [0.0, 1.0]])
    V = np.array([[4.0, 1.0], [3.0, 1.0], [9.0, 9.0], [1.0, 2.0]])
    # user 0 scores 4, 3, (9 seen), 1: keeps items 0, 1 (top 2); item 3 missed.
    # user 1 scores (1 seen), 1, 9, 2: keeps 2 and 3; item 1 (score 1) missed.
    report, cand = full_catalogue_report(
        (U, V), train, test, metrics=["recall@2", "ndcg@2"], top_n=2,
        items=[0, 1, 2, 3], return_candidates=True,
    )  # fmt: skip
    assert report["recall@2"].tolist() == [0.0, 0.0]
    assert _retrieved(cand) == {0: {0, 1}, 1: {2, 3}}
    assert report["n_items"].tolist() == [3, 3]  # two kept, one judged
    # A tie at the cut keeps every tied item: user 1 with item 1 scored 2.
    V[1] = [3.0, 2.0]
    report, cand = full_catalogue_report(
        (U, V), train, test, metrics=["recall@2", "ndcg@2"], top_n=2,
        items=[0, 1, 2, 3], return_candidates=True,
    )  # fmt: skip
    assert _retrieved(cand)[1] == {1, 2, 3}
    # Items 1 and 3 tie for second place: the tie is averaged, as a sort does.
    assert report["ndcg@2"].iloc[1] == pytest.approx(0.5 / np.log2(3))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("top_n", [1, 5, 11])
def test_top_k_equals_a_dense_sort(ties, top_n):
    for seed in range(4):
        train, test, U, V = _case(seed, ties=ties)
        _, cand = full_catalogue_report(
            (U, V), train, test, metrics=["ndcg@1"], top_n=top_n, block_size=4,
            return_candidates=True,
        )  # fmt: skip
        assert _retrieved(cand) == _dense_top(U, V, train, test, top_n)


def test_factor_forms_agree_with_the_matrix():
    train, test, U, V = _case(1)
    matrix = pd.DataFrame(U @ V.T)
    want = full_catalogue_report(matrix, train, test, metrics=METRICS, top_n=5)
    for scores in [
        (U, V),
        (pd.DataFrame(U), pd.DataFrame(V)),
        (U.tolist(), pd.DataFrame(V)),
    ]:
        got = full_catalogue_report(scores, train, test, metrics=METRICS, top_n=5)
        np.testing.assert_allclose(
            got[METRICS].to_numpy(), want[METRICS].to_numpy(), rtol=0, atol=1e-12
        )
    # Ids that are not row numbers: factors as DataFrames indexed by id.
    names = {u: f"user{u}" for u in range(len(U))}
    relabelled = [f.assign(user_id=f["user_id"].map(names)) for f in (train, test)]
    users = pd.DataFrame(U, index=[names[u] for u in range(len(U))])
    got = full_catalogue_report((users, V), *relabelled, metrics=METRICS, top_n=5)
    assert got["qid"].tolist() == sorted(names[u] for u in want["qid"])
    np.testing.assert_allclose(
        got.set_index("qid").loc[[names[u] for u in want["qid"]], METRICS],
        want[METRICS],
        atol=1e-12,
    )


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    ties=st.booleans(),
    block=st.integers(1, 6),
    top_n=st.integers(1, 8),
)
def test_permuting_users_and_items_changes_nothing(seed, ties, block, top_n):
    train, test, U, V = _case(seed, ties=ties)
    mets = [m for m in METRICS if int(m.split("@")[1]) <= top_n] or ["ndcg@1"]
    report, cand = full_catalogue_report(
        (U, V), train, test, metrics=mets, top_n=top_n, block_size=block,
        return_candidates=True,
    )  # fmt: skip
    kept = _retrieved(cand)
    # Seen items never appear among a user's kept items.
    for user, items in kept.items():
        assert not items & set(train.loc[train["user_id"] == user, "item_id"])
    rng = np.random.default_rng(seed)
    pu, pi = rng.permutation(len(U)), rng.permutation(len(V))
    new_u, new_i = np.empty_like(pu), np.empty_like(pi)
    new_u[pu], new_i[pi] = np.arange(len(U)), np.arange(len(V))
    moved = [
        f.assign(user_id=new_u[f["user_id"]], item_id=new_i[f["item_id"]]).sample(
            frac=1.0, random_state=seed
        )
        for f in (train, test)
    ]
    other, other_cand = full_catalogue_report(
        (U[pu], V[pi]), *moved, metrics=mets, top_n=top_n, block_size=block,
        return_candidates=True,
    )  # fmt: skip
    back = other.assign(qid=pu[other["qid"]]).sort_values("qid")
    np.testing.assert_allclose(
        back[mets].to_numpy(), report[mets].to_numpy(), rtol=0, atol=1e-12
    )
    moved_kept = _retrieved(other_cand)
    assert {pu[u]: {pi[i] for i in s} for u, s in moved_kept.items()} == kept


def test_reports_scored_a_few_blocks_at_a_time(monkeypatch):
    train, test, U, V = _case(2, n_users=30)
    want, want_cand = full_catalogue_report(
        (U, V), train, test, metrics=METRICS, top_n=6, block_size=4,
        return_candidates=True,
    )  # fmt: skip
    monkeypatch.setattr(blocks, "REPORT_ROWS", 10)
    got, cand = full_catalogue_report(
        (U, V), train, test, metrics=METRICS, top_n=6, block_size=4,
        return_candidates=True,
    )  # fmt: skip
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(cand, want_cand)


@pytest.mark.parametrize("threads", ["1", "2"])
def test_threads_give_the_same_report(monkeypatch, threads):
    # Large enough blocks to be split over threads (users x items >= 65,536).
    train, test, U, V = _case(3, n_users=80, n_items=1200, width=4)
    monkeypatch.setenv("SKNDCG_NUM_THREADS", "1")
    want = full_catalogue_report((U, V), train, test, metrics=METRICS, top_n=20)
    monkeypatch.setenv("SKNDCG_NUM_THREADS", threads)
    got = full_catalogue_report((U, V), train, test, metrics=METRICS, top_n=20)
    pd.testing.assert_frame_equal(got, want)


def test_timings_say_where_the_time_went():
    train, test, U, V = _case(4)
    report = full_catalogue_report((U, V), train, test, metrics=METRICS, top_n=5)
    timings = report.attrs["timings"]
    assert set(timings) == {"prepare", "scoring", "top_k", "metrics", "total"}
    assert all(v >= 0 for v in timings.values())
    parts = sum(v for k, v in timings.items() if k != "total")
    assert parts <= timings["total"]

    def features(users, items):
        uu, ii = np.meshgrid(users, items, indexing="ij")
        return np.column_stack([uu.ravel(), ii.ravel()]).astype(float)

    model = LinearRegression().fit(features(np.arange(9), np.arange(14)), np.ones(126))
    report = full_catalogue_report(
        model, train, test, features=features, metrics=METRICS, top_n=5
    )
    timings = report.attrs["timings"]
    assert 0 <= timings["features"] <= timings["scoring"]


def test_user_scores_are_not_modified():
    train, test, U, V = _case(5)
    scores = U @ V.T
    copy = scores.copy()
    full_catalogue_report(
        lambda u, i: scores[np.ix_(u, i)], train, test, metrics=METRICS, top_n=5
    )
    factors = U.copy(), V.copy()
    full_catalogue_report((U, V), train, test, metrics=METRICS, top_n=5)
    np.testing.assert_array_equal(scores, copy)
    np.testing.assert_array_equal(U, factors[0])
    np.testing.assert_array_equal(V, factors[1])


def test_bad_input():
    train, test, U, V = _case(6)
    kw = dict(metrics=["ndcg@5"], top_n=5)
    with pytest.raises(ValueError, match="user_factors has 3 columns and item_fac"):
        full_catalogue_report((U, V[:, :2]), train, test, **kw)
    with pytest.raises(ValueError, match=r"\(user_factors, item_factors\), got a"):
        full_catalogue_report((U, V, V), train, test, **kw)
    with pytest.raises(ValueError, match="block_size must be an integer >= 1, got 0"):
        full_catalogue_report((U, V), train, test, block_size=0, **kw)
    with pytest.raises(ValueError, match="block_size must be an integer >= 1"):
        full_catalogue_report((U, V), train, test, block_size=-3, **kw)
    with pytest.raises(ValueError, match=r"item id 1[0-3] is outside the 10 rows of"):
        full_catalogue_report((U, V[:10]), train, test, **kw)
    with pytest.raises(ValueError, match="user_factors has no row for the users"):
        full_catalogue_report((pd.DataFrame(U).iloc[:2], V), train, test, **kw)
    named = [f.assign(user_id=f["user_id"].astype(str)) for f in (train, test)]
    with pytest.raises(ValueError, match="user ids must be integer row numbers"):
        full_catalogue_report((U, V), *named, **kw)
    bad = V.copy()
    bad[4, 1] = np.inf
    with pytest.raises(ValueError, match="item_factors must be finite; the row of"):
        full_catalogue_report((U, bad), train, test, **kw)
    with pytest.raises(ValueError, match="must be a 2-D numeric array"):
        full_catalogue_report((U, V[:, 0]), train, test, **kw)
    with pytest.raises(ValueError, match="features is only used with an estimator"):
        full_catalogue_report((U, V), train, test, features=len, **kw)
    with pytest.raises(TypeError, match="a tuple \\(user_factors, item_factors\\)"):
        full_catalogue_report(3.0, train, test, **kw)

    def wrong_shape(users, items):
        return np.zeros((len(users), len(items) + 1))

    with pytest.raises(ValueError, match="must have shape"):
        full_catalogue_report(wrong_shape, train, test, **kw)

    def not_finite(users, items):
        out = np.ones((len(users), len(items)))
        out[:, 3] = np.nan
        return out

    # Reported at the first user's first bad item, seen or not.
    with pytest.raises(ValueError, match=r"finite; user \d+, item 3 scored nan"):
        full_catalogue_report(not_finite, train, test, **kw)
