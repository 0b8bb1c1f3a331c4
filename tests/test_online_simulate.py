"""The click simulator: its loggers' propensities, clicks and true values."""

import numpy as np
import pytest

from skndcg.online import simulate_click_log, simulate_clicks
from skndcg.online._plackett_luce import inclusion_probability, sample_rankings


def test_plackett_luce_inclusion_matches_brute_force():
    # Every ordering of 5 items enumerated: the exact top-2 inclusion chance.
    from itertools import permutations

    w = np.array([3.0, 1.0, 0.5, 2.0, 0.1])
    exact = np.zeros(5)
    for perm in permutations(range(5)):
        p, left = 1.0, w.sum()
        for item in perm[:2]:
            p *= w[item] / left
            left -= w[item]
        exact[list(perm[:2])] += p / 6  # each top-2 prefix counted 3! times
    got = inclusion_probability(np.log(w)[None], 2)[0]
    np.testing.assert_allclose(got, exact, atol=1e-9)


def test_plackett_luce_sampler_agrees_with_inclusion():
    rng = np.random.default_rng(1)
    lw = rng.normal(0, 1.5, (1, 8))
    top = sample_rankings(np.repeat(lw, 100_000, 0), 3, rng)
    share = np.bincount(top.ravel(), minlength=8) / 100_000
    np.testing.assert_allclose(share, inclusion_probability(lw, 3)[0], atol=0.006)


@pytest.mark.parametrize("logger", ["uniform", "softmax"])
def test_logged_rankings_and_probabilities(logger):
    sim = simulate_click_log(60, 12, 5, logger=logger, random_state=0)
    log = sim.log
    assert len(log) == 60 * 12
    shown = log[log["position"].notna()]
    # each logged query shows positions 1..5 once
    assert (
        shown.groupby("qid")["position"].apply(sorted).map(list)
        == [[1.0, 2.0, 3.0, 4.0, 5.0]] * 60
    ).all()
    np.testing.assert_allclose(log.groupby("qid")["logging_probability"].sum(), 5.0)
    assert (log.loc[log["position"].isna(), "click"] == 0).all()
    if logger == "uniform":
        assert np.allclose(log["logging_probability"], 5 / 12)


def test_pbm_clicks_follow_examination_times_relevance():
    sim = simulate_click_log(4000, 10, 5, random_state=3)
    shown = sim.log[sim.log["position"].notna()]
    expected = sim.examination[shown["position"].astype(int) - 1] * shown["relevance"]
    # per position: observed click rate against its expectation
    rate = shown.groupby("position")["click"].mean().to_numpy()
    want = expected.groupby(shown["position"]).mean().to_numpy()
    np.testing.assert_allclose(rate, want, atol=0.01)


def test_true_value_of_the_logged_ranking_matches_its_clicks():
    # The logged ranking's own score (minus its position) is a new ranker whose
    # true value is the expected clicks of the log.
    for model in ("pbm", "cascade"):
        sim = simulate_click_log(3000, 8, 4, click_model=model, random_state=5)
        score = -sim.log["position"].fillna(99).to_numpy()
        truth = sim.true_value(score, k=4)
        clicks_per_query = sim.log.groupby("qid")["click"].sum().mean()
        assert abs(truth - clicks_per_query) < 0.03, (model, truth, clicks_per_query)


def test_true_value_by_hand():
    sim = simulate_click_log(1, 3, 3, examination=[1.0, 0.5, 0.25], random_state=0)
    rel = sim.log["relevance"].to_numpy()
    score = np.array([3.0, 1.0, 2.0])  # order: rows 0, 2, 1
    assert sim.true_value(score, k=2) == pytest.approx(rel[0] + 0.5 * rel[2])
    assert sim.true_value(score, k=3, target="dcg") == pytest.approx(
        rel[0] + rel[2] / np.log2(3) + rel[1] / 2
    )
    # tied scores share the mean examination of their ranks
    tied = np.array([1.0, 1.0, 0.0])
    assert sim.true_value(tied, k=3) == pytest.approx(
        0.75 * (rel[0] + rel[1]) + 0.25 * rel[2]
    )


