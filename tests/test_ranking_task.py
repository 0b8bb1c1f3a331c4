"""make_ranking_task: queries, candidates, point-in-time features, no leakage."""

import numpy as np
import pandas as pd
import pytest

from skndcg.datasets import make_movielens_like, make_ranking_task

FEATURES = [
    "item_log_ratings",
    "item_mean_rating",
    "item_log_recent",
    "item_age",
    "user_log_ratings",
    "user_mean_rating",
    "user_days_idle",
    "genre_affinity",
    "genre_rating",
]


@pytest.fixture(scope="module")
def ratings():
    return make_movielens_like(80, 400, 6000, n_years=4.0, random_state=3)


@pytest.fixture(scope="module")
def task(ratings):
    return make_ranking_task(ratings, n_negatives=15, random_state=0)


def _month(ts):
    """Calendar month of Unix seconds (a Series or one number)."""
    if np.ndim(ts) == 0:
        return pd.Timestamp(int(ts), unit="s").to_period("M")
    return pd.to_datetime(ts, unit="s").dt.to_period("M")


def test_layout(task):
    X, y = task
    assert list(X.columns) == ["qid", "window_start", "user_id", "item_id", *FEATURES]
    assert X["qid"].dtype == np.int64 and y.dtype == np.int64
    assert len(X) == len(y)
    assert np.all(np.diff(X["qid"]) >= 0)
    # Within a query rows follow item_id, so row order says nothing of labels.
    key = X[["qid", "item_id"]]
    assert not key.duplicated().any()
    assert key.equals(key.sort_values(["qid", "item_id"]))
    # qid grows with time and each query has one user and one window.
    per_q = X.groupby("qid").agg(
        users=("user_id", "nunique"),
        windows=("window_start", "nunique"),
        start=("window_start", "first"),
    )
    assert (per_q["users"] == 1).all() and (per_q["windows"] == 1).all()
    assert per_q["start"].is_monotonic_increasing
    assert not X[FEATURES].isna().any().any()


def test_labels_and_candidates(ratings, task):
    X, y = task
    month = _month(ratings["timestamp"])
    start = X["window_start"].dt.to_period("M")
    merged = X.assign(label=y, month=start).merge(
        ratings.assign(month=month)[["user_id", "item_id", "rating", "month"]],
        on=["user_id", "item_id", "month"],
        how="left",
    )
    pos = merged["label"] > 0
    # Rated rows: label = ceil(rating) of that user's rating in the window.
    assert (merged.loc[pos, "label"] == np.ceil(merged.loc[pos, "rating"])).all()
    # Negatives: no rating of the pair up to the end of the window.
    neg = merged.loc[~pos, ["user_id", "item_id", "month"]]
    seen = ratings.assign(month=month).groupby(["user_id", "item_id"])["month"].min()
    first = neg.join(seen.rename("first"), on=["user_id", "item_id"])["first"]
    assert (first.isna() | (first > neg["month"])).all()
    assert X.loc[y == 0].groupby("qid").size().max() <= 15
    # Every rating of a kept (user, month) is a candidate: no rating is lost.
    kept = X.loc[y > 0].groupby("qid").size()
    expected = (
        ratings.assign(month=month)
        .merge(
            X[["qid", "user_id"]].assign(month=start).drop_duplicates(),
            on=["user_id", "month"],
        )
        .groupby("qid")
        .size()
    )
    pd.testing.assert_series_equal(kept, expected, check_names=False)


def test_min_history(ratings):
    for min_history in (1, 10):
        X, _ = make_ranking_task(ratings, n_negatives=0, min_history=min_history)
        q = X.groupby("qid").first()
        for row in q.sample(20, random_state=0).itertuples():
            start_s = row.window_start.timestamp()
            past = ratings[
                (ratings["user_id"] == row.user_id) & (ratings["timestamp"] < start_s)
            ]
            assert len(past) >= min_history
    few = make_ranking_task(ratings, n_negatives=0, min_history=10)[0]["qid"].nunique()
    many = make_ranking_task(ratings, n_negatives=0, min_history=1)[0]["qid"].nunique()
    assert few < many


