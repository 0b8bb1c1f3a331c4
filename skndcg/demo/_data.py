"""The demo's data: loading, the item catalogue, the hold-out cut, cold ratings."""

from __future__ import annotations

import numpy as np
import pandas as pd

_YEAR = r"\((\d{4})\)\s*$"


def release_years(items):
    """Release year of each catalogue item from a title ending in ``(YYYY)``."""
    titles = items["title"].astype("object").fillna("")
    year = pd.to_numeric(titles.str.extract(_YEAR)[0], errors="coerce")
    return pd.Series(year.to_numpy(dtype=np.float64), index=items["item_id"])


def load(data, fetch, quick, random_state):
    """Ratings (with the item's release year) and where they come from."""
    from ..datasets import fetch_movielens, load_movielens, make_movielens_like

    if data is not None:
        ratings, items = load_movielens(data, return_items=True)
        source = f"MovieLens files at {data}"
    elif fetch is not None:
        ratings, items = fetch_movielens(fetch, return_items=True)
        source = f"MovieLens {fetch} (downloaded once, cached)"
    else:
        # The default is the size of MovieLens 100K (943 users, 100,000
        # ratings): a hold-out of several hundred queries.
        size = (300, 3000, 30_000) if quick else (943, 6000, 100_000)
        ratings, items = make_movielens_like(
            *size, half_stars=True, return_items=True, random_state=random_state
        )
        source = "built-in synthetic MovieLens-like ratings"
    year = ratings["item_id"].map(release_years(items))
    return ratings.assign(year=year.to_numpy(dtype=np.float64)), source


def cap_users(ratings, max_ratings, random_state):
    """Keep a seeded random subset of users holding at most ``max_ratings``."""
    if not max_ratings or len(ratings) <= max_ratings:
        return ratings
    counts = ratings.groupby("user_id").size()
    rng = np.random.default_rng(random_state)
    order = counts.index.to_numpy()[rng.permutation(counts.size)]
    total = np.cumsum(counts.loc[order].to_numpy())
    keep = order[: max(1, int(np.searchsorted(total, max_ratings, side="right")))]
    return ratings[ratings["user_id"].isin(keep)].reset_index(drop=True)


def holdout_cut(ratings, share=0.8):
    """The month boundary nearest the ``share`` point of the time span.

    Returns the boundary (a Timestamp) and the share of the span after it.
    """
    ts = ratings["timestamp"].to_numpy(dtype=np.int64)
    t0, t1 = int(ts.min()), int(ts.max())
    target = t0 + share * (t1 - t0)
    first = pd.Timestamp(t0, unit="s").to_period("M").start_time
    last = pd.Timestamp(t1, unit="s").to_period("M").start_time
    bounds = pd.date_range(first, last, freq="MS")
    secs = bounds.as_unit("s").asi8
    inside = (secs > t0) & (secs <= t1)
    if not inside.any():
        raise ValueError(
            "the ratings span less than one month boundary; the demo needs "
            "several months of data for a time-ordered hold-out."
        )
    bounds, secs = bounds[inside], secs[inside]
    best = int(np.argmin(np.abs(secs - target)))
    return bounds[best], (t1 - secs[best]) / max(t1 - t0, 1)


def months(timestamp):
    """The calendar month (a period) of each Unix-second time."""
    return pd.to_datetime(timestamp, unit="s").dt.to_period("M")


def cold_ratings(ratings):
    """Mask of the ratings whose item nobody rated in an earlier month: no
    negative can be such an item, so they are dropped as positives."""
    month = months(ratings["timestamp"])
    return (month == month.groupby(ratings["item_id"]).transform("min")).to_numpy()
