"""gm_map and iprec_at_recall by hand, from trec_eval 10.0's definitions
(``m_gm_map.c``, ``m_iprec_at_recall.c``)."""

import math

import numpy as np
import pytest

from skndcg.metrics import grouped_ranking_scores, ranking_report


def ranked(*queries):
    """(y, s, q) from each query's labels in ranked order (NaN score: judged, not
    retrieved)."""
    y, s, q = [], [], []
    for key, (labels, missed) in enumerate(queries):
        n = len(labels)
        y += list(labels) + list(missed)
        s += [float(n - i) for i in range(n)] + [np.nan] * len(missed)
        q += [key] * (n + len(missed))
    return np.array(y, float), np.array(s), np.array(q)


def iprec(labels, missed, recall):
    y, s, q = ranked((labels, missed))
    name = f"iprec(recall={recall})"
    return grouped_ranking_scores(y, s, q, [name], convention="trec_eval",
                                  nan_score="unretrieved")[name]  # fmt: skip


# Ranked 1 0 1 0 0 1 and one relevant row not retrieved: R = 4, 3 found.
LABELS, MISSED = [1, 0, 1, 0, 0, 1], [1]


@pytest.mark.parametrize(
    "recall, want",
    [
        (0.0, 1.0),  # cut-off 0: the best precision anywhere from rank 1 on
        (0.25, 1.0),  # 1st relevant (rank 1)
        (0.5, 2 / 3),  # 2nd relevant (rank 3): max(2/3, 2/4, 2/5, 3/6)
        (0.6, 2 / 3),  # lround(2.4) = 2: the 2nd again
        (0.75, 3 / 6),  # 3rd relevant (rank 6)
        (1.0, 0.0),  # the 4th was never found
    ],
)
def test_iprec_by_hand(recall, want):
    assert iprec(LABELS, MISSED, recall) == pytest.approx(want, abs=1e-15)


def test_iprec_rounds_as_trec_eval_10():
    # 0.6 * 4 = 2.4: 10.0 takes lround(2.4) = 2 relevant rows (2/3); 9.0.8
    # took int(2.4 + 0.9) = 3 (1/2). Halves round up: 0.625 * 4 = 2.5 -> 3.
    assert iprec(LABELS, MISSED, 0.6) == pytest.approx(2 / 3)
    assert iprec(LABELS, MISSED, 0.625) == pytest.approx(3 / 6)


def test_iprec_is_interpolated():
    # Ranked 0 1 1: precision 0, 1/2, 2/3; at the 1st relevant (rank 2) the
    # interpolated precision is the best at or below it, 2/3.
    assert iprec([0, 1, 1], [], 0.5) == pytest.approx(2 / 3)


def test_gm_map_by_hand():
    # AP 1/2, 1/4 and 0 (nothing relevant: trec_eval scores it 0, floored at 1e-5).
    y, s, q = ranked(([0, 1], []), ([0, 0, 0, 1], []), ([0, 0], []))
    got = grouped_ranking_scores(y, s, q, ["gm_map", "map"], convention="trec_eval")
    want = math.exp((math.log(0.5) + math.log(0.25) + math.log(1e-5)) / 3)
    assert got["gm_map"] == pytest.approx(want, rel=1e-14)
    assert got["map"] == pytest.approx(0.25, abs=1e-15)
    report = ranking_report(y, s, q, metrics=["gm_map"], convention="trec_eval")
    assert report["gm_map"].tolist() == [0.5, 0.25, 0.0]  # each query's AP


def test_gm_map_with_weights_is_a_weighted_geometric_mean():
    y, s, q = ranked(([0, 1], []), ([0, 0, 0, 1], []))
    got = grouped_ranking_scores(y, s, q, ["gm_map"], convention="trec_eval",
                                 sample_weight={0: 3.0, 1: 1.0})  # fmt: skip
    want = math.exp((3 * math.log(0.5) + math.log(0.25)) / 4)
    assert got["gm_map"] == pytest.approx(want, rel=1e-14)


def test_gm_map_uses_the_relevance_level():
    # Level 2: only the 2 counts; ranked 1 2 -> AP 1/2.
    y, s, q = ranked(
        ([1, 2], []),
    )
    got = grouped_ranking_scores(y, s, q, ["gm_map"], convention="trec_eval",
                                 rel_threshold=2)  # fmt: skip
    assert got["gm_map"] == pytest.approx(0.5)


