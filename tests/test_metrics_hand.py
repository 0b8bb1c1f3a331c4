"""Hand-computed cases, including the worked examples of the source article."""

import math

import numpy as np
import pytest

from skndcg.metrics import (
    grouped_dcg_score,
    grouped_hit_rate_score,
    grouped_map_score,
    grouped_mrr_score,
    grouped_ndcg_score,
    ranking_report,
)

LOG2 = [1 / math.log2(r + 1) for r in range(1, 12)]


def test_article_cumulative_gain_and_dcg():
    y = [3, 2, 3, 0, 1]
    s = [5, 4, 3, 2, 1]
    q = [0] * 5
    # CG@5 is the plain sum: a flat discount of 1.
    assert grouped_dcg_score(y, s, q, k=5, discount=np.ones(5)) == 9
    want = 3 + 2 * LOG2[1] + 3 * LOG2[2] + 0 + 1 * LOG2[4]
    assert grouped_dcg_score(y, s, q, k=5) == pytest.approx(want, abs=1e-15)


def test_article_perfect_list_and_underfilled_top_five():
    assert grouped_ndcg_score([3, 2, 1, 0, 0], [5, 4, 3, 2, 1], [0] * 5, k=5) == 1.0
    # Top five carry [3, 3, 3, 0, 0] while the query holds five items of relevance 3.
    y = [3, 3, 3, 0, 0, 3, 3]
    s = [7, 6, 5, 4, 3, 2, 1]
    rep = ranking_report(y, s, [0] * 7, metrics="ndcg@5")
    assert rep["dcg@5"][0] == pytest.approx(3 + 3 * LOG2[1] + 3 * LOG2[2])
    assert rep["dcg@5"][0] == pytest.approx(6.39, abs=0.005)
    assert rep["idcg@5"][0] == pytest.approx(3 * sum(LOG2[:5]))
    assert rep["idcg@5"][0] == pytest.approx(8.845, abs=0.001)
    assert rep["ndcg@5"][0] == pytest.approx(0.72, abs=0.005)


def test_exponential_gain_by_hand():
    got = grouped_ndcg_score([2, 0, 1], [3, 2, 1], [0, 0, 0], k=3, gain="exponential")
    dcg = 3 + 0 + 1 * LOG2[2]
    idcg = 3 + 1 * LOG2[1]
    assert got == pytest.approx(dcg / idcg, abs=1e-15)


def test_tie_average_by_hand():
    # Two rows tied at the top: one relevant (label 1), one not.
    # Averaged: each position gets half a gain -> (1 + 1/log2(3)) / 2.
    got = grouped_dcg_score([1, 0], [5, 5], [0, 0], k=2)
    assert got == pytest.approx((1 + LOG2[1]) / 2, abs=1e-15)
    assert grouped_dcg_score([1, 0], [5, 5], [0, 0], k=2, ties="stable") == 1.0
    assert grouped_dcg_score([1, 0], [5, 5], [0, 0], k=2, ties="reverse") == LOG2[1]
    # Cut inside the tie block: k=1 keeps half of the expected gain.
    assert grouped_dcg_score([1, 0], [5, 5], [0, 0], k=1) == 0.5


def test_binary_metrics_with_ties_by_hand():
    # Three tied rows, one relevant: RR = (1 + 1/2 + 1/3) / 3.
    y, s, q = [0, 1, 0], [1, 1, 1], [0, 0, 0]
    assert grouped_mrr_score(y, s, q) == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert grouped_hit_rate_score(y, s, q, k=2) == pytest.approx(2 / 3)
    # AP with two relevant among three tied rows: average over the 3 placements
    # of the irrelevant row: (1 + 1)/2, (1 + 2/3)/2, (1/2 + 2/3)/2.
    want = ((1 + 1) / 2 + (1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 3
    assert grouped_map_score([1, 1, 0], [1, 1, 1], [0, 0, 0], k=None) == pytest.approx(
        want
    )


def test_mean_over_queries_and_skipping():
    y = [1, 0, 0, 0, 1]
    s = [2, 1, 2, 1, 0]
    q = ["a", "a", "b", "b", "c"]
    # a: 1, b: empty (skipped), c: 1 (one row).
    assert grouped_ndcg_score(y, s, q) == 1.0
    assert grouped_ndcg_score(y, s, q, empty="zero") == pytest.approx(2 / 3)
    assert grouped_ndcg_score(y, s, q, empty="one") == 1.0
    rep = ranking_report(y, s, q, metrics="ndcg@10")
    assert rep["skipped"].tolist() == ["", "no relevant item: ideal DCG@10 is 0", ""]
    assert rep["n_items"].tolist() == [2, 2, 1]
    assert rep["n_relevant"].tolist() == [1, 0, 1]


def test_k_larger_than_the_query_and_k_none():
    y, s, q = [0, 1, 2], [3, 2, 1], [0, 0, 0]
    assert grouped_ndcg_score(y, s, q, k=50) == grouped_ndcg_score(y, s, q, k=None)
    assert grouped_ndcg_score(y, s, q, k=[1, 2, None]).shape == (3,)


def test_position_bias_discount():
    weights = np.array([1.0, 0.5, 0.25])
    got = grouped_dcg_score([1, 2, 3], [3, 2, 1], [0, 0, 0], k=3, discount=weights)
    assert got == 1 * 1.0 + 2 * 0.5 + 3 * 0.25
