"""judge_agreement, prediction_powered_queries and choose_queries_to_judge."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ppi_sim import simulate
from sklearn.metrics import cohen_kappa_score

from skndcg.evaluation import (
    choose_queries_to_judge,
    judge_agreement,
    prediction_powered_queries,
    prediction_powered_report,
)


@given(
    pairs=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=4),
    weights=st.sampled_from(["quadratic", "linear", None]),
)
def test_kappa_equals_sklearn(pairs, weights):
    h, m = np.array(pairs, float).T
    if np.unique(h).size < 2 and np.unique(m).size < 2:
        return  # kappa undefined (no disagreement is possible by chance)
    qid = np.arange(h.size) // 3
    grades = (0, 3)
    a = judge_agreement(h, m, qid, weights=weights, grades=grades)
    ref = cohen_kappa_score(h, m, weights=weights, labels=[0, 1, 2, 3])
    if np.isnan(ref):
        assert np.isnan(a.kappa)
    else:
        assert a.kappa == pytest.approx(ref, abs=1e-12)


def test_confusion_and_bias_by_hand():
    h = np.array([0, 0, 1, 2, 2, np.nan, 3])
    m = np.array([0, 1, 1, 1, 3, 3, 3])
    a = judge_agreement(h, m, [1, 1, 1, 2, 2, 3, 4])
    assert a.confusion.loc[2].tolist() == [0, 1, 0, 1]
    assert a.confusion.to_numpy().sum() == 6 == a.n_rows
    assert a.n_queries == 3
    assert a.bias["bias"].tolist() == [0.5, 0.0, 0.0, 0.0]
    assert a.bias["n_rows"].tolist() == [2, 1, 2, 1]


def test_expected_labels_are_rounded_for_the_confusion_only():
    h = np.array([0.0, 1.0, 2.0, 3.0])
    m = np.array([0.4, 1.6, 2.0, 2.6])
    a = judge_agreement(h, m, [1, 1, 2, 2], expected_labels=True)
    assert np.diag(a.confusion.to_numpy()).tolist() == [1, 0, 1, 1]
    assert a.bias["bias"].to_numpy() == pytest.approx([0.4, 0.6, 0.0, -0.4])
    with pytest.raises(ValueError, match="expected_labels=True"):
        judge_agreement(h, m, [1, 1, 2, 2])
    with pytest.raises(ValueError, match="weights must be"):
        judge_agreement(h, m, [1, 1, 2, 2], weights="cubic", expected_labels=True)


def test_metric_correlation_on_judged_queries():
    s = simulate(300, np.random.default_rng(0), judged_share=0.5)
    a = judge_agreement(
        s["y_true"], s["y_model"], s["qid"], y_score=s["score_a"],
        metrics=["ndcg@10", "p@10"],
    )  # fmt: skip
    useless = judge_agreement(
        s["y_true"], np.random.default_rng(1).permutation(s["y_model"]), s["qid"],
        y_score=s["score_a"],
    )  # fmt: skip
    assert a.correlation["ndcg@10"] > 0.6 and a.correlation["p@10"] > 0.6
    assert abs(useless.correlation["ndcg@10"]) < 0.3
    assert a.kappa > 0.7 > useless.kappa


def test_planned_queries_reach_the_width():
    """The number planned from a pilot gives (by the same formula) an interval
    at most the width asked for, one fewer does not; and on the simulator
    the planned study's interval is about that wide."""
    s = simulate(2000, np.random.default_rng(4), judged_share=0.05)
    pilot = prediction_powered_report(
        s["y_true"], s["y_model"], s["score_a"], s["qid"]
    )  # fmt: skip
    plan = prediction_powered_queries(pilot, 0.03).iloc[0]
    n, N = plan["n_judged"], 2000
    sh, se = pilot["sd_human"].iloc[0], pilot["sd_residual"].iloc[0]

    def width(n):
        return 2 * 1.959964 * np.sqrt(sh**2 / N + (1 - n / N) * se**2 / n)

    assert width(n) <= 0.03 < width(n - 1)
    assert plan["n_judged_human_only"] > n
    study = simulate(2000, np.random.default_rng(5), judged_share=n / N)
    rep = prediction_powered_report(
        study["y_true"], study["y_model"], study["score_a"], study["qid"]
    ).iloc[0]
    assert rep["high"] - rep["low"] == pytest.approx(0.03, rel=0.25)