def test_iprec_recall_out_of_range():
    y, s, q = ranked(
        ([1], []),
    )
    with pytest.raises(ValueError, match=r"recall=1.5 is out of range"):
        grouped_ranking_scores(y, s, q, ["iprec(recall=1.5)"])


def test_set_measures_by_hand():
    # Ranked 1 0 1 0 0 1, one relevant missed: n = 6, h = 3, R = 4.
    y, s, q = ranked((LABELS, MISSED))
    names = ["set_p", "set_recall", "set_map", "set_relative_p", "set_f",
             "set_f(beta=0.5)", "set_p@2", "gm_bpref"]  # fmt: skip
    got = grouped_ranking_scores(y, s, q, names, convention="trec_eval",
                                 nan_score="unretrieved")  # fmt: skip
    p, r = 3 / 6, 3 / 4
    assert got["set_p"] == pytest.approx(p)
    assert got["set_recall"] == pytest.approx(r)
    assert got["set_map"] == pytest.approx(p * r)
    assert got["set_relative_p"] == pytest.approx(3 / 4)  # h / min(6, 4)
    assert got["set_f"] == pytest.approx(2 * p * r / (p + r))
    assert got["set_f(beta=0.5)"] == pytest.approx(1.5 * p * r / (0.5 * p + r))
    assert got["set_p@2"] == pytest.approx(1 / 2)
    # bpref: non-relevant judged N = 3, m = min(R, N) = 3; the relevant rows
    # at ranks 1, 3, 6 have 0, 1, 3 non-relevant above: (1 + 2/3 + 0) / 4.
    assert got["gm_bpref"] == pytest.approx((1 + 2 / 3) / 4)


def test_gm_bpref_floors_zero():
    y, s, q = ranked(([0, 1], []), ([1], []))
    got = grouped_ranking_scores(y, s, q, ["gm_bpref"], convention="trec_eval")
    # bpref 0 (the only non-relevant row is above) and 1.
    assert got["gm_bpref"] == pytest.approx(math.exp(math.log(1e-5) / 2))


@pytest.mark.parametrize(
    "mult, want",
    [
        (0.2, 1.0),  # int(0.8 + 0.9) = 1: rank 1 is relevant
        (0.5, 1 / 2),  # int(2.9) = 2: 1 of the top 2
        (1.0, 2 / 4),  # R-precision: 2 of the top 4
        (2.0, 3 / 8),  # int(8.9) = 8: the list (6 rows) counts as filled up
    ],
)
def test_rprec_mult_by_hand(mult, want):
    y, s, q = ranked((LABELS, MISSED))
    name = f"rprec_mult(mult={mult})"
    got = grouped_ranking_scores(y, s, q, [name], convention="trec_eval",
                                 nan_score="unretrieved")[name]  # fmt: skip
    assert got == pytest.approx(want)


def test_iprec_11pt_is_the_mean_of_the_eleven_levels():
    y, s, q = ranked((LABELS, MISSED))
    levels = [f"iprec(recall={j / 10})" for j in range(11)]
    got = grouped_ranking_scores(
        y, s, q, ["iprec_11pt", *levels], convention="trec_eval",
        nan_score="unretrieved",
    )  # fmt: skip
    # R = 4: cut-offs lround(0.4 j) = 0 0 1 1 2 2 2 3 3 4 4 -> 1 1 1 1 2/3 2/3 2/3
    # 1/2 1/2 0 0.
    by_hand = (4 * 1 + 3 * (2 / 3) + 2 * (1 / 2)) / 11
    assert got["iprec_11pt"] == pytest.approx(by_hand)
    assert got["iprec_11pt"] == pytest.approx(sum(got[n] for n in levels) / 11)


def test_unj_and_nonrel_judged_by_hand():
    # Ranked: 1, unjudged, 0, unjudged, 2 (NaN labels: nobody judged them).
    y = np.array([1, np.nan, 0, np.nan, 2.0])
    s = np.array([5.0, 4, 3, 2, 1])
    q = np.zeros(5)
    got = grouped_ranking_scores(
        y, s, q, ["unj@2", "unj@5", "unj@10", "unj", "nonrel_judged",
                  "nonrel_judged@2"],
        convention="trec_eval", nan_label="unjudged",
    )  # fmt: skip
    assert got["unj@2"] == 1 / 2
    assert got["unj@5"] == 2 / 5
    assert got["unj@10"] == 2 / 10  # over k, not over the 5 retrieved
    assert got["unj"] == 2 / 5
    assert got["nonrel_judged"] == 1.0 and got["nonrel_judged@2"] == 0.0


