"""Exposure Gini, entropy and distributional coverage of a set of lists."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.metrics import (
    distributional_coverage_score,
    exposure_entropy_score,
    exposure_gini_score,
)

FUNCS = (exposure_gini_score, exposure_entropy_score, distributional_coverage_score)


def test_by_hand():
    item, score, qid = ["a", "b", "a", "c"], [2, 1, 2, 1], [1, 1, 2, 2]
    # k = 2: exposure a 2, b 1, c 1 (shares 1/2, 1/4, 1/4).
    assert exposure_entropy_score(item, score, qid, k=2) == 1.5
    # Gini over sorted (1, 1, 2): sum((2i - 4) e) / (3 * 4) = (-2 + 0 + 4) / 12.
    assert exposure_gini_score(item, score, qid, k=2) == pytest.approx(1 / 6)
    # With a catalogue of 4 the unexposed item counts as 0: (0, 1, 1, 2).
    assert exposure_gini_score(item, score, qid, k=2, catalog=4) == pytest.approx(
        (-3 * 0 - 1 * 1 + 1 * 1 + 3 * 2) / (4 * 4)
    )
    assert distributional_coverage_score(item, score, qid, k=2, catalog=4) == 0.75
    # Equal exposure: Gini 0, coverage 1.
    even = (["a", "b", "c", "d"], [1, 1, 1, 1], [1, 2, 3, 4])
    assert exposure_gini_score(*even, k=1) == 0.0
    assert distributional_coverage_score(*even, k=1) == pytest.approx(1.0)


def test_log2_weighting_by_hand():
    item, score, qid = ["a", "b", "b", "a"], [2, 1, 2, 1], [1, 1, 2, 2]
    # Every item once at rank 1 (weight 1) and once at rank 2 (1 / log2 3).
    e = 1 + 1 / math.log2(3)
    assert exposure_gini_score(item, score, qid, k=2, weighting="log2") == 0.0
    # Tie of two rows at ranks 1-2, k = 1: each gets half of rank 1's weight.
    got = exposure_entropy_score(["a", "b"], [1, 1], [1, 1], k=1, weighting="log2")
    assert got == pytest.approx(1.0)
    assert e > 1


def _brute_exposure(item, score, qid, k, catalog, weighting):
    e = dict.fromkeys(range(catalog), 0.0)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        top = rows[np.argsort(-score[rows], kind="stable")][:k]
        for rank, r in enumerate(top, start=1):
            e[item[r]] += 1.0 if weighting == "uniform" else 1 / math.log2(rank + 1)
    return np.array(list(e.values()))


def _brute_gini(e):
    n, total = e.size, e.sum()
    return sum(abs(a - b) for a in e for b in e) / (2 * n * total)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighting", ["uniform", "log2"])
def test_against_brute_force(seed, weighting):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(15), rng.integers(1, 8, 15))
    item = rng.integers(0, 20, qid.size)
    score = rng.permutation(qid.size).astype(float)
    for k in (1, 3, 10):
        e = _brute_exposure(item, score, qid, k, 25, weighting)
        kw = dict(k=k, catalog=25, weighting=weighting)
        assert exposure_gini_score(item, score, qid, **kw) == pytest.approx(
            _brute_gini(e), rel=1e-12
        )
        s = e[e > 0] / e.sum()
        h = -np.sum(s * np.log2(s))
        assert exposure_entropy_score(item, score, qid, **kw) == pytest.approx(h)
        assert distributional_coverage_score(item, score, qid, **kw) == pytest.approx(
            h / math.log2(25)
        )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 5))
def test_invariances(seed, k):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(10), rng.integers(1, 6, 10))
    item = rng.integers(0, 12, qid.size)
    score = rng.integers(0, 4, qid.size).astype(float)  # ties on purpose
    perm = rng.permutation(qid.size)
    for f in FUNCS:
        base = f(item, score, qid, k=k, catalog=12)
        assert f(item[perm], score[perm], qid[perm], k=k, catalog=12) == (
            pytest.approx(base)
        )
        assert f(item + 100, score, qid.astype(str), k=k, catalog=12) == (
            pytest.approx(base)
        )
        assert f(item, np.exp(score), qid, k=k, catalog=12) == pytest.approx(base)
    gini = exposure_gini_score(item, score, qid, k=k, catalog=12)
    assert 0.0 <= gini < 1.0


def test_bad_arguments():
    args = (["a", "b"], [1, 2], [1, 1])
    with pytest.raises(ValueError, match="weighting='dcg' is not valid"):
        exposure_gini_score(*args, weighting="dcg")
    with pytest.raises(ValueError, match="catalog=1 is smaller than the 2 distinct"):
        exposure_entropy_score(*args, catalog=1)


def test_a_one_item_catalogue_warns():
    from sklearn.exceptions import UndefinedMetricWarning

    # A one-item catalogue has no entropy range: nan, and now a warning.
    with pytest.warns(UndefinedMetricWarning, match="one-item catalogue"):
        got = distributional_coverage_score(["a", "a"], [1, 2], [1, 2], k=1)
    assert math.isnan(got)
