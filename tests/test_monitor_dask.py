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
