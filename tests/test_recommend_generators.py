"""Candidate generators: hand-computed scores, EASE against per-item ridge, errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.recommend import EASERecommender, ItemKNNRecommender, PopularityRecommender

DAY = 86_400


def _log():
    # user 1: a, b; user 2: a, c; user 3: b (a=10, b=11, c=12, d=13)
    return pd.DataFrame(
        {
            "user_id": [1, 1, 2, 2, 3, 4],
            "item_id": [10, 11, 10, 12, 11, 13],
            "timestamp": [0, DAY, 2 * DAY, 9 * DAY, 9 * DAY, 9 * DAY],
        }
    )


def test_popularity_counts_all_time_recent_and_decayed():
    log = _log()
    pop = PopularityRecommender().fit(log)
    assert pop.score_items([1], [10, 11, 12, 13]).tolist() == [[2, 2, 1, 1]]
    recent = PopularityRecommender(window_days=3).fit(log, now=10 * DAY)
    assert recent.score_items([1], [10, 11, 12, 13]).tolist() == [[0, 1, 1, 1]]
    decay = PopularityRecommender(half_life_days=1).fit(log, now=10 * DAY)
    expected = [0.5**10 + 0.5**8, 0.5**9 + 0.5**1, 0.5**1, 0.5**1]
    np.testing.assert_allclose(decay.score_items([1], [10, 11, 12, 13])[0], expected)
    # Every interaction counts: a user meeting item 12 again adds one, while
    # the fallback (item_users_) counts that user once.
    again = pd.concat([log, log[log.item_id == 12]], ignore_index=True)
    twice = PopularityRecommender().fit(again)
    assert twice.score_items([1], [10, 11, 12, 13]).tolist() == [[2, 2, 2, 1]]
    assert twice.item_users_.tolist() == [2, 2, 1, 1]


def test_item_knn_is_cosine_co_occurrence_summed_over_the_past():
    knn = ItemKNNRecommender().fit(_log())
    # n(10)=2, n(11)=2, n(12)=1, n(13)=1; co(10,11)=1 (user 1), co(10,12)=1.
    got = knn.score_items([1, 3, 99], [10, 11, 12, 13])
    user1 = [1 + 1 / 2, 1 / 2 + 1, 1 / np.sqrt(2), 0]  # past {10, 11}
    user3 = [1 / 2, 1, 0, 0]  # past {11}
    np.testing.assert_allclose(got, [user1, user3, [0, 0, 0, 0]])


def test_recommend_excludes_seen_and_falls_back_to_popularity():
    knn = ItemKNNRecommender().fit(_log())
    rec = knn.recommend([3, 99], n_items=2)
    # user 3 (past 11): 10 (0.5), then 12 and 13 tie at 0 -> 12 first by id.
    assert rec[rec.user_id == 3]["item_id"].tolist() == [10, 12]
    # no past: every score 0 -> by number of users (10, 11 have 2), then id.
    assert rec[rec.user_id == 99]["item_id"].tolist() == [10, 11]
    assert rec["rank"].tolist() == [1, 2, 1, 2]


def test_ease_equals_per_item_ridge_with_a_zero_diagonal():
    rng = np.random.default_rng(0)
    H = (rng.random((30, 6)) < 0.4).astype(float)
    users, items = np.nonzero(H)
    log = pd.DataFrame({"user_id": users, "item_id": items})
    l2 = 3.0
    ease = EASERecommender(l2=l2).fit(log)
    H = H[np.unique(users)][:, np.unique(items)]
    for j in range(H.shape[1]):
        others = np.delete(np.arange(H.shape[1]), j)
        A = H[:, others]
        w = np.linalg.solve(A.T @ A + l2 * np.eye(others.size), A.T @ H[:, j])
        np.testing.assert_allclose(ease.weights_[others, j], w, atol=1e-10)
        assert ease.weights_[j, j] == 0
    np.testing.assert_allclose(
        ease.score_items(np.unique(users)), H @ ease.weights_, atol=1e-12
    )


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7)), min_size=1))
def test_recommend_is_the_sorted_unseen_scores(pairs):
    log = pd.DataFrame(pairs, columns=["user_id", "item_id"]).drop_duplicates()
    knn = ItemKNNRecommender().fit(log)
    n = knn.items_.size
    rec = knn.recommend(knn.users_, n_items=n)
    for u, got in rec.groupby("user_id"):
        seen = set(log.loc[log.user_id == u, "item_id"])
        assert set(got["item_id"]).isdisjoint(seen)
        assert len(got) == n - len(seen)
        assert np.all(np.diff(got["score"].to_numpy()) <= 1e-12)


def test_asking_for_more_items_than_exist_is_an_error():
    knn = ItemKNNRecommender().fit(_log())
    with pytest.raises(ValueError, match=r"n_items=5 is larger than the 4 items"):
        knn.recommend([1], n_items=5)


def test_bad_logs_are_refused_by_name():
    with pytest.raises(ValueError, match=r"missing the column\(s\) \['timestamp'\]"):
        PopularityRecommender().fit(_log().drop(columns="timestamp"))
    with pytest.raises(TypeError, match="X must be a pandas DataFrame"):
        ItemKNNRecommender().fit(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="window_days"):
        PopularityRecommender(window_days=-1).fit(_log())
    with pytest.raises(ValueError, match="range of milliseconds"):
        PopularityRecommender().fit(_log().assign(timestamp=10**13))


def test_history_features_by_hand():
    from skndcg.recommend import HistoryFeatures

    jan = int(pd.Timestamp("2020-01-10").timestamp())
    feb = int(pd.Timestamp("2020-02-01").timestamp())
    log = pd.DataFrame(
        {
            "user_id": [1, 1, 2, 2, 3, 1],
            "item_id": [10, 11, 10, 12, 11, 12],
            "rating": [4.0, 2.0, 5.0, 3.0, 1.0, 5.0],
            "timestamp": [jan, jan + DAY, jan, jan + 2 * DAY, jan + 3 * DAY, feb + 5],
            "genres": ["A|B", "B", "A|B", "A", "B", "A"],
        }
    )
    b = HistoryFeatures(n_candidates=2).fit(log)
    # One query: user 1 in February, with item 12 (met by user 2 before).
    assert b.queries_[["user_id", "n_history", "n_positives"]].values.tolist() == [
        [1, 2, 1]
    ]
    F = b.features([1], [10, 11, 12], pd.Timestamp(feb, unit="s")).set_index("item_id")
    # user kNN: sim(1, 2) = 1 / sqrt(2 * 2), sim(1, 3) = 1 / sqrt(2 * 1).
    np.testing.assert_allclose(F["user_knn"], [0.5, 1 / np.sqrt(2), 0.5])
    # Genre shares of user 1's past {10: A|B, 11: B}: A 1/2, B 2/2.
    np.testing.assert_allclose(F["genre_affinity"], [0.75, 1.0, 0.5])
    np.testing.assert_allclose(F.loc[12, "item_age_days"], (feb - jan - 2 * DAY) / DAY)
    np.testing.assert_allclose(F.loc[12, "user_days_idle"], (feb - jan - DAY) / DAY)
    prior = 15.0 / 5
    np.testing.assert_allclose(F.loc[10, "item_mean_label"], (9 + 5 * prior) / 7)
    # The stage (item kNN, seen items last) proposes 12 only: 10, 11 are seen.
    X, y = b.task()
    assert X["item_id"].tolist() == [12] and y.tolist() == [5.0]
    assert b.stage_recall().tolist() == [1.0]


@pytest.mark.parametrize(
    "cls", [PopularityRecommender, ItemKNNRecommender, EASERecommender]
)
def test_mixed_id_kinds_and_a_bad_now_are_named(cls):
    log = _log()
    mixed = log.assign(user_id=log["user_id"].astype(object))
    mixed.loc[0, "user_id"] = "a"
    with pytest.raises(
        TypeError, match=r"X\['user_id'\] mixes ids of the kinds int, str"
    ):
        cls().fit(mixed)
    for now in ("x", np.nan, np.inf):
        with pytest.raises(ValueError, match=r"now must be a time in Unix seconds"):
            cls().fit(log, now=now)


def test_fractional_seconds_are_read_exactly():
    # Float Unix seconds keep their fractions (they were cut to whole
    # seconds): a window that ends between two seconds, the decay of an
    # interaction half a second old, and "now" one second after the last.
    log = _log().astype({"timestamp": float})
    log.loc[5, "timestamp"] = 7 * DAY + 0.9  # item 13
    recent = PopularityRecommender(window_days=3).fit(log, now=10 * DAY + 0.7)
    assert recent.score_items([1], [10, 11, 12, 13]).tolist() == [[0, 1, 1, 1]]
    log["timestamp"] += 0.5
    decay = PopularityRecommender(half_life_days=1).fit(log)
    assert decay.now_ == 9 * DAY + 1.5
    ages = (decay.now_ - log["timestamp"]) / DAY
    expected = pd.Series(0.5**ages).groupby(log["item_id"]).sum()
    np.testing.assert_allclose(decay.score_items([1])[0], expected, rtol=1e-15)
    # Whole seconds give the numbers they gave, "now" still one second on.
    whole = PopularityRecommender(half_life_days=1).fit(_log())
    assert whole.now_ == 9 * DAY + 1


def test_history_features_read_fractional_seconds_exactly():
    from skndcg.recommend import HistoryFeatures

    jan = pd.Timestamp("2020-01-10").timestamp()
    feb = pd.Timestamp("2020-02-01").timestamp()
    log = pd.DataFrame(
        {
            "user_id": [1, 1, 2, 2, 3, 1],
            "item_id": [10, 11, 10, 12, 11, 12],
            "timestamp": [jan + 0.5, jan + DAY + 0.75, jan + 0.25,
                          jan + 2 * DAY + 0.5, jan + 3 * DAY, feb + 5.5],
        }
    )  # fmt: skip
    b = HistoryFeatures(n_candidates=2, half_life_days=1).fit(log)
    assert b.queries_[["user_id", "n_history"]].values.tolist() == [[1, 2]]
    F = b.features([1], [10, 11, 12], pd.Timestamp(feb, unit="s")).set_index("item_id")
    first = log.groupby("item_id")["timestamp"].min()
    np.testing.assert_allclose(F["item_age_days"], (feb - first) / DAY, rtol=1e-15)
    np.testing.assert_allclose(
        F.loc[10, "user_days_idle"], (feb - jan - DAY - 0.75) / DAY, rtol=1e-15
    )
    past = log[log["timestamp"] < feb]
    decay = pd.Series(0.5 ** ((feb - past["timestamp"]) / DAY))
    expected = np.log1p(decay.groupby(past["item_id"]).sum())
    np.testing.assert_allclose(F["pop_decay"], expected, rtol=1e-12)
    # A time between two seconds: what came before it, to the fraction.
    at = pd.Timestamp(jan + 2 * DAY + 0.75, unit="s")
    G = b.features([3], [10, 11, 12], at).set_index("item_id")
    assert G["pop_log"].tolist() == np.log1p([2, 1, 1]).tolist()


@pytest.mark.parametrize("none", [None, np.nan, ""])
def test_items_without_genres_share_no_genre(none):
    # A missing genres value was read as a genre named "" under pandas' string
    # dtype, so two items without genres counted as sharing one.
    from skndcg.recommend import HistoryFeatures

    jan = int(pd.Timestamp("2020-01-10").timestamp())
    feb = int(pd.Timestamp("2020-02-01").timestamp())

    def affinity(missing):
        log = pd.DataFrame(
            {
                "user_id": [1, 1, 2, 2, 3, 1],
                "item_id": [10, 11, 10, 12, 11, 12],
                "rating": [4.0, 2.0, 5.0, 3.0, 1.0, 5.0],
                "timestamp": [jan, jan + DAY, jan, jan + 2 * DAY, jan + 3 * DAY, feb],
                "genres": ["A", missing, "A", missing, missing, missing],
            }
        )
        b = HistoryFeatures(n_candidates=2).fit(log)
        when = pd.Timestamp(feb, unit="s")
        F = b.features([1], [10, 11, 12], when).set_index("item_id")
        return F["genre_affinity"].to_numpy()

    # User 1's past {10: A, 11: none}: A's share is 1/2; no genre for 11, 12.
    np.testing.assert_allclose(affinity(none), [0.5, 0.0, 0.0])
    np.testing.assert_array_equal(affinity(none), affinity("(no genres listed)"))
