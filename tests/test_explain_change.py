"""explain_change: hand case, exact sums, brute force, segment rules, errors."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.evaluation import compare, explain_change, history_segments
from skndcg.metrics import ranking_report
from skndcg.online import ab_test


def _period(values, segments, start=0):
    return pd.DataFrame(
        {"qid": np.arange(start, start + len(values)), "mrr": values, "seg": segments}
    )


def test_hand_case_in_exact_fractions():
    # Before: a (1, 1/2), b (0); after: a (1), b (0, 1/2, 1/2), c (1).
    before = _period([1.0, 0.5, 0.0], ["a", "a", "b"])
    after = _period([1.0, 0.0, 0.5, 0.5, 1.0], ["a", "b", "b", "b", "c"], start=10)
    got = explain_change(before, after, by="seg").set_index("segment")
    F = Fraction
    w0 = {"a": F(2, 3), "b": F(1, 3), "c": F(0)}
    w1 = {"a": F(1, 5), "b": F(3, 5), "c": F(1, 5)}
    m0 = {"a": F(3, 4), "b": F(0), "c": F(1)}  # c absent before: m0 := m1
    m1 = {"a": F(1), "b": F(1, 3), "c": F(1)}
    big0, big1 = F(1, 2), F(3, 5)
    for s in "abc":
        mix = (w1[s] - w0[s]) * ((m0[s] + m1[s]) / 2 - (big0 + big1) / 2)
        within = (m1[s] - m0[s]) * (w0[s] + w1[s]) / 2
        assert got.loc[s, "mix"] == pytest.approx(float(mix), abs=1e-15)
        assert got.loc[s, "within"] == pytest.approx(float(within), abs=1e-15)
    assert np.isnan(got.loc["c", "mean_before"]) and got.loc["c", "n_before"] == 0
    assert got.loc["c", "within"] == 0.0
    total = got.loc["(all)"]
    assert total["change"] == pytest.approx(float(big1 - big0), abs=1e-15)
    assert total["mix"] + total["within"] == pytest.approx(total["change"], abs=1e-15)
    assert got.index.tolist() == ["a", "b", "c", "(all)"]


@settings(max_examples=50, deadline=None)
@given(
    n0=st.integers(1, 40),
    n1=st.integers(1, 40),
    k=st.integers(1, 5),
    seed=st.integers(0, 2**31),
)
def test_parts_sum_to_the_change_and_match_brute_force(n0, n1, k, seed):
    rng = np.random.default_rng(seed)
    before = _period(rng.random(n0), rng.integers(0, k, n0))
    after = _period(rng.random(n1), rng.integers(0, k, n1), start=1000)
    got = explain_change(before, after, by="seg")
    seg = got[got["segment"] != "(all)"]
    total = got[got["segment"] == "(all)"].iloc[0]
    change = after["mrr"].mean() - before["mrr"].mean()
    assert total["change"] == pytest.approx(change, abs=1e-12)
    assert seg["mix"].sum() + seg["within"].sum() == pytest.approx(change, abs=1e-12)
    np.testing.assert_allclose(seg["mix"] + seg["within"], seg["change"], atol=1e-15)
    # Brute force: a segment's part is its share of the sum after minus its
    # share of the sum before, less its change of share times the average
    # overall mean (the centring, which sums to zero over segments).
    level = (before["mrr"].mean() + after["mrr"].mean()) / 2
    for _, r in seg.iterrows():
        b = before.loc[before["seg"] == r["segment"], "mrr"].sum() / n0
        a = after.loc[after["seg"] == r["segment"], "mrr"].sum() / n1
        shift = r["share_after"] - r["share_before"]
        assert r["change"] == pytest.approx(a - b - shift * level, abs=1e-12)


def test_pure_mix_and_pure_within():
    # Same segment means, shares move: all mix. Same shares, means move: all within.
    before = _period([0.9, 0.9, 0.3, 0.3], ["x", "x", "y", "y"])
    mixed = _period([0.9, 0.3, 0.3, 0.3], ["x", "y", "y", "y"], start=10)
    parts = explain_change(before, mixed, by="seg")
    assert parts["within"].abs().max() < 1e-15
    assert parts.iloc[-1]["mix"] == pytest.approx(-0.15)
    lower = _period([0.8, 0.8, 0.3, 0.3], ["x", "x", "y", "y"], start=10)
    parts = explain_change(before, lower, by="seg")
    assert parts["mix"].abs().max() < 1e-15
    assert parts.iloc[-1]["within"] == pytest.approx(-0.05)


def test_with_ranking_report_and_history_segments():
    rng = np.random.default_rng(0)
    past_users = np.repeat([1, 2, 3], 5)  # users 1-3 have a past; 4-9 do not

    def log(users, good):
        qid = np.repeat(users, 6)
        y = rng.integers(0, 2, qid.size)
        noise = np.where(np.isin(qid, past_users), 0.5, 3.0) / good
        return ranking_report(y, y + rng.normal(0, noise), qid, metrics=["ndcg@5"])

    before = log(np.arange(1, 6), 1.0)
    after = log(np.arange(1, 10), 1.0)
    rule = history_segments(past_users)
    parts = explain_change(before, after, by=rule, metrics="ndcg@5")
    assert parts["segment"].tolist() == [">= 1", "no past", "(all)"]
    total = parts.iloc[-1]
    want = after["ndcg@5"].mean() - before["ndcg@5"].mean()
    assert total["change"] == pytest.approx(want)
    assert total["mix"] + total["within"] == pytest.approx(want)
    # A mapping from query id to segment gives the same split.
    mapping = {q: (">= 1" if q <= 3 else "no past") for q in range(1, 10)}
    same = explain_change(before, after, by=mapping, metrics="ndcg@5")
    pd.testing.assert_frame_equal(parts, same)


def test_nan_values_are_left_out_of_their_metric():
    before = _period([1.0, np.nan, 0.0], ["a", "a", "b"])
    after = _period([1.0, 0.0], ["a", "b"], start=5)
    got = explain_change(before, after, by="seg").set_index("segment")
    assert got.loc["a", "n_before"] == 1 and got.loc["(all)", "mean_before"] == 0.5


def test_bad_input():
    ok = _period([1.0, 0.0], ["a", "b"])
    with pytest.raises(ValueError, match=r"before must be a DataFrame .* 'qid'"):
        explain_change(ok.drop(columns="qid"), ok, by="seg")
    with pytest.raises(ValueError, match=r"by='nope' names no column of before"):
        explain_change(ok, ok, by="nope")
    with pytest.raises(ValueError, match=r"by gives no segment to 1 .* after"):
        explain_change(ok, ok.assign(qid=[0, 7]), by={0: "a", 1: "b"})
    with pytest.raises(ValueError, match=r"metrics \['ndcg'\] are not columns of af"):
        explain_change(ok.assign(ndcg=1.0), ok, by="seg", metrics="ndcg")
    with pytest.raises(ValueError, match=r"returned shape \(1,\)"):
        explain_change(ok, ok, by=lambda q: q[:1])
    with pytest.raises(ValueError, match=r"every value of 'mrr' is NaN"):
        explain_change(ok.assign(mrr=np.nan), ok, by="seg")


def test_duplicated_query_ids_are_refused_as_compare_does():
    # A query twice in one period was counted as two queries, silently.
    ok = _period([1.0, 0.0, 0.5], ["a", "b", "b"])
    twice = ok.assign(qid=[1, 1, 2])
    with pytest.raises(
        ValueError, match=r"after has several rows for the queries 1; give one row"
    ):
        explain_change(ok, twice, by="seg")
    with pytest.raises(ValueError, match=r"before has several rows for the queries 1;"):
        explain_change(twice, ok, by="seg")


def test_text_and_infinite_values_are_named():
    # Text was pandas' "Unable to parse string"; inf gave -inf and NaN parts.
    before = pd.DataFrame({"qid": [1, 2], "m": [0.1, 0.2], "seg": ["a", "b"]})
    after = pd.DataFrame({"qid": [3, 4], "m": [0.3, 0.4], "seg": ["a", "b"]})
    with pytest.raises(
        ValueError,
        match=r"metric 'm' of after must be numeric, got 'x' for the query 4\.",
    ):
        explain_change(before, after.assign(m=[0.3, "x"]), by="seg", metrics="m")
    with pytest.raises(
        ValueError, match=r"metric 'm' of before is infinite for the query 1\."
    ):
        explain_change(before.assign(m=[np.inf, 0.2]), after, by="seg")


def test_default_metrics_are_those_compare_and_ab_test_take():
    # One list of bookkeeping columns: n_retrieved and the dcg@k behind an
    # ndcg@k are not metrics anywhere; dcg@5, alone, is one everywhere.
    rng = np.random.default_rng(3)
    n = 40
    report = pd.DataFrame(
        {
            "qid": np.arange(n),
            "n_items": 10,
            "n_retrieved": 10,
            "n_relevant_retrieved": rng.integers(0, 5, n),
            "ndcg@10": rng.random(n),
            "dcg@10": rng.random(n),
            "idcg@10": rng.random(n) + 1,
            "mrr": rng.random(n),
            "dcg@5": rng.random(n),
            "seg": np.where(np.arange(n) < 20, "x", "y"),
        }
    )
    other = report.assign(mrr=rng.random(n))
    expected = ["ndcg@10", "mrr", "dcg@5"]
    cmp = compare({"a": report, "b": other}, n_resamples=200, random_state=0)
    assert cmp.metrics == expected
    parts = explain_change(report, other, by="seg")
    assert parts["metric"].unique().tolist() == expected
    ab = ab_test(report.drop(columns="seg"), np.arange(n) % 2, np.arange(n))
    assert ab.to_frame()["metric"].tolist() == expected


def test_segments_that_do_not_sort_come_in_first_seen_order():
    before = pd.DataFrame({"qid": [1, 2], "mrr": [1.0, 0.5], "seg": ["b", 1]})
    after = pd.DataFrame({"qid": [3, 4], "mrr": [0.5, 0.5], "seg": [1, "c"]})
    parts = explain_change(before, after, by="seg")
    assert parts["segment"].tolist() == ["b", 1, "c", "(all)"]


def _empty_metric_calls():
    from skndcg.evaluation import compare_over_time, metric_over_time

    frame = pd.DataFrame({"qid": [1, 2, 3, 4], "mrr": [0.1, 0.5, 0.2, 0.9]})
    scores = {"a": frame, "b": frame.assign(mrr=frame["mrr"] / 2)}
    y, q = [1, 0, 1, 0], [1, 1, 2, 2]
    t = pd.to_datetime(["2024-01-01"] * 4)
    return {
        "compare": lambda: compare(scores, metrics=[]),
        "explain_change": lambda: explain_change(frame, frame, by="qid", metrics=[]),
        "ab_test": lambda: ab_test(frame, [0, 1, 0, 1], [1, 2, 3, 4], metrics=[]),
        "metric_over_time": lambda: metric_over_time(y, y, q, t, freq="1D", metrics=[]),
        "compare_over_time": lambda: compare_over_time(
            y, {"a": y, "b": y}, q, t, freq="1D", baseline="a", metrics=[]
        ),
    }


@pytest.mark.parametrize("name", sorted(_empty_metric_calls()))
def test_empty_metrics_are_refused_alike(name):
    with pytest.raises(ValueError, match=r"^metrics must name at least one metric"):
        _empty_metric_calls()[name]()