@pytest.mark.parametrize("k, want", [(1, 1 / 1), (2, 1 / 2), (4, 2 / 4), (10, 3 / 4)])
def test_relative_p_by_hand(k, want):
    # Ranked 1 0 1 0 0 1, R = 4: relevant in the top k over min(4, k).
    y, s, q = ranked((LABELS, MISSED))
    name = f"relative_p@{k}"
    got = grouped_ranking_scores(y, s, q, [name], convention="trec_eval",
                                 nan_score="unretrieved")[name]  # fmt: skip
    assert got == pytest.approx(want)


def test_bin_g_by_hand():
    # Ranked 1 0 1 0 0 1, R = 4: the relevant rows have 0, 1 and 3 non-relevant
    # rows above them.
    y, s, q = ranked((LABELS, MISSED))
    got = grouped_ranking_scores(y, s, q, ["binG"], convention="trec_eval",
                                 nan_score="unretrieved")["binG"]  # fmt: skip
    want = (1 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(5)) / 4
    assert got == pytest.approx(want)


def test_utility_by_hand():
    # n = 6 retrieved, h = 3 relevant among them, R = 4, a collection of N = 100.
    y, s, q = ranked((LABELS, MISSED))
    names = ["utility", "utility(rel_ret=2, rel_missed=-0.5)",
             "utility(nonrel_missed=0.25, n_docs=100)", "utility@2"]  # fmt: skip
    got = grouped_ranking_scores(y, s, q, names, convention="trec_eval",
                                 nan_score="unretrieved")  # fmt: skip
    assert got["utility"] == 3 - 3
    assert got["utility(rel_ret=2, rel_missed=-0.5)"] == 2 * 3 - 3 - 0.5 * 1
    # 100 + 3 - 6 - 4 = 93 non-relevant documents neither retrieved nor judged.
    assert got["utility(nonrel_missed=0.25, n_docs=100)"] == 3 - 3 + 0.25 * 93
    assert got["utility@2"] == 1 - 1  # the top 2 as the set


def test_set_f_beta_by_name():
    y, s, q = ranked((LABELS, MISSED))
    got = grouped_ranking_scores(y, s, q, ["set_F.0.5"], convention="trec_eval",
                                 nan_score="unretrieved")["set_F.0.5"]  # fmt: skip
    p, r = 3 / 6, 3 / 4
    assert got == pytest.approx(1.5 * p * r / (0.5 * p + r))


def test_ndcg_custom_gains_in_python():
    from skndcg.metrics._catalogue._trec_names import gain_function, parse_gains

    gains = parse_gains("1=5,3=0", "ndcg.1=5,3=0")
    assert gains == ((1, 5.0), (3, 0.0))
    g = gain_function(gains)
    np.testing.assert_array_equal(g(np.array([-1, 0, 1, 2, 3])), [0, 0, 5, 2, 0])
    # Ranked 2, 0, 1: gains 2, 0, 5; the ideal order 5, 2.
    y, s, q = ranked(
        ([2, 0, 1], []),
    )
    got = grouped_ranking_scores(y, s, q, ["ndcg"], convention="trec_eval", gain=g)
    want = (2 + 5 / math.log2(4)) / (5 + 2 / math.log2(3))
    assert got["ndcg"] == pytest.approx(want)
    with pytest.raises(ValueError, match="ndcg's gains apply to a whole call"):
        grouped_ranking_scores(y, s, q, ["ndcg.1=5"])


def test_g_by_hand():
    # Ranked 1, 0, 2, and a 3 not retrieved: ideal gains 3, 2, 1 (total 6).
    # Rank 1: gain 1, cost max(3, 1) = 3, gained 1 -> 1 / log2(2 + 3 - 1).
    # Rank 3: gain 2, cost 3 + 2 + 1 = 6, gained 3 -> 2 / log2(2 + 6 - 3).
    y, s, q = ranked(
        ([1, 0, 2], [3]),
    )
    got = grouped_ranking_scores(y, s, q, ["G"], convention="trec_eval",
                                 nan_score="unretrieved")["G"]  # fmt: skip
    assert got == pytest.approx((1 / math.log2(4) + 2 / math.log2(5)) / 6)


