"""Full-catalogue evaluation of dask frames on a cluster: users partitioned,
the report equal to the one computed in memory."""

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from scale_cases import local_cluster  # noqa: E402

from skndcg.evaluation import full_catalogue_report  # noqa: E402

METRICS = ["ndcg@10", "recall@10", "map@10", "mrr@10", "err@10"]


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def _log(seed=0, n_users=240, n_items=90, n_rows=5000):
    rng = np.random.default_rng(seed)
    log = pd.DataFrame(
        {
            "user_id": rng.integers(0, n_users, n_rows),
            "item_id": rng.integers(0, n_items, n_rows),
            "rating": rng.integers(1, 6, n_rows).astype(float),
        }
    ).drop_duplicates(["user_id", "item_id"], ignore_index=True)
    is_test = rng.random(len(log)) < 0.2
    U = rng.normal(size=(n_users, 6))
    V = rng.normal(size=(n_items, 6))
    return log[~is_test], log[is_test], U, V


@pytest.mark.parametrize("parts", [(1, 1), (4, 3), (7, 5)])
def test_equals_the_in_memory_report(client, parts):
    train, test, U, V = _log()
    want = full_catalogue_report(
        (U, V), train, test, metrics=METRICS, top_n=20, block_size=32
    )
    got = full_catalogue_report(
        (U, V),
        dd.from_pandas(train, npartitions=parts[0]),
        dd.from_pandas(test, npartitions=parts[1]),
        metrics=METRICS,
        top_n=20,
        block_size=32,
    )
    assert got["qid"].tolist() == want["qid"].tolist()
    assert np.abs(got[METRICS].to_numpy() - want[METRICS].to_numpy()).max() <= 1e-12
    pd.testing.assert_frame_equal(got, want)
    assert got.attrs["timings"]["top_k"] > 0


def test_function_model_candidates_and_a_pandas_side(client):
    train, test, U, V = _log(seed=1)
    scores = U @ V.T

    def score(users, items):
        return scores[np.ix_(users, items)]

    want, want_cand = full_catalogue_report(
        score, train, test, metrics=METRICS, top_n=15, return_candidates=True
    )
    got, cand = full_catalogue_report(
        score,
        train,  # pandas: sent to the workers with the dask side's partitions
        dd.from_pandas(test, npartitions=4),
        metrics=METRICS,
        top_n=15,
        return_candidates=True,
    )
    pd.testing.assert_frame_equal(got, want)
    key = ["user_id", "item_id"]
    pd.testing.assert_frame_equal(
        cand.sort_values(key, ignore_index=True),
        want_cand.sort_values(key, ignore_index=True),
    )


def test_errors_reach_the_caller(client):
    train, test, U, V = _log(seed=2)
    ddf = dd.from_pandas(test, npartitions=2)
    with pytest.raises(ValueError, match="top_n=500 is larger than the 90 eligible"):
        full_catalogue_report((U, V), train, ddf, metrics=["ndcg@10"], top_n=500)
    with pytest.raises(ValueError, match="nothing to evaluate"):
        # Every held-out item is one the user has seen: none is eligible.
        full_catalogue_report(
            (U, V),
            dd.from_pandas(pd.concat([train, test]), npartitions=2),
            ddf,
            metrics=["ndcg@10"],
            top_n=10,
        )
    with pytest.raises(ValueError, match=r"test must have the columns"):
        full_catalogue_report(
            (U, V), train, ddf.rename(columns={"item_id": "item"}), metrics="ndcg@10"
        )
    with pytest.raises(TypeError, match="train must be a pandas or dask DataFrame"):
        full_catalogue_report((U, V), train.to_numpy(), ddf, metrics="ndcg@10")
