"""Label transforms, query weights, the tie rule against jitter, the pitfalls page."""

import doctest
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skndcg.metrics import (
    grouped_dcg_score,
    grouped_ndcg_score,
    log_frequency_weights,
    minmax_labels_per_query,
    ranking_report,
    sqrt_gain,
)

PITFALLS = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "pitfalls.rst"


# ------------------------------------------------------------------- sqrt_gain
def test_sqrt_gain_values_and_use_as_gain():
    np.testing.assert_allclose(sqrt_gain([0, 1, 4, 9, 2.25]), [0, 1, 2, 3, 1.5])
    assert sqrt_gain(np.array([4], dtype=np.int8)).dtype == np.float64
    y = [5, 3, 4, 1, 0, 2]
    s = [0.1, 0.4, 0.3, 0.2, 0.6, 0.5]
    q = [1, 1, 1, 1, 2, 2]
    via_gain = grouped_ndcg_score(y, s, q, k=3, gain=sqrt_gain)
    via_labels = grouped_ndcg_score(np.sqrt(y), s, q, k=3)
    assert via_gain == pytest.approx(via_labels)
    # Hand computation for query 1 at k=4: ranked labels 3, 4, 1, 5.
    d = 1 / np.log2(np.arange(2, 6))
    dcg = np.sqrt([3, 4, 1, 5]) @ d
    idcg = np.sqrt([5, 4, 3, 1]) @ d
    got = grouped_ndcg_score(y[:4], s[:4], q[:4], k=4, gain=sqrt_gain)
    assert got == pytest.approx(dcg / idcg)
    assert got > grouped_ndcg_score(y[:4], s[:4], q[:4], k=4)


@pytest.mark.parametrize(
    "y, exc, match",
    [
        ([1, -1], ValueError, r"sqrt_gain needs non-negative labels, got min -1.0"),
        (["a", "b"], TypeError, r"y must be numeric"),
        ([1.0, np.nan], ValueError, r"y contains 1 NaN or infinite"),
        ([], ValueError, r"y is empty"),
        ([[1, 2]], ValueError, r"y must be 1-D"),
    ],
)
def test_sqrt_gain_errors(y, exc, match):
    with pytest.raises(exc, match=match):
        sqrt_gain(y)


# ---------------------------------------------------- minmax_labels_per_query
def test_minmax_hand_computed():
    y = [1, 5, 3, 0, 100, 50, 7, 7]
    q = ["r", "r", "r", "c", "c", "c", "k", "k"]
    np.testing.assert_allclose(
        minmax_labels_per_query(y, q), [0, 1, 0.5, 0, 1, 0.5, 0, 0]
    )
    one = minmax_labels_per_query(y, q, constant="one")
    np.testing.assert_allclose(one[-2:], [1, 1])
    # Rows of a query need not be contiguous.
    q2 = ["r", "c", "r", "c", "r", "c", "k", "k"]
    y2 = [1, 0, 5, 100, 3, 50, 7, 7]
    np.testing.assert_allclose(
        minmax_labels_per_query(y2, q2), [0, 0, 1, 1, 0.5, 0.5, 0, 0]
    )


def test_minmax_puts_mixed_sources_on_one_scale():
    # The click query's unnormalised DCG dwarfs the rated query's; afterwards both
    # live in [0, 1] and the ideal DCG of each query is the same.
    y = [1, 5, 3, 2, 0, 100, 40, 10]
    s = [0.9, 0.8, 0.7, 0.1, 0.9, 0.8, 0.7, 0.1]
    q = ["rated"] * 4 + ["clicks"] * 4
    before = ranking_report(y, s, q, metrics=["dcg@3"])
    after = ranking_report(minmax_labels_per_query(y, q), s, q, metrics=["dcg@3"])
    assert before["dcg@3"].max() / before["dcg@3"].min() > 10
    assert after["dcg@3"].max() / after["dcg@3"].min() < 1.1
    ideal = 1 + 0.5 / np.log2(3) + 0.25 / 2  # rated: 1, 0.5, 0.25 (0.4, 0.1 clicks)
    assert after.set_index("qid").loc["rated", "idcg@3"] == pytest.approx(ideal)