def _brute_force(ratings, row):
    """Every feature of one candidate row, from the ratings before its window."""
    start = row.window_start
    start_s = start.timestamp()
    period = start.to_period("M")
    past = ratings[ratings["timestamp"] < start_s]
    it = past[past["item_id"] == row.item_id]
    us = past[past["user_id"] == row.user_id]
    glob = past["rating"].mean()
    recent_from = (period - 3).start_time.timestamp()
    genres_of = ratings.groupby("item_id")["genres"].first()
    item_g = set(genres_of[row.item_id].split("|")) - {"(no genres listed)"}
    user_sets = [set(g.split("|")) for g in us["genres"]]
    share = {g: np.mean([g in s for s in user_sets]) for g in item_g}
    overlap = [
        (r, sum(g in s for g in item_g))
        for r, s in zip(us["rating"], user_sets, strict=True)
    ]
    n_ov = sum(c for _, c in overlap)
    s_ov = sum(r * c for r, c in overlap)
    return {
        "item_log_ratings": np.log1p(len(it)),
        "item_mean_rating": (it["rating"].sum() + 5 * glob) / (len(it) + 5),
        "item_log_recent": np.log1p((it["timestamp"] >= recent_from).sum()),
        "item_age": ((period - _month(it["timestamp"].min())).n if len(it) else 0.0),
        "user_log_ratings": np.log1p(len(us)),
        "user_mean_rating": us["rating"].mean(),
        "user_days_idle": (start_s - us["timestamp"].max()) / 86400,
        "genre_affinity": sum(share.values()) / max(len(item_g), 1),
        "genre_rating": s_ov / n_ov - us["rating"].mean() if n_ov else 0.0,
    }


def test_features_match_brute_force(ratings, task):
    X, _ = task
    for row in X.sample(60, random_state=1).itertuples():
        expected = _brute_force(ratings, row)
        got = {f: getattr(row, f) for f in FEATURES}
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-9), row.Index


def test_hand_computed():
    day = 86_400
    jan, feb, mar = (pd.Timestamp(f"2020-0{m}-01").timestamp() for m in (1, 2, 3))
    ratings = pd.DataFrame(
        {
            "user_id": [1, 1, 2, 2, 1],
            "item_id": [10, 20, 10, 30, 30],
            "rating": [4.0, 2.0, 5.0, 3.5, 4.5],
            "timestamp": np.array(
                [jan + day, jan + 2 * day, jan + 3 * day, feb + day, mar + day],
                dtype=np.int64,
            ),
            "genres": ["Drama", "Comedy|Drama", "Drama", "Comedy", "Comedy"],
        }
    )
    X, y = make_ranking_task(ratings, n_negatives=5, min_history=2, random_state=0)
    # Only user 1 in March has two earlier ratings. Candidates: item 30 (rated
    # 4.5 -> label 5); no unrated item exists by then (10 and 20 were rated).
    assert X["qid"].tolist() == [0]
    assert X["item_id"].tolist() == [30] and y.tolist() == [5]
    row = X.iloc[0]
    assert row["window_start"] == pd.Timestamp("2020-03-01")
    # Item 30 before March: one rating (3.5, February); global mean 3.625.
    assert row["item_log_ratings"] == pytest.approx(np.log1p(1))
    assert row["item_mean_rating"] == pytest.approx((3.5 + 5 * 3.625) / 6)
    assert row["item_age"] == 1  # first rated in February
    assert row["user_mean_rating"] == pytest.approx(3.0)
    assert row["user_days_idle"] == pytest.approx((mar - (jan + 2 * day)) / day)
    # User 1 rated one of two items with Comedy: affinity 1/2; its Comedy
    # rating 2.0 minus its mean 3.0.
    assert row["genre_affinity"] == pytest.approx(0.5)
    assert row["genre_rating"] == pytest.approx(-1.0)


def _past(X, y, cut):
    keep = (X["window_start"] < cut).to_numpy()
    return X[keep].reset_index(drop=True), y[keep]