def test_ndcg_rel_by_hand():
    # Ranked 1, 0, 2, and a 3 not retrieved: ideal 3, 2, 1 (M = 3).
    y, s, q = ranked(
        ([1, 0, 2], [3]),
    )
    got = grouped_ranking_scores(y, s, q, ["ndcg_rel"], convention="trec_eval",
                                 nan_score="unretrieved")["ndcg_rel"]  # fmt: skip
    L2, L3, L4 = (math.log2(i) for i in (2, 3, 4))
    at1 = 1 / (3 / L2)  # rank 1: DCG 1 over ideal 3
    at3 = (1 + 2 / L4) / (3 / L2 + 2 / L3 + 1 / L4)  # rank 3
    end = (1 + 2 / L4) / (3 / L2 + 2 / L3 + 1 / L4)  # the 3 never retrieved
    assert got == pytest.approx((at1 + at3 + end) / 3)


def test_rndcg_by_hand():
    # Ranked 1, 0, 2, 0, 0, and a 3 not retrieved: ideal 3, 2, 1, changing at
    # depths 1, 2, 3 (where the gains end); the ranking goes on past 3 + 1.
    y, s, q = ranked(
        ([1, 0, 2, 0, 0], [3]),
    )
    got = grouped_ranking_scores(y, s, q, ["Rndcg"], convention="trec_eval",
                                 nan_score="unretrieved")["Rndcg"]  # fmt: skip
    L2, L3, L4 = (math.log2(i) for i in (2, 3, 4))
    ideal = [3 / L2, 3 / L2 + 2 / L3, 3 / L2 + 2 / L3 + 1 / L4]
    dcg = [1, 1, 1 + 2 / L4]  # the top 1, 2 and 3 rows
    values = [d / i for d, i in zip(dcg, ideal, strict=True)]
    values.append((1 + 2 / L4) / ideal[-1])  # the whole ranking
    assert got == pytest.approx(sum(values) / 4)


def test_infap_by_hand():
    # Ranked: relevant, not in the pool (NaN), pooled but not judged (-1),
    # judged not relevant, relevant, relevant (grade 2); 3 judged relevant.
    y = np.array([1.0, np.nan, -1.0, 0.0, 1.0, 2.0])
    s = np.array([6.0, 5.0, 4.0, 3.0, 2.0, 1.0])
    q = np.zeros(6)
    e = 0.00001
    first = 1.0
    # Rank 5: above it 1 relevant, 1 not relevant, 1 pooled unjudged (3 pooled).
    fifth = 1 / 5 + (4 / 5) * (3 / 4) * ((1 + e) / (1 + 1 + 2 * e))
    # Rank 6: 2 relevant, 1 not relevant, 1 pooled unjudged above (4 pooled).
    sixth = 1 / 6 + (5 / 6) * (4 / 5) * ((2 + e) / (2 + 1 + 2 * e))
    got = grouped_ranking_scores(
        y, s, q, ["infap", "bpref"], convention="trec_eval", nan_label="unjudged"
    )
    assert got["infap"] == pytest.approx((first + fifth + sixth) / 3, abs=1e-15)
    # bpref reads the pooled-but-unjudged row as unjudged too: 1 judged
    # non-relevant row above the relevant ones at ranks 5 and 6.
    assert got["bpref"] == pytest.approx((1 + 0 + 0) / 3, abs=1e-15)


def test_infap_counts_rows_outside_the_pool_as_not_relevant():
    # Without unjudged rows infAP is AP: with them, the rows outside the pool
    # (NaN) lower the estimate and the pooled unjudged rows do not.
    s = np.array([3.0, 2.0, 1.0])
    q = np.zeros(3)
    plain = grouped_ranking_scores(np.array([0.0, 1.0, 1.0]), s, q, ["infap", "map"],
                                   convention="trec_eval")  # fmt: skip
    assert plain["infap"] == pytest.approx(plain["map"], rel=1e-4)
    pooled = grouped_ranking_scores(
        np.array([-1.0, 1.0, 1.0]), s, q, ["infap"], convention="trec_eval",
        nan_label="unjudged",
    )  # fmt: skip
    outside = grouped_ranking_scores(
        np.array([np.nan, 1.0, 1.0]), s, q, ["infap"], convention="trec_eval",
        nan_label="unjudged",
    )  # fmt: skip
    assert outside["infap"] < pooled["infap"]
