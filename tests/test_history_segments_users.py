"""history_segments when a query is a user in a time window (make_ranking_task).

The training log holds user ids; the queries compared are user-months. The
rule must look each query up by its user (``users=``), giving the split and
the per-segment numbers computed here by hand, and must refuse ids it can see
are of another kind.
"""

import numpy as np
import pandas as pd
import pytest

from skndcg.datasets import make_movielens_like, make_ranking_task
from skndcg.evaluation import compare, history_segments
from skndcg.metrics import ranking_report


@pytest.fixture(scope="module")
def scenario():
    ratings = make_movielens_like(
        n_users=150, n_items=400, n_ratings=6000, n_years=2.0, random_state=0
    )
    X, y = make_ranking_task(ratings, n_negatives=20, min_history=0, random_state=0)
    cut = np.sort(X["window_start"].unique())[-6]
    test = (X["window_start"] >= cut).to_numpy()
    train_log = ratings[pd.to_datetime(ratings["timestamp"], unit="s") < cut]
    X_test, y_test = X[test].reset_index(drop=True), y[test]
    reports = {
        "popularity": ranking_report(
            y_test, X_test["item_log_ratings"], X_test["qid"], metrics=["ndcg@10"]
        ),
        "random": ranking_report(
            y_test,
            np.random.default_rng(0).random(len(X_test)),
            X_test["qid"],
            metrics=["ndcg@10"],
        ),
    }
    return train_log, X_test, reports


def _by_hand(train_log, X_test):
    """'no past' or '>= 1' per test query, from its user's training ratings."""
    users = X_test.groupby("qid")["user_id"].first()
    seen = set(train_log["user_id"])
    return pd.Series(
        np.where(users.isin(seen), ">= 1", "no past"), index=users.index.to_numpy()
    )


def test_user_months_are_split_by_their_user(scenario):
    train_log, X_test, _ = scenario
    want = _by_hand(train_log, X_test)
    # Both segments are populated and the naive lookup (query ids among user
    # ids) would give another split: the scenario can tell them apart.
    assert 5 <= (want == "no past").sum() <= len(want) - 5
    naive = np.where(want.index.isin(set(train_log["user_id"])), ">= 1", "no past")
    assert (naive != want.to_numpy()).sum() >= 5
    for users in (
        X_test,
        X_test[["qid", "user_id"]].drop_duplicates().set_index("qid")["user_id"],
        dict(zip(X_test["qid"], X_test["user_id"], strict=True)),
        (X_test["qid"].to_numpy(), X_test["user_id"].to_numpy()),
    ):
        rule = history_segments(train_log["user_id"], users=users)
        got = rule(want.index.to_numpy())
        assert got.tolist() == want.tolist()


def test_per_segment_numbers_are_those_of_the_right_queries(scenario):
    train_log, X_test, reports = scenario
    want = _by_hand(train_log, X_test)
    rule = history_segments(train_log["user_id"], users=X_test)
    cmp = compare(
        reports,
        baseline="random",
        metrics=["ndcg@10"],
        by=rule,
        n_resamples=200,
        random_state=0,
    )
    frame = cmp.to_frame().set_index(["segment", "model"])
    pop = reports["popularity"].set_index("qid")["ndcg@10"]
    for segment in ("no past", ">= 1"):
        queries = want.index[want == segment]
        row = frame.loc[(segment, "popularity")]
        assert row["n_queries"] == len(queries)
        assert row["mean"] == pytest.approx(pop.loc[queries].mean(), abs=1e-12)


def test_ids_of_another_kind_are_refused():
    rule = history_segments(["u1", "u1", "u2"])
    with pytest.raises(ValueError, match=r"another kind.*pass users=X"):
        rule([0, 1, 2])
    # The same kind is the classic case, one query per user.
    assert rule(["u1", "u3"]).tolist() == [">= 1", "no past"]


def test_bad_users_are_refused():
    with pytest.raises(ValueError, match=r"without the column\(s\) \['user_id'\]"):
        history_segments([1], users=pd.DataFrame({"qid": [1]}))
    with pytest.raises(ValueError, match="maps query 1 to more than one user"):
        history_segments([1], users=(np.array([1, 1]), np.array([5, 6])))
    with pytest.raises(TypeError, match="users must be a DataFrame"):
        history_segments([1], users=[1, 2])
    rule = history_segments([1], users={10: 1})
    with pytest.raises(ValueError, match=r"no user for the queries \[11\]"):
        rule([10, 11])