def test_simulator_errors():
    with pytest.raises(ValueError, match="n_shown=5 is more than n_candidates=3"):
        simulate_click_log(2, 3, 5)
    with pytest.raises(ValueError, match="examination must hold 2 probabilities"):
        simulate_click_log(2, 3, 2, examination=[1.0, 1.5])
    sim = simulate_click_log(2, 3, 2, random_state=0)
    with pytest.raises(ValueError, match="new_score must hold one score per row"):
        sim.true_value([1.0, 2.0])
    with pytest.raises(ValueError, match="new_score contains 1 NaN"):
        sim.true_value([1.0, np.nan, 0, 0, 0, 0])


@pytest.mark.parametrize("shuffle", [False, True])
def test_group_order_matches_lexsort(shuffle):
    from skndcg.online._ranking import group_order

    rng = np.random.default_rng(0)
    codes = np.repeat(np.arange(300), rng.integers(1, 30, 300))
    key = rng.integers(0, 4, codes.size).astype(float)  # many ties
    if shuffle:
        perm = rng.permutation(codes.size)
        codes, key = codes[perm], key[perm]
    np.testing.assert_array_equal(
        group_order(codes, 300, key), np.lexsort((key, codes))
    )


def test_simulate_clicks_checks_its_probabilities_and_positions():
    q, pos, rel = [1, 1, 1], [1, 2, 3], [0.5, 0.5, 0.5]
    with pytest.raises(ValueError, match=r"examination must hold probabilities in "
                       r"\[0, 1\], got 1\.5 at index 1"):  # fmt: skip
        simulate_clicks(q, pos, rel, examination=[1.0, 1.5, 0.2])
    with pytest.raises(ValueError, match=r"examination .* got nan at index 2"):
        simulate_clicks(q, pos, rel, examination=[1.0, 0.5, np.nan])
    with pytest.raises(ValueError, match=r"examination .* got -0\.1 at index 0"):
        simulate_clicks(q, pos, rel, examination=[-0.1, 0.5, 0.2])
    with pytest.raises(ValueError, match=r"relevance .* got 2\.0 at index 1"):
        simulate_clicks(q, pos, [0.5, 2.0, 0.1])
    with pytest.raises(ValueError, match=r"position must be a whole number .* inf"):
        simulate_clicks(q, [1, 2, np.inf], rel)
    # a NaN list id was one list of its own under the cascade model
    with pytest.raises(ValueError, match="qid is missing at row 1"):
        simulate_clicks([1, np.nan, np.nan], pos, rel, click_model="cascade")
    # the bounds themselves are probabilities: nothing examined, nothing clicked
    none = simulate_clicks(q, pos, [1.0] * 3, examination=[0.0] * 3, random_state=0)
    assert none.tolist() == [0, 0, 0]
    every = simulate_clicks(q, pos, [1.0] * 3, examination=[1.0] * 3, random_state=0)
    assert every.tolist() == [1, 1, 1]


def test_simulate_clicks_refuses_what_it_cannot_simulate():
    """A 2-D qid was accepted (and failed inside numpy under the cascade
    model), two rows at one position of a cascade list were read in row
    order, and a 2-D examination read "got 4 value(s)"."""
    q, pos, rel = [1, 1, 1], [1, 2, 3], [0.5, 0.5, 0.5]
    for model in ("pbm", "cascade"):
        with pytest.raises(ValueError, match=r"qid must be a 1-D .* shape \(1, 3\)"):
            simulate_clicks([q], pos, rel, click_model=model)
    with pytest.raises(ValueError, match=r"rows \[0, 1\] share qid 1 and position 1: "
                       r"under the cascade model"):  # fmt: skip
        simulate_clicks(q, [1, 1, 2], rel, click_model="cascade")
    with pytest.raises(ValueError, match=r"examination must be a 1-D array .* down "
                       r"to 3, got shape \(2, 2\)"):  # fmt: skip
        simulate_clicks(q, pos, rel, examination=[[1.0, 0.5], [0.3, 0.2]])
    with pytest.raises(ValueError, match=r"down to 3, got shape \(2,\)"):
        simulate_clicks(q, pos, rel, examination=[1.0, 0.5])
    # an empty set of rows has no clicks
    assert simulate_clicks([], [], [], click_model="cascade").size == 0
