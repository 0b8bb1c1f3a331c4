"""The demo's candidate stage: item kNN interleaved with recent popularity."""

import numpy as np
import pandas as pd
import pytest

from skndcg.datasets import make_movielens_like
from skndcg.demo._stage import KNNPlusRecentStage
from skndcg.recommend import ItemKNNRecommender, PopularityRecommender

DAY = 86400


def test_hand_computed_scores():
    log = pd.DataFrame(
        {
            "user_id": [1, 1, 2, 2, 3, 4, 5],
            "item_id": [10, 11, 10, 12, 11, 13, 13],
            "timestamp": [0, 0, 0, 0, 0, 9 * DAY, 9 * DAY],
        }
    )
    stage = KNNPlusRecentStage(half_life_days=1).fit(log, now=10 * DAY)
    s = stage.score_items([3, 99])  # 99 has no past
    # User 3 met 11: kNN ranks 10 first (its only neighbour); recency ranks
    # 13 first, then 10 (two old ratings) before 12 (one).
    assert s[0, 1] == 0.0  # seen
    assert s[0, 0] == pytest.approx(1.0, abs=1e-6)
    assert s[0, 3] == pytest.approx(1.0, abs=1e-6)
    assert s[0, 2] == pytest.approx(1 / 3, abs=1e-6)
    # The tie between 10 and 13 goes to the more recently popular 13.
    assert s[0, 3] > s[0, 0]
    # No past: the reciprocal rank under time-decayed popularity alone.
    assert np.argsort(-s[1]).tolist() == [3, 0, 1, 2]
    assert stage.score_items([3], [13, 10, 77])[0, 2] == 0.0


def test_top_items_hold_the_best_of_both_lists():
    log = make_movielens_like(80, 300, 3000, random_state=0)
    now = int(log["timestamp"].max()) + 1
    stage = KNNPlusRecentStage(half_life_days=30).fit(log, now=now)
    knn = ItemKNNRecommender().fit(log)
    recent = PopularityRecommender(half_life_days=30).fit(log, now=now)
    users = log["user_id"].unique()[:10]
    n = 20
    top = np.argsort(-stage.score_items(users), axis=1, kind="stable")[:, : 2 * n]
    seen = knn.history_[np.searchsorted(knn.users_, users)].toarray() > 0
    for row, (k, p) in enumerate(
        zip(knn.score_items(users), recent.score_items(users), strict=True)
    ):
        k = np.where(seen[row] | (k <= 0), -np.inf, k)
        p = np.where(seen[row], -np.inf, p)
        best_k = set(np.argsort(-k, kind="stable")[: n - 1]) & set(
            np.flatnonzero(k > -np.inf)
        )
        best_p = set(np.argsort(-p, kind="stable")[: n - 1])
        assert best_k | best_p <= set(top[row]), row
        assert not (seen[row][top[row]]).any()


def test_bad_half_life_names_the_argument():
    log = pd.DataFrame({"user_id": [1], "item_id": [1], "timestamp": [0]})
    with pytest.raises(ValueError, match="half_life_days"):
        KNNPlusRecentStage(half_life_days=0).fit(log)
