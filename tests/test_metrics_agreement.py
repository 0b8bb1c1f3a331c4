"""Agreement with scikit-learn and LightGBM, which skndcg installs anyway."""

import numpy as np
import pytest
from cases import random_case
from peers import lightgbm_metric, sklearn_ndcg
from sklearn.metrics import ndcg_score

from skndcg.metrics import grouped_map_score, grouped_ndcg_score

SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_preset_matches_ndcg_score(seed):
    y, s, q, k = random_case(seed)
    want = sklearn_ndcg(y, s, q, k)
    got = grouped_ndcg_score(y, s, q, k=k, convention="sklearn")
    assert got == pytest.approx(want, abs=1e-12)


def test_sklearn_preset_matches_per_query_mean_and_weights():
    rng = np.random.default_rng(3)
    Y = rng.integers(0, 4, (40, 8))
    S = np.round(rng.normal(size=(40, 8)), 1)
    w = rng.uniform(0.5, 2.0, 40)
    q = np.repeat(np.arange(40), 8)
    for k in (1, 3, None):
        want = ndcg_score(Y, S, k=k)
        assert grouped_ndcg_score(
            Y.ravel(), S.ravel(), q, k=k, convention="sklearn"
        ) == pytest.approx(want, abs=1e-13)
        want_w = ndcg_score(Y, S, k=k, sample_weight=w)
        got_w = grouped_ndcg_score(
            Y.ravel(),
            S.ravel(),
            q,
            k=k,
            convention="sklearn",
            sample_weight=np.repeat(w, 8),
        )
        assert got_w == pytest.approx(want_w, abs=1e-13)


def test_default_equals_sklearn_on_queries_with_a_relevant_item():
    # The default convention differs from sklearn only in skipping empty queries.
    rng = np.random.default_rng(5)
    Y = rng.integers(1, 4, (25, 6))
    S = rng.integers(0, 3, (25, 6)).astype(float)
    q = np.repeat(np.arange(25), 6)
    assert grouped_ndcg_score(Y.ravel(), S.ravel(), q, k=4) == pytest.approx(
        ndcg_score(Y, S, k=4), abs=1e-13
    )


lgb = pytest.importorskip("lightgbm")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("linear", [False, True])
def test_lightgbm_preset_matches_lightgbm_ndcg(seed, linear):
    y, s, q, k = random_case(seed)
    want = lightgbm_metric(y, s, q, "ndcg", k, linear=linear)
    got = grouped_ndcg_score(
        y, s, q, k=k, convention="lightgbm", gain="linear" if linear else None
    )
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_lightgbm_preset_matches_lightgbm_map(seed):
    y, s, q, k = random_case(seed, labels=(0, 2))
    want = lightgbm_metric(y, s, q, "map", k)
    got = grouped_map_score(y, s, q, k=k, convention="lightgbm")
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_lightgbm_preset_reproduces_weighted_quirk(seed):
    y, s, q, k = random_case(seed)
    rng = np.random.default_rng(seed)
    keys = np.unique(q)
    per_query = dict(zip(keys, rng.uniform(0.1, 3.0, keys.size), strict=True))
    w = np.array([per_query[v] for v in q])
    want = lightgbm_metric(y, s, q, "ndcg", k, sample_weight=w)
    got = grouped_ndcg_score(y, s, q, k=k, convention="lightgbm", sample_weight=w)
    assert got == pytest.approx(want, abs=1e-7)
