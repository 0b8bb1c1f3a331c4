"""Small, shuffled ranking frames with id, time and string columns, as users have."""

from __future__ import annotations

import numpy as np
import pandas as pd

FEATURES = ["f1", "f2"]
ROLES = {"time_col": "ts", "drop_cols": ["user_id", "item_id"]}


def ranking_frame(n_queries=36, per_query=10, *, seed=0, shuffle=True, scale=1.0):
    """One query per user-week: query ``q`` lives on days ``7q .. 7q+2``.

    Columns: ``qid``, ``ts`` (datetime), ``user_id`` (str), ``item_id`` (int) and
    the features ``f1``, ``f2`` (multiplied by ``scale`` and shifted by
    ``100 * scale``: a scaler then changes them a lot). Labels 0..3 follow the
    features with noise. Rows are shuffled unless ``shuffle=False`` (then they
    are in time order).
    """
    rng = np.random.default_rng(seed)
    n = n_queries * per_query
    qid = np.repeat(np.arange(n_queries) + 100, per_query)
    day = (qid - 100) * 7 + rng.integers(0, 3, n)
    f1, f2 = rng.normal(size=n), rng.normal(size=n)
    latent = f1 + 0.5 * f2 + rng.normal(scale=0.5, size=n)
    y = np.clip(np.round(latent + 1.0), 0, 3).astype(int)
    X = pd.DataFrame(
        {
            "qid": qid,
            "ts": pd.Timestamp("2024-01-01") + pd.to_timedelta(day, unit="D"),
            "user_id": np.array([f"u{q % 7}" for q in qid], dtype=object),
            "item_id": rng.integers(0, 500, n),
            "f1": 100 * scale + scale * f1,
            "f2": 100 * scale + scale * f2,
        }
    )
    if not shuffle:  # in time order
        order = np.argsort(X["ts"].to_numpy(), kind="stable")
        X, y = X.iloc[order].reset_index(drop=True), y[order]
    else:
        order = rng.permutation(n)
        X, y = X.iloc[order].reset_index(drop=True), y[order]
        X.index = rng.permutation(n)  # a shuffled index, as after df.sample(frac=1)
    return X, y


def split_by_time(X, y, fraction=0.25):
    """The latest ``fraction`` of queries (by time) apart from the rest."""
    starts = X.groupby("qid")["ts"].min().sort_values()
    late = set(starts.index[int(len(starts) * (1 - fraction)) :])
    mask = X["qid"].isin(late).to_numpy()
    return X[~mask], y[~mask], X[mask], y[mask]


def to_polars(X):
    """The frame as a polars DataFrame, without pyarrow (not a test dependency)."""
    import polars as pl

    return pl.DataFrame(
        {
            c: X[c].tolist() if X[c].dtype == object else X[c].to_numpy()
            for c in X.columns
        }
    )
