"""Agreement with XGBoost, trec_eval (pytrec_eval), ranx and CatBoost.

These peers live in the ``peers`` extra, which ``make test`` installs; each preset
must give the peer's own number on the same input, quirks included. The
torchmetrics agreement needs torch and runs apart: tests/peers_torch,
``make test-peers``.
"""

import warnings

import numpy as np
import pytest
from cases import random_case
from peers import catboost_metric, ranx_metric, trec_eval_metric, xgboost_metric

from skndcg.metrics import (
    grouped_hit_rate_score,
    grouped_map_score,
    grouped_mrr_score,
    grouped_ndcg_score,
    grouped_precision_score,
    grouped_recall_score,
)

pytestmark = pytest.mark.peers

SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS)
def test_xgboost_preset(seed):
    pytest.importorskip("xgboost")
    y, s, q, k = random_case(seed)
    name = "ndcg" if k is None else f"ndcg@{k}"
    got = grouped_ndcg_score(y, s, q, k=k, convention="xgboost")
    assert got == pytest.approx(xgboost_metric(y, s, q, name), abs=1e-6)
    got = grouped_ndcg_score(y, s, q, k=k, convention="xgboost", empty="zero")
    assert got == pytest.approx(xgboost_metric(y, s, q, name + "-"), abs=1e-6)
    got = grouped_ndcg_score(y, s, q, k=k, convention="xgboost", gain="linear")
    assert got == pytest.approx(xgboost_metric(y, s, q, name, linear=True), abs=1e-6)


def test_xgboost_preset_k_none_is_ndcg_at_32():
    pytest.importorskip("xgboost")
    rng = np.random.default_rng(1)
    q = np.repeat([0, 1], [50, 40])
    y = np.zeros(90, dtype=int)
    y[[45, 85]] = 3  # relevant rows ranked below 32
    s = -np.arange(90.0)
    assert grouped_ndcg_score(y, s, q, k=None, convention="xgboost") == 0.0
    assert xgboost_metric(y, s, q, "ndcg") == 0.0
    assert grouped_ndcg_score(y, s, q, k=None) > 0.0
    del rng


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_preset(seed):
    pytest.importorskip("pytrec_eval")
    y, s, q, k = random_case(seed, labels=(-1, 4))
    for key in np.unique(q):
        rows = np.flatnonzero(q == key)
        if (y[rows] < 0).all():
            y[rows[0]] = 0  # see peers.trec_eval_metric
    measure = "ndcg" if k is None else f"ndcg_cut_{k}"
    want = trec_eval_metric(y, s, q, measure)
    got = grouped_ndcg_score(y, s, q, k=k, convention="pytrec_eval")
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(0, 40, 2))
def test_trec_eval_preset_family(seed):
    pytest.importorskip("pytrec_eval")
    y, s, q, k = random_case(seed, labels=(0, 3))
    k = k or 5
    kw = {"convention": "pytrec_eval", "k": k}
    pairs = [
        (grouped_map_score(y, s, q, **kw), f"map_cut_{k}"),
        (grouped_precision_score(y, s, q, **kw), f"P_{k}"),
        (grouped_recall_score(y, s, q, **kw), f"recall_{k}"),
        (grouped_mrr_score(y, s, q, convention="pytrec_eval"), "recip_rank"),
        (grouped_map_score(y, s, q, k=None, convention="pytrec_eval"), "map"),
    ]
    for got, measure in pairs:
        assert got == pytest.approx(trec_eval_metric(y, s, q, measure), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_ranx_preset(seed):
    pytest.importorskip("ranx")
    # Up to 30 rows per query: ranx's sort is unstable from 16 tied rows on.
    y, s, q, k = random_case(seed, max_size=30)
    at = "" if k is None else f"@{k}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert grouped_ndcg_score(y, s, q, k=k, convention="ranx") == pytest.approx(
            ranx_metric(y, s, q, f"ndcg{at}"), abs=1e-12
        )
        got = grouped_ndcg_score(y, s, q, k=k, convention="ranx", gain="exponential")
        assert got == pytest.approx(ranx_metric(y, s, q, f"ndcg_burges{at}"), abs=1e-12)


@pytest.mark.parametrize("seed", range(0, 40, 2))
def test_ranx_preset_family(seed):
    pytest.importorskip("ranx")
    y, s, q, k = random_case(seed, max_size=20, labels=(0, 3))
    at = "" if k is None else f"@{k}"
    kw = {"convention": "ranx", "k": k}
    pairs = [
        (grouped_map_score(y, s, q, **kw), f"map{at}"),
        (grouped_mrr_score(y, s, q, **kw), f"mrr{at}"),
        (grouped_recall_score(y, s, q, **kw), f"recall{at}"),
        (grouped_hit_rate_score(y, s, q, **kw), f"hit_rate{at}"),
    ]
    if k is not None:
        pairs.append((grouped_precision_score(y, s, q, **kw), f"precision{at}"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for got, metric in pairs:
            assert got == pytest.approx(ranx_metric(y, s, q, metric), abs=1e-12), metric


@pytest.mark.parametrize("seed", SEEDS)
def test_catboost_preset(seed):
    # CatBoost's NDCG:top=k (defaults type=Base, denominator=LogPosition): linear
    # gain, log2 discount, a query without relevant rows scores 1, and tied
    # scores put the least relevant row first, whatever the row order.
    pytest.importorskip("catboost")
    y, s, q, k = random_case(seed)
    metric = "NDCG" if k is None else f"NDCG:top={k}"
    want = catboost_metric(y, s, q, metric)
    got = grouped_ndcg_score(y, s, q, k=k, convention="catboost")
    assert got == pytest.approx(want, abs=1e-12)
    perm = np.random.default_rng(seed).permutation(y.size)
    again = grouped_ndcg_score(y[perm], s[perm], q[perm], k=k, convention="catboost")
    assert again == pytest.approx(want, abs=1e-12)
    exp = catboost_metric(y, s, q, f"{metric}{';' if k else ':'}type=Exp")
    got = grouped_ndcg_score(y, s, q, k=k, convention="catboost", gain="exponential")
    assert got == pytest.approx(exp, abs=1e-12)


def test_catboost_preset_needs_its_tie_rule():
    # On the same cases, averaged ties differ from CatBoost's in some of them.
    pytest.importorskip("catboost")
    differ = 0
    for seed in SEEDS:
        y, s, q, k = random_case(seed)
        metric = "NDCG" if k is None else f"NDCG:top={k}"
        averaged = grouped_ndcg_score(y, s, q, k=k, gain="linear", empty="one")
        differ += abs(averaged - catboost_metric(y, s, q, metric)) > 1e-9
    assert differ >= 5
