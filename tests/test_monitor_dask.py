"""metric_over_time on a Dask DataFrame equals the in-memory result."""

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from scale_cases import local_cluster

from skndcg.evaluation import metric_over_time


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def _frame(seed):
    rng = np.random.default_rng(seed)
    n_queries, per = 400, 6
    qid = np.repeat(rng.permutation(n_queries), per)
    start = pd.Timestamp("2024-05-01") + pd.to_timedelta(
        rng.uniform(0, 6 * 3600, n_queries), unit="s"
    )
    df = pd.DataFrame(
        {
            "qid": qid,
            "label": rng.integers(0, 3, qid.size),
            "score": rng.normal(size=qid.size),
            "time": start[qid] + pd.to_timedelta(rng.uniform(0, 60, qid.size), "s"),
        }
    )
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("seed", [0, 1])
def test_dask_equals_in_memory(client, seed):
    df = _frame(seed)
    kw = dict(freq="30min", metrics=["ndcg@5", "map"], baseline_windows=2)
    want = metric_over_time("label", "score", "qid", "time", data=df, **kw)
    ddf = dd.from_pandas(df, npartitions=4)
    got = metric_over_time("label", "score", "qid", "time", data=ddf, **kw)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)
    arrays = metric_over_time(
        df["label"].to_numpy(), df["score"], df["qid"], df["time"], **kw
    )
    pd.testing.assert_frame_equal(arrays, want)


def test_dask_bad_column(client):
    ddf = dd.from_pandas(_frame(0), npartitions=2)
    with pytest.raises(ValueError, match=r"time must name one of its columns"):
        metric_over_time("label", "score", "qid", "when", data=ddf, freq="1h")


@pytest.mark.parametrize("time_format", [None, "%d/%m/%Y %I:%M %p"])
def test_dask_parses_times_before_taking_each_querys_first(client, time_format):
    # As text, "02/02/2024" < "13/01/2024" and "01:00 AM" < "11:00 AM" < "12:30 PM"
    # < "12:45 AM": a query's start is its earliest parsed time, as in memory.
    times = {
        0: ["02/02/2024 10:00 AM", "13/01/2024 10:00 AM"],
        1: ["03/02/2024 12:45 AM", "03/02/2024 12:30 PM"],
        2: ["03/02/2024 11:00 AM", "03/02/2024 01:00 AM", "03/02/2024 12:10 AM"],
        3: ["05/02/2024 09:00 PM", "04/02/2024 11:00 PM"],
    }
    rows = [(q, t) for q, ts in times.items() for t in ts]
    df = pd.DataFrame(rows, columns=["qid", "time"])
    df["label"] = np.arange(len(df)) % 3
    df["score"] = np.linspace(1.0, 0.0, len(df))
    kw = dict(freq="1D", metrics="ndcg", empty_windows="keep", time_format=time_format)
    want = metric_over_time("label", "score", "qid", "time", data=df, **kw)
    assert want["window"].min() == pd.Timestamp("2024-01-13")
    # Only the first partition tells that these dates are written day first.
    ddf = dd.from_pandas(df, npartitions=3, sort=False)
    got = metric_over_time("label", "score", "qid", "time", data=ddf, **kw)
    pd.testing.assert_frame_equal(got, want)


def test_dask_refuses_a_missing_time_as_in_memory(client):
    df = _frame(0)
    df["time"] = df["time"].astype(str).astype(object)
    df.loc[len(df) - 1, "time"] = None
    with pytest.raises(ValueError, match=r"'time' has 1 missing value\(s\)"):
        metric_over_time("label", "score", "qid", "time", data=df, freq="1h")
    ddf = dd.from_pandas(df, npartitions=2, sort=False)
    with pytest.raises(ValueError, match=r"'time' \(partition 1\) has 1 missing"):
        metric_over_time("label", "score", "qid", "time", data=ddf, freq="1h")
