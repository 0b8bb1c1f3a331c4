"""make_ranking_task: queries, candidates, point-in-time features, no leakage."""

import numpy as np
import pandas as pd
import pytest

from skndcg.datasets import make_movielens_like, make_ranking_task

FEATURES = [
    "item_log_ratings",
    "item_mean_rating",
    "item_log_recent",
    "item_log_30d",
    "item_share_30d",
    "item_age",
    "item_year",
    "user_log_ratings",
    "user_mean_rating",
    "user_days_idle",
    "genre_affinity",
    "genre_rating",
]


@pytest.fixture(scope="module")
def ratings():
    ratings, items = make_movielens_like(
        80, 400, 6000, n_years=4.0, half_stars=True, return_items=True, random_state=3
    )
    year = items["title"].str.extract(r"\((\d{4})\)$")[0].astype(float)
    year[::7] = np.nan  # some items of unknown year
    return ratings.assign(
        year=ratings["item_id"].map(dict(zip(items["item_id"], year, strict=True)))
    )


@pytest.fixture(scope="module")
def task(ratings):
    return make_ranking_task(ratings, n_negatives=15, min_history=0, random_state=0)


def _month(ts):
    """Calendar month of Unix seconds (a Series or one number)."""
    if np.ndim(ts) == 0:
        return pd.Timestamp(int(ts), unit="s").to_period("M")
    return pd.to_datetime(ts, unit="s").dt.to_period("M")


def test_layout(task):
    X, y = task
    assert list(X.columns) == ["qid", "window_start", "user_id", "item_id", *FEATURES]
    assert X["qid"].dtype == np.int64 and y.dtype == np.float64
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
    # Missing only where nothing is known: no past of the user, no year.
    known = [f for f in FEATURES if f not in ("user_days_idle", "item_year")]
    assert not X[known].isna().any().any()
    assert X["item_year"].isna().any() and X["item_year"].notna().any()
    no_past = X["user_log_ratings"] == 0
    assert (X["user_days_idle"].isna() == no_past).all()


def _first_month(ratings):
    """Month of each item's first rating."""
    month = _month(ratings["timestamp"])
    return month.groupby(ratings["item_id"]).min()


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
    # Rated rows: the label is the rating itself, half stars kept.
    assert (merged.loc[pos, "label"] == merged.loc[pos, "rating"]).all()
    assert (merged.loc[pos, "label"] % 1 == 0.5).any()
    # Negatives: no rating of the pair up to the end of the window.
    neg = merged.loc[~pos, ["user_id", "item_id", "month"]]
    seen = ratings.assign(month=month).groupby(["user_id", "item_id"])["month"].min()
    first = neg.join(seen.rename("first"), on=["user_id", "item_id"])["first"]
    assert (first.isna() | (first > neg["month"])).all()
    # Exactly 15 distinct negatives in every query.
    assert (X.loc[y == 0].groupby("qid")["item_id"].nunique() == 15).all()
    assert X["qid"].nunique() == X.loc[y == 0, "qid"].nunique()
    # Every rating of a kept (user, month) on an item rated before that
    # month is a candidate: no eligible rating is lost, no other is added.
    warm = ratings.assign(month=month)
    warm = warm[warm["item_id"].map(_first_month(ratings)) < warm["month"]]
    kept = X.loc[y > 0].groupby("qid").size()
    expected = (
        warm.merge(
            X[["qid", "user_id"]].assign(month=start).drop_duplicates(),
            on=["user_id", "month"],
        )
        .groupby("qid")
        .size()
    )
    pd.testing.assert_series_equal(kept, expected, check_names=False)


@pytest.mark.parametrize("negatives", ["popularity", "uniform"])
def test_every_candidate_could_have_been_drawn(ratings, negatives):
    """A positive is never an item that could not have been a negative: every
    candidate, rated or sampled, had a rating before its window started, so
    no feature can tell positives by "no history"."""
    X, y = make_ranking_task(
        ratings, n_negatives=10, negatives=negatives, min_history=0, random_state=1
    )
    first = X["item_id"].map(_first_month(ratings))
    assert (first < X["window_start"].dt.to_period("M")).all()
    assert (X["item_log_ratings"] > 0).all() and (X["item_age"] >= 1).all()
    # Cold ratings exist in the data, and none of them became a positive.
    month = _month(ratings["timestamp"])
    cold = ratings[ratings["item_id"].map(_first_month(ratings)) == month]
    assert len(cold) > 100
    rows = X.loc[y > 0, ["user_id", "item_id"]].assign(
        month=X.loc[y > 0, "window_start"].dt.to_period("M")
    )
    hit = rows.merge(
        cold.assign(month=month)[["user_id", "item_id", "month"]],
        on=["user_id", "item_id", "month"],
    )
    assert hit.empty


