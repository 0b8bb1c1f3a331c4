"""Shared data and a loopback Dask cluster for the scale-out tests."""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd

from skndcg.metrics import grouped_ranking_scores

METRICS = ["ndcg@3", "ndcg", "dcg@2", "map@5", "mrr", "p@2", "r@3", "hit@2"]


def in_memory(df, metrics=METRICS, weight=None, **options):
    sw = None if weight is None else df[weight].to_numpy()
    return grouped_ranking_scores(
        df["label"].to_numpy(),
        df["score"].to_numpy(),
        df["qid"],
        metrics,
        sample_weight=sw,
        **options,
    )


def assert_same(got, expected):
    assert list(got) == list(expected)
    for name, value in expected.items():
        if np.isnan(value):
            assert np.isnan(got[name]), name
        else:
            assert abs(got[name] - value) <= 1e-12, (name, got[name], value)


def table(seed=0, n_queries=40, max_size=12, qid_kind="int"):
    """Rows of queries in random order: ties, empty and one-row queries."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, n_queries)
    ids = np.arange(n_queries) * 7 + 3
    qid = np.repeat(ids, sizes)
    label = rng.integers(0, 4, qid.size)
    for g in ids[rng.random(n_queries) < 0.2]:
        label[qid == g] = 0  # queries with nothing relevant
    score = np.round(rng.normal(size=qid.size), 1)  # many ties
    weight = np.repeat(rng.uniform(0.1, 2.0, n_queries), sizes)
    df = pd.DataFrame(
        {"qid": qid, "label": label, "score": score, "w": weight, "doc": 0}
    )
    df["doc"] = rng.permutation(len(df))
    df = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
    if qid_kind == "str":
        df["qid"] = "q" + df["qid"].astype(str)
    elif qid_kind == "category":
        df["qid"] = ("q" + df["qid"].astype(str)).astype("category")
    return df


@contextlib.contextmanager
def local_cluster():
    """Two worker processes, one thread each, listening on loopback only."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()
