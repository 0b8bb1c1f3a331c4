"""The demo's per-item estimates: the pools the negatives came from."""

import numpy as np
import pandas as pd

from skndcg.datasets import make_movielens_like, make_ranking_task
from skndcg.demo import _estimates


def test_pools_match_a_brute_force_count():
    ratings = make_movielens_like(40, 80, 1500, random_state=1)
    X, _ = make_ranking_task(ratings, n_negatives=5, min_history=0, random_state=0)
    pools = _estimates.pools(ratings, X)
    month = pd.to_datetime(ratings["timestamp"], unit="s").dt.to_period("M")
    queries = X.groupby("qid")[["user_id", "window_start"]].first()
    for qid, (user, start) in queries.sample(25, random_state=0).iterrows():
        w = start.to_period("M")
        before = ratings[month < w]
        mine = ratings[(ratings["user_id"] == user) & (month <= w)]
        pool = set(before["item_id"]) - set(mine["item_id"])
        assert pools.loc[qid, "n"] == len(pool)
        assert pools.loc[qid, "weight"] == before["item_id"].isin(pool).sum()
        # The sampled negatives of the query all come from that pool.
        rows = X[(X["qid"] == qid)]
        assert set(rows["item_id"]) - set(mine["item_id"]) <= pool


def test_estimates_rows_and_orders():
    ratings = make_movielens_like(60, 150, 3000, random_state=2)
    X, y = make_ranking_task(ratings, n_negatives=10, min_history=0, random_state=0)
    pools = _estimates.pools(ratings, X)
    scores = {"pop": X["item_log_ratings"].to_numpy(), "flat": np.zeros(len(X))}
    for mode in ("uniform", "popularity"):
        table = _estimates.estimates(scores, X, y, pools, mode)
        assert len(table) == 2 * 2 * 3
        lines = _estimates.orders(table)
        assert [ln.split(":")[0] for ln in lines] == [
            "ndcg@10 raw",
            "ndcg@10 adjusted",
            "ndcg@10 bv",
        ]
        text = _estimates.text_table(table, ["pop", "flat"])
        assert text.splitlines()[0].split()[0] == "model"