def _two_items(weight_a, weight_b, later_b=0):
    """January: item 1 rated ``weight_a`` times, item 2 ``weight_b`` times,
    item 3 by user 1. February: user 1 rates item 3 again, item 2 is rated
    ``later_b`` times (which must not weigh in February's draws), and item 4,
    new, is rated 20 times (it must never be drawn)."""
    jan, feb = (pd.Timestamp(f"2020-0{m}-05").timestamp() for m in (1, 2))
    rows = [(100 + k, 1, 3.0, jan) for k in range(weight_a)]
    rows += [(200 + k, 2, 3.0, jan) for k in range(weight_b)]
    rows += [(1, 3, 4.0, jan), (1, 3, 5.0, feb)]
    rows += [(300 + k, 4, 2.0, feb) for k in range(20)]
    rows += [(400 + k, 2, 4.0, feb) for k in range(later_b)]
    return pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])


@pytest.mark.parametrize(
    ("negatives", "share"), [("popularity", 0.1), ("uniform", 0.5)]
)
def test_negative_weights_use_counts_before_the_window(negatives, share):
    # Before February item 2 has 1 rating of 10; counting February's would
    # make it 31 of 40.
    ratings = _two_items(9, 1, later_b=30)
    drawn = []
    for seed in range(300):
        X, y = make_ranking_task(
            ratings,
            n_negatives=1,
            negatives=negatives,
            min_history=0,
            random_state=seed,
        )
        q = X[(X["user_id"] == 1)]
        assert q["item_id"].tolist() == sorted(q["item_id"])
        drawn += q.loc[y[q.index] == 0, "item_id"].tolist()
    assert len(drawn) == 300 and set(drawn) <= {1, 2}  # never item 4
    # Binomial standard error with 300 draws is at most 0.029.
    assert np.mean(np.array(drawn) == 2) == pytest.approx(share, abs=0.09)


def test_sampling_is_seeded_per_user_and_window(ratings):
    """The candidates of a query do not depend on which other queries exist."""
    X0, y0 = make_ranking_task(ratings, n_negatives=8, min_history=0, random_state=4)
    X1, y1 = make_ranking_task(ratings, n_negatives=8, min_history=6, random_state=4)
    key = ["user_id", "window_start", "item_id"]
    a = X0.assign(label=y0).drop(columns="qid")
    b = X1.assign(label=y1).drop(columns="qid")
    both = a.merge(b[["user_id", "window_start"]].drop_duplicates())
    assert len(both) > 500 and len(b) < len(a)
    pd.testing.assert_frame_equal(
        both.sort_values(key).reset_index(drop=True),
        b.sort_values(key).reset_index(drop=True),
    )


def test_short_pool_drops_the_query():
    ratings = _two_items(1, 1)
    X, _ = make_ranking_task(ratings, n_negatives=2, min_history=0, random_state=0)
    assert set(X["user_id"]) == {1}  # items 1 and 2 are both negatives
    X, _ = make_ranking_task(ratings, n_negatives=3, min_history=0, random_state=0)
    assert X.empty  # only two eligible unrated items exist


def test_min_history(ratings):
    for min_history in (0, 1, 10):
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


def row_year(ratings, item_id):
    return ratings.loc[ratings["item_id"] == item_id, "year"].iloc[0]


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
    share = {
        g: np.mean([g in s for s in user_sets]) if user_sets else 0.0 for g in item_g
    }
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
        "item_log_30d": np.log1p(len(it[it["timestamp"] >= start_s - 30 * 86400])),
        "item_share_30d": len(it[it["timestamp"] >= start_s - 30 * 86400])
        / max(1, (past["timestamp"] >= start_s - 30 * 86400).sum()),
        "item_age": ((period - _month(it["timestamp"].min())).n if len(it) else 0.0),
        "item_year": row_year(ratings, row.item_id),
        "user_log_ratings": np.log1p(len(us)),
        "user_mean_rating": us["rating"].mean() if len(us) else 0.0,
        "user_days_idle": (start_s - us["timestamp"].max()) / 86400,
        "genre_affinity": sum(share.values()) / max(len(item_g), 1),
        "genre_rating": s_ov / n_ov - us["rating"].mean() if n_ov else 0.0,
    }