@pytest.mark.parametrize("change", ["drop", "shuffle"])
def test_future_does_not_change_the_past(ratings, change):
    """Leakage test: rewriting everything from a cutoff month on leaves every
    earlier query (candidates, labels, features) exactly as it was."""
    cut = pd.Timestamp("2012-01-01")
    future = ratings["timestamp"] >= cut.timestamp()
    assert future.sum() > 500 and (~future).sum() > 500
    if change == "drop":
        altered = ratings[~future]
    else:
        rng = np.random.default_rng(0)
        altered = ratings.copy()
        idx = np.flatnonzero(future)
        for col in ("user_id", "item_id", "rating"):
            altered.loc[idx, col] = altered.loc[idx, col].to_numpy()[
                rng.permutation(idx.size)
            ]
    X0, y0 = _past(*make_ranking_task(ratings, random_state=5), cut)
    X1, y1 = _past(*make_ranking_task(altered, random_state=5), cut)
    assert len(X0) > 1000
    pd.testing.assert_frame_equal(X0, X1)
    np.testing.assert_array_equal(y0, y1)


def test_row_order_and_seed(ratings):
    X0, y0 = make_ranking_task(ratings, random_state=7)
    shuffled = ratings.sample(frac=1.0, random_state=0)
    X1, y1 = make_ranking_task(shuffled, random_state=7)
    pd.testing.assert_frame_equal(X0, X1)
    np.testing.assert_array_equal(y0, y1)
    X2, _ = make_ranking_task(ratings, random_state=8)
    assert not X2["item_id"].equals(X0["item_id"])


def test_input_untouched_and_no_genres(ratings):
    before = ratings.copy()
    X, _ = make_ranking_task(ratings.drop(columns="genres"), random_state=0)
    pd.testing.assert_frame_equal(ratings, before)
    assert (X["genre_affinity"] == 0).all() and (X["genre_rating"] == 0).all()


@pytest.mark.parametrize("window", ["W", "Q"])
def test_other_windows(ratings, window):
    X, _ = make_ranking_task(ratings, window=window, n_negatives=3, random_state=0)
    starts = X["window_start"].drop_duplicates()
    assert (starts.dt.to_period(window).dt.start_time == starts).all()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"window": "2M"}, ValueError, "'window' parameter"),
        ({"n_negatives": -1}, ValueError, "'n_negatives' parameter"),
        ({"min_history": 0}, ValueError, "'min_history' parameter"),
    ],
)
def test_bad_parameters(ratings, kwargs, error, match):
    with pytest.raises(error, match=match):
        make_ranking_task(ratings, **kwargs)


def test_bad_ratings(ratings):
    with pytest.raises(TypeError, match="'ratings' parameter"):
        make_ranking_task(ratings.to_numpy())
    with pytest.raises(ValueError, match=r"missing the column\(s\) \['timestamp'\]"):
        make_ranking_task(ratings.drop(columns="timestamp"))
    with pytest.raises(ValueError, match="ratings has no rows"):
        make_ranking_task(ratings.iloc[:0])
    bad = ratings.copy()
    bad.loc[3, "rating"] = np.nan
    with pytest.raises(ValueError, match=r"ratings\['rating'\] has 1 missing"):
        make_ranking_task(bad)
    bad = ratings.assign(rating=-ratings["rating"])
    with pytest.raises(ValueError, match=r"must be >= 0, found -5.0"):
        make_ranking_task(bad)
    bad = ratings.assign(timestamp=ratings["timestamp"].astype(str))
    with pytest.raises(ValueError, match=r"ratings\['timestamp'\] must be numeric"):
        make_ranking_task(bad)


def test_no_query_gives_empty_frame():
    one = pd.DataFrame(
        {"user_id": [1], "item_id": [2], "rating": [4.0], "timestamp": [5]}
    )
    X, y = make_ranking_task(one)
    assert X.shape == (0, 13) and y.shape == (0,)
    assert list(X.columns[4:]) == FEATURES