def test_plan_impossible_and_bad_input():
    pilot = pd.DataFrame(
        {"metric": ["m"], "sd_human": [0.3], "sd_residual": [0.1], "n_queries": [50]}
    )
    assert prediction_powered_queries(pilot, 0.01)["n_judged"].iloc[0] == np.inf
    with pytest.raises(ValueError, match="width must be a positive number"):
        prediction_powered_queries(pilot, 0)
    with pytest.raises(ValueError, match="prediction_powered_report frame"):
        prediction_powered_queries(pilot.drop(columns="sd_residual"), 0.1)
    # n_queries=0 was a ZeroDivisionError.
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match=r"n_queries must be an integer >= 1, got"):
            prediction_powered_queries(pilot, 0.1, n_queries=bad)


def test_choose_uniform_stratified_priority():
    plan = choose_queries_to_judge(range(50), 10, random_state=0)
    assert plan["selected"].sum() == 10
    assert np.allclose(plan["inclusion_probability"], 0.2)
    strata = np.repeat(["easy", "hard"], [40, 10])
    plan = choose_queries_to_judge(range(50), 10, strata=strata, random_state=0)
    assert plan.groupby(strata)["selected"].sum().tolist() == [8, 2]
    pr = np.r_[np.ones(45), np.full(5, 100.0)]
    plan = choose_queries_to_judge(range(50), 10, priority=pr, random_state=0)
    pi = plan["inclusion_probability"].to_numpy()
    assert pi[45:] == pytest.approx(1.0) and pi.sum() == pytest.approx(10)
    assert plan["selected"][45:].all()
    with pytest.raises(ValueError, match="every query needs a chance"):
        choose_queries_to_judge(range(3), 2, priority=[1, 0, 1])
    with pytest.raises(ValueError, match="n must be an integer between 2 and 3"):
        choose_queries_to_judge(range(3), 5)
    with pytest.raises(ValueError, match="qids must name each query once"):
        choose_queries_to_judge([1, 1, 2], 2)
    # A missing id was taken as a query of its own.
    for missing in (np.nan, None):
        with pytest.raises(
            ValueError, match=r"qids has 1 missing value\(s\) \(first at position 1\)"
        ):
            choose_queries_to_judge([1, missing, 3], 2)


def test_priority_sampling_is_unbiased_only_with_its_weights():
    """Judging the queries the judge finds hardest more often: with the
    inclusion probabilities the estimate centres on the truth; ignoring
    them (as if uniform) it does not."""
    from ppi_sim import truth

    true = truth(["ndcg@10"], n_queries=5000)[("ndcg@10", "a")]
    rng = np.random.default_rng(9)
    weighted, naive = [], []
    for _ in range(40):
        s = simulate(400, rng, judged_share=1.0)
        from skndcg.metrics import ranking_report

        f = ranking_report(s["y_model"], s["score_a"], s["qid"])["ndcg@10"]
        priority = 1.05 - np.nan_to_num(f.to_numpy(), nan=0.5)  # low NDCG first
        plan = choose_queries_to_judge(
            np.arange(400), 60, priority=priority, random_state=rng
        )
        chosen = np.isin(s["qid"], plan["qid"][plan["selected"]])
        y_true = np.where(chosen, s["y"], np.nan)
        pi = dict(zip(plan["qid"], plan["inclusion_probability"], strict=True))
        for out, prob in ((weighted, pi), (naive, None)):
            rep = prediction_powered_report(
                y_true, s["y_model"], s["score_a"], s["qid"], method="human",
                inclusion_probability=prob,
            )  # fmt: skip
            out.append(rep["estimate"].iloc[0])
    se = np.std(weighted, ddof=1) / np.sqrt(len(weighted))
    assert abs(np.mean(weighted) - true) < 3 * se
    assert np.mean(naive) < true - 3 * se  # the hard queries are over-weighted


def test_plan_refuses_a_pilot_without_usable_numbers():
    pilot = pd.DataFrame({"metric": ["ndcg@10"], "sd_human": [0.2],
                          "sd_residual": [0.1], "n_queries": [2000]})  # fmt: skip
    with pytest.raises(ValueError, match=r"sd_residual column must hold finite"):
        prediction_powered_queries(pilot.assign(sd_residual=np.nan), 0.04)
    with pytest.raises(ValueError, match=r"n_queries column must hold .* >= 1"):
        prediction_powered_queries(pilot.assign(n_queries=0), 0.04)


def test_priority_judging_every_query_is_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # was "invalid value encountered in divide"
        plan = choose_queries_to_judge(range(5), 5, priority=[1, 2, 3, 4, 5])
    assert plan["inclusion_probability"].tolist() == [1.0] * 5