def test_features_match_brute_force(ratings, task):
    X, _ = task
    for row in X.sample(60, random_state=1).itertuples():
        expected = _brute_force(ratings, row)
        got = {f: getattr(row, f) for f in FEATURES}
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-9, nan_ok=True)


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
    X, y = make_ranking_task(ratings, n_negatives=0, min_history=2, random_state=0)
    # Only user 1 in March has two earlier ratings. Candidates: item 30 (rated
    # 4.5, the label), rated before March by user 2.
    assert X["qid"].tolist() == [0]
    assert X["item_id"].tolist() == [30] and y.tolist() == [4.5]
    # One negative is asked for, but every item known before March (10, 20,
    # 30) was rated by user 1: the query cannot be built and is left out.
    assert make_ranking_task(ratings, n_negatives=1, min_history=2)[0].empty
    # With no minimum history, February's user 2 on item 10... is not a
    # query: user 2 rated item 30 in February, unknown before February.
    X0, y0 = make_ranking_task(ratings, n_negatives=0, min_history=0)
    assert X0["item_id"].tolist() == [30] and y0.tolist() == [4.5]
    row = X.iloc[0]
    assert row["window_start"] == pd.Timestamp("2020-03-01")
    # Item 30 before March: one rating (3.5, February); global mean 3.625.
    assert row["item_log_ratings"] == pytest.approx(np.log1p(1))
    assert row["item_mean_rating"] == pytest.approx((3.5 + 5 * 3.625) / 6)
    assert row["item_age"] == 1  # first rated in February
    # The 30 days before March 1st (from January 31st) hold one rating, of 30.
    assert row["item_log_30d"] == pytest.approx(np.log1p(1))
    assert row["item_share_30d"] == pytest.approx(1.0)
    assert np.isnan(row["item_year"])
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
        # An item keeps its catalogue entry (genres, year) when it moves.
        for cols in (["user_id"], ["item_id", "genres", "year"], ["rating"]):
            altered.loc[idx, cols] = altered.loc[idx, cols].to_numpy()[
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
        ({"min_history": -1}, ValueError, "'min_history' parameter"),
        ({"negatives": "zipf"}, ValueError, "'negatives' parameter"),
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
    # An infinite rating made every user mean NaN without a word.
    for value in (np.inf, -np.inf):
        bad = ratings.assign(rating=ratings["rating"].where(ratings.index != 3, value))
        with pytest.raises(ValueError, match=rf"must be >= 0, found {value}.*finite"):
            make_ranking_task(bad)
    bad = ratings.assign(year=ratings["year"].where(ratings.index != 3, np.inf))
    with pytest.raises(ValueError, match=r"'year'\] must be finite .* holding inf"):
        make_ranking_task(bad)
    bad = ratings.assign(genres=ratings["genres"].where(ratings.index != 3, 7))
    with pytest.raises(ValueError, match=r"'genres'\] must hold .* found 7 \(int\)"):
        make_ranking_task(bad)  # failed in pandas' .str accessor


def test_no_query_gives_empty_frame():
    one = pd.DataFrame(
        {"user_id": [1], "item_id": [2], "rating": [4.0], "timestamp": [5]}
    )
    X, y = make_ranking_task(one)
    assert X.shape == (0, 16) and y.shape == (0,)
    assert list(X.columns[4:]) == FEATURES


def test_float_seconds_keep_their_fractions():
    # Times were cut to whole seconds: ratings within one second lost their
    # order (so the item's year came from the later one) and user_days_idle
    # counted from the cut second.
    from skndcg.datasets import CandidateFeatures

    day0 = pd.Timestamp("2024-01-01").value // 10**9
    log = pd.DataFrame(
        {
            "user_id": [1, 2, 3, 1],
            "item_id": [10, 10, 11, 11],
            "rating": [4.0, 3.0, 5.0, 2.0],
            "timestamp": [day0 + 100.75, day0 + 100.25, day0 + 50, day0 + 86_410.5],
            "year": [2001.0, 1999.0, 1990.0, 1990.0],
        }
    )
    X, _ = make_ranking_task(log, window="D", n_negatives=0, min_history=0)
    assert X[["user_id", "item_id"]].values.tolist() == [[1, 11]]
    assert X["user_days_idle"].iloc[0] == (86_400 - 100.75) / 86_400
    F = CandidateFeatures(log, window="D").at(X["window_start"].iloc[0])([1], [10, 11])
    assert F["user_days_idle"].tolist() == [(86_400 - 100.75) / 86_400] * 2
    assert F["item_year"].tolist() == [1999.0, 1990.0]  # the first in time
    # Whole seconds as floats give the numbers of integer seconds.
    ratings = make_movielens_like(60, 300, 3000, random_state=1)
    as_int = make_ranking_task(ratings, n_negatives=5, random_state=0)
    as_float = make_ranking_task(
        ratings.assign(timestamp=ratings["timestamp"] * 1.0),
        n_negatives=5,
        random_state=0,
    )
    pd.testing.assert_frame_equal(as_int[0], as_float[0])
    np.testing.assert_array_equal(as_int[1], as_float[1])


def test_float_seconds_before_1970():
    # -0.5 was cut to 0, moving the rating into the day of 1970-01-01, so the
    # item had no earlier rating and the query vanished; the user's last time
    # started at 0, so an idle user before 1970 read 0 days.
    log = pd.DataFrame(
        {
            "user_id": [3, 1, 1],
            "item_id": [11, 12, 11],
            "rating": [5.0, 4.0, 2.0],
            "timestamp": [-0.5, -43_200.25, 10.0],
        }
    )
    X, _ = make_ranking_task(log, window="D", n_negatives=0, min_history=0)
    assert X[["user_id", "item_id"]].values.tolist() == [[1, 11]]
    assert X["window_start"].tolist() == [pd.Timestamp("1970-01-01")]
    assert X["user_days_idle"].tolist() == [43_200.25 / 86_400]
    assert X["item_log_30d"].tolist() == [np.log1p(1)]
    whole = log.assign(timestamp=[-1, -43_200, 10])  # whole seconds read 0 days
    X, _ = make_ranking_task(whole, window="D", n_negatives=0, min_history=0)
    assert X["user_days_idle"].tolist() == [0.5]
