"""Tests of make_movielens_like: layout, determinism and learnable structure."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

from skndcg.datasets import make_movielens_like
from skndcg.datasets._synthetic import GENRES, NO_GENRE

COLUMNS = ["user_id", "item_id", "rating", "timestamp", "genres"]
START = pd.Timestamp("2010-01-01", tz="UTC").timestamp()


@pytest.fixture(scope="module")
def default_data():
    return make_movielens_like(random_state=0, return_items=True)


@pytest.fixture(scope="module")
def small():
    return make_movielens_like(200, 2000, 20_000, random_state=1)


def check_layout(df, n_users, n_items, n_ratings):
    assert list(df.columns) == COLUMNS
    assert len(df) == n_ratings
    assert df["user_id"].dtype == np.int64
    assert df["item_id"].dtype == np.int64
    assert df["rating"].dtype == np.float64
    assert df["timestamp"].dtype == np.int64
    assert pd.api.types.is_string_dtype(df["genres"])
    assert not df[["user_id", "item_id", "rating", "timestamp"]].isna().any(axis=None)
    assert set(df["user_id"]) == set(range(1, n_users + 1))
    assert df["item_id"].between(1, n_items).all()
    assert not df.duplicated(["user_id", "item_id"]).any()


def test_default_layout_matches_ml_latest_small(default_data):
    ratings, _ = default_data
    check_layout(ratings, 600, 9000, 100_000)
    assert set(ratings["rating"]) == {1.0, 2.0, 3.0, 4.0, 5.0}
    # Like the real file: every user has at least 20 ratings.
    assert ratings.groupby("user_id").size().min() >= 20
    years = (ratings["timestamp"].max() - ratings["timestamp"].min()) / (365.25 * 86400)
    assert 7.5 < years <= 9.0
    assert ratings["timestamp"].min() >= START
    assert ratings["timestamp"].max() < START + 9 * 365.25 * 86400
    # Sorted by user, then time, then item.
    key = ratings[["user_id", "timestamp", "item_id"]]
    assert key.equals(key.sort_values(list(key.columns)).reset_index(drop=True))
    # A realistic spread of ratings: mean near 3.5, every star used often.
    assert 3.2 < ratings["rating"].mean() < 3.9
    assert ratings["rating"].value_counts(normalize=True).min() > 0.01


@pytest.mark.parametrize(
    "n_users, n_items, n_ratings",
    [(1, 1, 1), (5, 10, 50), (3, 1000, 3), (7, 3, 20), (40, 500, 4321)],
)
def test_exact_sizes_including_extremes(n_users, n_items, n_ratings):
    df = make_movielens_like(n_users, n_items, n_ratings, random_state=3)
    check_layout(df, n_users, n_items, n_ratings)


@settings(max_examples=25, deadline=None)
@given(
    n_users=st.integers(1, 30),
    n_items=st.integers(1, 60),
    fill=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**31 - 2),
    half=st.booleans(),
)
def test_any_feasible_size_is_exact(n_users, n_items, fill, seed, half):
    n_ratings = n_users + int(fill * (n_users * n_items - n_users))
    df = make_movielens_like(
        n_users, n_items, n_ratings, half_stars=half, random_state=seed
    )
    check_layout(df, n_users, n_items, n_ratings)
    step = 0.5 if half else 1.0
    assert df["rating"].between(step, 5.0).all()
    assert ((df["rating"] / step) % 1 == 0).all()


def test_half_stars_use_the_half_star_scale():
    df = make_movielens_like(100, 800, 8000, half_stars=True, random_state=0)
    assert set(df["rating"]) <= set(np.arange(1, 11) / 2)
    assert {0.5, 3.5, 4.5} <= set(df["rating"])


def test_same_seed_same_data_other_seed_other_data():
    a = make_movielens_like(30, 200, 900, random_state=7, return_items=True)
    b = make_movielens_like(30, 200, 900, random_state=7, return_items=True)
    c = make_movielens_like(30, 200, 900, random_state=8)
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])
    assert not a[0].equals(c)
    d = make_movielens_like(30, 200, 900, random_state=np.random.RandomState(7))
    pd.testing.assert_frame_equal(a[0], d)


def test_heavy_tailed_items_and_users(default_data):
    ratings, _ = default_data
    per_item = np.sort(ratings["item_id"].value_counts().to_numpy())[::-1]
    top_tenth = per_item[:900].sum() / len(ratings)  # 10 % of 9,000 items
    assert top_tenth > 0.4
    per_user = ratings.groupby("user_id").size()
    assert per_user.max() > 10 * per_user.median()
    assert per_user.mean() > 1.5 * per_user.median()


def test_timestamp_bursts_and_sessions(default_data):
    ratings, _ = default_data
    same_user = ratings["user_id"].diff() == 0
    same_second = same_user & (ratings["timestamp"].diff() == 0)
    assert same_second.sum() / same_user.sum() > 0.2
    bursty_users = ratings.loc[same_second, "user_id"].nunique()
    assert bursty_users > 0.5 * 600
    span = ratings.groupby("user_id")["timestamp"].agg(np.ptp)
    # Most users rate in one sitting, some come back over years.
    assert 0.4 < (span < 86400).mean() < 0.85
    assert (span > 365 * 86400).sum() >= 10


def test_drift_new_items_appear_and_popularity_moves(default_data):
    ratings, _ = default_data
    t = ratings["timestamp"]
    mid = t.min() + (t.max() - t.min()) / 2
    first_seen = ratings.groupby("item_id")["timestamp"].min()
    assert (first_seen > mid).mean() > 0.1
    # Item ids follow release: newer ids are first rated later.
    assert np.corrcoef(first_seen.index, first_seen.to_numpy())[0, 1] > 0.3
    early = ratings.loc[t < mid, "item_id"].value_counts().index[:50]
    late = ratings.loc[t >= mid, "item_id"].value_counts().index[:50]
    assert len(set(early) & set(late)) < 45


def test_genres_and_item_table(default_data):
    ratings, items = default_data
    assert list(items.columns) == ["item_id", "title", "genres"]
    assert items["item_id"].tolist() == list(range(1, 9001))
    assert items["title"].str.fullmatch(r"Movie \d+ \(\d{4}\)").all()
    vocabulary = set(GENRES) | {NO_GENRE}
    names = items["genres"].str.split("|").explode()
    assert set(names) <= vocabulary
    assert set(GENRES) <= set(names)
    per_item = items["genres"].str.count(r"\|") + 1
    assert 1.8 < per_item.mean() < 3.0
    top = names.value_counts().index[:3]
    assert "Drama" in top and "Comedy" in top
    merged = ratings.merge(items, on="item_id", suffixes=("", "_item"))
    assert (merged["genres"] == merged["genres_item"]).all()


def per_user_ndcg(test, score, k=10):
    rel = test["rating"].to_numpy()
    values = [
        ndcg_score([rel[idx]], [score[idx]], k=k)
        for idx in test.groupby("user_id").indices.values()
        if idx.size > 1
    ]
    return float(np.mean(values))


def test_past_genre_taste_predicts_later_ratings(small):
    # Train on each user's first 70 % of ratings in time, test on the rest.
    df = small
    pos = df.groupby("user_id").cumcount()
    size = df.groupby("user_id")["user_id"].transform("size")
    train, test = df[pos < 0.7 * size], df[pos >= 0.7 * size]
    centred = train["rating"] - train.groupby("user_id")["rating"].transform("mean")
    taste = (
        train.assign(dev=centred, g=train["genres"].str.split("|"))
        .explode("g")
        .groupby(["user_id", "g"])["dev"]
        .mean()
    )
    rows = test.assign(g=test["genres"].str.split("|")).reset_index().explode("g")
    keys = pd.MultiIndex.from_arrays([rows["user_id"], rows["g"]])
    rows["taste"] = taste.reindex(keys).fillna(0.0).to_numpy()
    genre_score = rows.groupby("index")["taste"].mean().reindex(test.index).to_numpy()
    rng = np.random.default_rng(0)
    random_ndcg = np.mean(
        [per_user_ndcg(test, rng.random(len(test))) for _ in range(3)]
    )
    genre_ndcg = per_user_ndcg(test, genre_score)
    assert genre_ndcg > random_ndcg + 0.02
    assert np.corrcoef(genre_score, test["rating"])[0, 1] > 0.1


def test_user_habits_are_learnable(small):
    # A user's past mean rating predicts later ratings better than the
    # global mean: users differ in how generously they rate.
    df = small
    pos = df.groupby("user_id").cumcount()
    size = df.groupby("user_id")["user_id"].transform("size")
    train, test = df[pos < 0.7 * size], df[pos >= 0.7 * size]
    user_mean = train.groupby("user_id")["rating"].mean()
    assert user_mean.std() > 0.3
    pred_user = user_mean.reindex(test["user_id"]).to_numpy()
    mse_user = np.mean((test["rating"].to_numpy() - pred_user) ** 2)
    mse_global = np.mean((test["rating"] - train["rating"].mean()) ** 2)
    assert mse_user < 0.9 * mse_global


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"n_users": 10, "n_items": 5, "n_ratings": 51},
            ValueError,
            r"n_ratings=51 exceeds n_users \* n_items = 50",
        ),
        (
            {"n_users": 10, "n_items": 5, "n_ratings": 9},
            ValueError,
            "n_ratings=9 is smaller than n_users=10",
        ),
        ({"n_users": 0}, ValueError, "'n_users' parameter"),
        ({"n_items": 2.5}, TypeError, "'n_items' parameter"),
        ({"n_years": 0}, ValueError, "'n_years' parameter"),
        ({"start": "not a date"}, ValueError, "start='not a date' is not a date"),
        ({"random_state": "seed"}, ValueError, "'random_state' parameter"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_movielens_like(**kwargs)