@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=20),
    st.floats(0.5, 50),
    st.floats(-10, 10),
    st.randoms(use_true_random=False),
)
def test_minmax_invariances(qs, scale, shift, rnd):
    rng = np.random.default_rng(len(qs))
    y = rng.integers(0, 6, size=len(qs)).astype(float)
    base = minmax_labels_per_query(y, qs)
    assert ((base >= 0) & (base <= 1)).all()
    # A positive affine change of the labels does not move the result.
    np.testing.assert_allclose(
        minmax_labels_per_query(y * scale + shift, qs), base, atol=1e-9
    )
    perm = list(range(len(qs)))
    rnd.shuffle(perm)
    permuted = minmax_labels_per_query(y[perm], [qs[i] for i in perm])
    np.testing.assert_allclose(permuted, base[perm])


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(constant="nan"), ValueError, r"constant='nan' is not valid"),
        (dict(constant="error"), ValueError, r"query 'k' has all labels equal to 7"),
        (dict(qid=["r"] * 3), ValueError, r"qid has 3 rows but y has 4"),
        (dict(y=[1, 2, "x", 3]), TypeError, r"y must be numeric"),
        (dict(y=[1, np.inf, 2, 3]), ValueError, r"y contains 1 NaN or infinite"),
        (dict(qid=["r", None, "k", "k"]), ValueError, r"qid has 1 missing value"),
    ],
)
def test_minmax_errors(kwargs, exc, match):
    args = dict(y=[1, 2, 7, 7], qid=["r", "r", "k", "k"]) | kwargs
    with pytest.raises(exc, match=match):
        minmax_labels_per_query(**args)


def test_minmax_does_not_mutate():
    y = np.array([3.0, 1.0, 2.0])
    minmax_labels_per_query(y, [0, 0, 0])
    np.testing.assert_array_equal(y, [3.0, 1.0, 2.0])


# ------------------------------------------------------- log_frequency_weights
def test_log_frequency_weights_hand_computed():
    q = ["head", "tail", "head", "new"]
    w = log_frequency_weights(q, {"head": np.e**2 - 1, "tail": np.e - 1, "new": 0})
    np.testing.assert_allclose(w, [2, 1, 2, 0])
    per_row = log_frequency_weights(q, [np.e**2 - 1, np.e - 1, np.e**2 - 1, 0])
    np.testing.assert_allclose(per_row, w)
    series = pd.Series({"head": np.e**2 - 1, "tail": np.e - 1, "new": 0.0})
    np.testing.assert_allclose(log_frequency_weights(q, series), w)


def test_log_frequency_weights_as_sample_weight():
    y = [1, 0, 0, 1, 0, 1]
    s = [0.9, 0.1, 0.8, 0.2, 0.7, 0.3]
    q = ["head", "head", "tail", "tail", "new", "new"]
    freq = {"head": 10_000, "tail": 20, "new": 1}
    w = log_frequency_weights(q, freq)
    per_query = ranking_report(y, s, q, metrics=["ndcg@2"]).set_index("qid")
    lw = {k: np.log(v + 1) for k, v in freq.items()}
    expected = sum(per_query.loc[k, "ndcg@2"] * lw[k] for k in lw) / sum(lw.values())
    got = grouped_ndcg_score(y, s, q, k=2, sample_weight=w)
    assert got == pytest.approx(expected)
    # Between the unweighted mean and the raw-traffic mean.
    raw = np.array([freq[x] for x in q], dtype=float)
    assert grouped_ndcg_score(y, s, q, k=2) < got
    assert got < grouped_ndcg_score(y, s, q, k=2, sample_weight=raw)


@pytest.mark.parametrize(
    "frequency, exc, match",
    [
        ([1, 2, 3], ValueError, r"frequency varies within query 'a'"),
        ([1, 1], ValueError, r"frequency has 2 rows but qid has 3"),
        ([-1, -1, 2], ValueError, r"frequency must be >= 0, got min -1.0"),
        ({"a": 1}, ValueError, r"frequency lacks query 'b'"),
        ({"a": 1, "b": -2}, ValueError, r"frequency must be >= 0"),
        (
            pd.Series([1, 2, 3], index=["a", "a", "b"]),
            ValueError,
            r"frequency is indexed by query id but has duplicates",
        ),
        (["x", "x", "y"], TypeError, r"frequency must be numeric"),
        ([np.nan, np.nan, 1], ValueError, r"frequency contains 2 NaN"),
        ({"a": "x", "b": 1}, TypeError, r"frequency must be numeric"),
    ],
)
def test_log_frequency_weights_errors(frequency, exc, match):
    with pytest.raises(exc, match=match):
        log_frequency_weights(["a", "a", "b"], frequency)


# ------------------------------------------------------- ties versus jitter
def _tied_data():
    rng = np.random.default_rng(7)
    n_q, m = 12, 8
    qid = np.repeat(np.arange(n_q), m)
    y = rng.integers(0, 4, size=n_q * m)
    s = rng.integers(0, 3, size=n_q * m).astype(float)  # heavy ties
    return y, s, qid


def test_jitter_changes_ndcg_from_seed_to_seed():
    y, s, qid = _tied_data()
    values = {
        grouped_ndcg_score(
            y, s + np.random.default_rng(seed).normal(0, 1e-6, s.shape), qid, k=5
        )
        for seed in range(10)
    }
    assert len(values) > 1
    assert max(values) - min(values) > 0.005


def test_average_ties_equal_the_mean_over_jitter_seeds():
    y, s, qid = _tied_data()
    exact = grouped_ndcg_score(y, s, qid, k=5, ties="average")
    draws = np.array(
        [
            grouped_ndcg_score(
                y, s + np.random.default_rng(seed).normal(0, 1e-6, s.shape), qid, k=5
            )
            for seed in range(400)
        ]
    )
    se = draws.std() / np.sqrt(draws.size)
    assert se > 0
    assert abs(draws.mean() - exact) < 4 * se
    # The deterministic input-order rules are further away than the noise.
    stable = grouped_ndcg_score(y, s, qid, k=5, ties="stable")
    reverse = grouped_ndcg_score(y, s, qid, k=5, ties="reverse")
    assert max(abs(stable - exact), abs(reverse - exact)) > 4 * se


# ------------------------------------------------ the article's worked numbers
def test_article_numbers():
    # CG@5 of [3, 2, 3, 0, 1] is 9 (a flat discount turns DCG into CG).
    cg = grouped_dcg_score(
        [3, 2, 3, 0, 1], [5, 4, 3, 2, 1], [0] * 5, k=5, discount=np.ones(5)
    )
    assert cg == 9.0
    # [3, 2, 1, 0, 0] is its own ideal order.
    a = ranking_report([3, 2, 1, 0, 0], [5, 4, 3, 2, 1], [0] * 5, metrics=["ndcg@5"])
    assert a.loc[0, "dcg@5"] == pytest.approx(4.76, abs=0.005)
    assert a.loc[0, "ndcg@5"] == 1.0
    # [3, 3, 3, 0, 0] shown while the query holds five items of relevance 3.
    b = ranking_report(
        [3, 3, 3, 0, 0, 3, 3], [7, 6, 5, 4, 3, 2, 1], [0] * 7, metrics=["ndcg@5"]
    )
    assert b.loc[0, "dcg@5"] == pytest.approx(6.39, abs=0.005)
    assert b.loc[0, "idcg@5"] == pytest.approx(8.84, abs=0.01)
    assert b.loc[0, "ndcg@5"] == pytest.approx(0.72, abs=0.005)


def test_pitfalls_page_runs():
    failures, tried = doctest.testfile(
        str(PITFALLS),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
    )
    assert tried > 30
    assert failures == 0
