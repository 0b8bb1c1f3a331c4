"""counterfactual_report: hand-computed values, exact expectations, coverage, errors."""

import warnings
from itertools import permutations, product

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.evaluation import estimate_position_bias
from skndcg.online import counterfactual_report, simulate_click_log
from skndcg.online._plackett_luce import inclusion_probability

# Two logged queries, every candidate a row (position NaN: not shown).
HAND = pd.DataFrame(
    {
        "qid": [1, 1, 1, 2, 2],
        "item": ["a", "b", "c", "x", "y"],
        "position": [1, 2, np.nan, 2, 1],
        "click": [1, 0, 0, 1, 1],
        "p": [0.5, 0.5, 0.5, 1.0, 1.0],
        "new": [2.0, 1.0, 3.0, 5.0, 4.0],
    }
)


def _report(log, **kw):
    kw.setdefault("n_resamples", 0)
    return counterfactual_report(
        log["qid"], log["item"], log["position"], log["click"], log["new"], **kw
    )


def test_ips_and_snips_by_hand():
    rep = _report(HAND, examination=[1.0, 0.5], logging_probability=HAND["p"], k=2)
    # new top 2: query 1 -> c (weight 1), a (0.5); query 2 -> x (1), y (0.5)
    # IPS: query 1: a clicked at position 1: 0.5 * 1 / (1 * 0.5) = 1
    #      query 2: x at position 2: 1 / (0.5 * 1) = 2; y at 1: 0.5 / 1 = 0.5
    assert rep.loc["ips", "estimate"] == pytest.approx((1.0 + 2.5) / 2)
    # SNIPS normaliser: query 1: (0.5 / 0.5) / (1 + 0.5) = 2/3; query 2: 1.5 / 1.5
    assert rep.loc["snips", "estimate"] == pytest.approx(3.5 / (2 / 3 + 1))
    assert rep.loc["ips", "max_weight"] == pytest.approx(2.0)
    assert rep.loc["ips", "n_queries"] == 2
    assert list(rep.columns[:4]) == ["estimate", "low", "high", "effective_sample_size"]
    # per-query click weights 1 and 2.5: Kish's (3.5)^2 / (1 + 6.25)
    assert rep.loc["ips", "effective_sample_size"] == pytest.approx(3.5**2 / 7.25)
    largest = rep.attrs["largest_weights"]
    assert largest["item"].tolist()[0] == "x"


def test_dcg_target_by_hand():
    rep = _report(
        HAND, examination=[1.0, 0.5], logging_probability=HAND["p"], k=2, target="dcg"
    )
    d2 = 1 / np.log2(3)
    q1 = d2 * 1 / (1 * 0.5)  # a at new rank 2, clicked at position 1
    q2 = 1 * 1 / 0.5 + d2 * 1 / 1.0  # x new rank 1 at position 2, y new rank 2 at 1
    assert rep.loc["ips", "estimate"] == pytest.approx((q1 + q2) / 2)


def _exact_expectation(w, examination, rel, m, new, k):
    """E[estimate] over every logged list and click pattern of one query."""
    n = len(w)
    incl = inclusion_probability(np.log(w)[None], m)[0]
    total = {"ips": 0.0, "dr": 0.0}
    for top in permutations(range(n), m):
        p_list, left = 1.0, w.sum()
        for i in top:
            p_list *= w[i] / left
            left -= w[i]
        position = np.full(n, np.nan)
        position[list(top)] = np.arange(1, m + 1)
        for clicks in product((0, 1), repeat=m):
            click = np.zeros(n, int)
            click[list(top)] = clicks
            chance = np.prod(
                [
                    examination[j] * rel[i] if c else 1 - examination[j] * rel[i]
                    for j, (i, c) in enumerate(zip(top, clicks, strict=True))
                ]
            )
            rep = counterfactual_report(
                np.zeros(n), np.arange(n), position, click, new,
                examination=examination, logging_probability=incl,
                estimators=("ips", "dr"), relevance=np.full(n, 0.3), k=k,
                n_resamples=0,
            )  # fmt: skip
            for e in total:
                total[e] += p_list * chance * rep.loc[e, "estimate"]
    return total


def test_ips_and_dr_are_unbiased_by_enumeration():
    # One query, 4 candidates, a Plackett-Luce logger showing 2: every logged
    # list and click pattern enumerated, the estimates' expectation is the truth.
    w = np.array([2.0, 1.0, 0.5, 0.25])
    rel = np.array([0.2, 0.6, 0.9, 0.4])
    exam = np.array([0.9, 0.4])
    new = np.array([0.0, 1.0, 3.0, 2.0])  # new order: 2, 3, 1, 0
    truth = exam[0] * rel[2] + exam[1] * rel[3]
    got = _exact_expectation(w, exam, rel, 2, new, 2)
    assert got["ips"] == pytest.approx(truth, abs=1e-9)
    assert got["dr"] == pytest.approx(truth, abs=1e-9)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), relabel=st.integers(-50, 50))
def test_row_order_and_query_labels_do_not_matter(seed, relabel):
    sim = simulate_click_log(30, 6, 3, logger="softmax", random_state=seed)
    log = sim.log.assign(new=sim.log["feature"])
    kw = dict(
        examination=sim.examination,
        logging_probability=log["logging_probability"],
        estimators=("ips", "snips", "dr"),
        k=3,
    )
    base = _report(log, **kw)
    perm = np.random.default_rng(seed).permutation(len(log))
    shuffled = log.iloc[perm].assign(qid=lambda d: d["qid"] * 7 + relabel)
    kw["logging_probability"] = shuffled["logging_probability"]
    other = _report(shuffled, **kw)
    # the default relevance model splits queries by code, which relabelling
    # may change: DR is compared with its own run on the shuffled log only
    np.testing.assert_allclose(
        base.loc[["ips", "snips"], "estimate"], other.loc[["ips", "snips"], "estimate"]
    )


def test_inputs_are_not_modified():
    log = HAND.copy()
    arrays = {c: log[c].to_numpy().copy() for c in log.columns}
    _report(log, examination=np.array([1.0, 0.5]), logging_probability=log["p"], k=2)
    for c, before in arrays.items():
        np.testing.assert_array_equal(log[c].to_numpy(), before)


def _coverage(logger, estimated, reps, n_queries, seed0):
    hits = []
    for r in range(reps):
        ipq = 10 if estimated else 1
        sim = simulate_click_log(
            n_queries // ipq, 20, 10, impressions_per_query=ipq, logger=logger,
            random_state=seed0 + r,
        )  # fmt: skip
        log = sim.log
        new = log["feature"].to_numpy()
        exam = sim.examination
        if estimated:
            s = log["position"].notna()
            exam = estimate_position_bias(
                log.loc[s, "position"], log.loc[s, "click"], qid=log.loc[s, "query"],
                doc=log.loc[s, "item"], n_resamples=0,
            )  # fmt: skip
        rep = counterfactual_report(
            log["qid"], log["item"], log["position"], log["click"], new,
            examination=exam, logging_probability=log["logging_probability"],
            n_resamples=300, random_state=r,
        )  # fmt: skip
        truth = sim.true_value(new)
        hits.append(((rep["low"] <= truth) & (truth <= rep["high"])).to_numpy())
    return np.mean(hits, axis=0)


@pytest.mark.parametrize("logger", ["uniform", "softmax"])
@pytest.mark.parametrize("estimated", [False, True])
def test_ips_and_snips_intervals_cover_the_truth(logger, estimated):
    # 30 repeated logs: with a true coverage of 95%, fewer than 26 hits happen
    # with probability 1.6%, so the bound here is 85%; the study below repeats
    # 150 logs and holds the intervals to 90%.
    coverage = _coverage(logger, estimated, 30, 1000 if estimated else 400, 0)
    assert (coverage >= 0.85).all(), coverage


@pytest.mark.slow
@pytest.mark.parametrize("logger", ["uniform", "softmax"])
@pytest.mark.parametrize("estimated", [False, True])
def test_ips_and_snips_coverage_study(logger, estimated):
    coverage = _coverage(logger, estimated, 150, 1000 if estimated else 500, 10_000)
    assert (coverage >= 0.9).all(), coverage


def test_examination_none_is_estimated_from_the_log():
    sim = simulate_click_log(100, 10, 5, impressions_per_query=10, random_state=0)
    log = sim.log.assign(new=sim.log["feature"])
    s = log["position"].notna()
    bias = estimate_position_bias(
        log.loc[s, "position"], log.loc[s, "click"], qid=np.zeros(s.sum()),
        doc=log.loc[s, "item"], n_resamples=0,
    )  # fmt: skip
    kw = dict(logging_probability=log["logging_probability"], k=5)
    np.testing.assert_allclose(
        _report(log, **kw)["estimate"], _report(log, examination=bias, **kw)["estimate"]
    )


def test_examination_none_says_when_it_cannot_be_estimated():
    # every item shown at one position only, no features: not identifiable
    with pytest.raises(ValueError, match="examination=None: the examination could"):
        counterfactual_report(
            [1, 1, 2, 2], [1, 2, 3, 4], [1, 2, 1, 2], [1, 0, 0, 1], [1.0, 2, 3, 4],
            k=2, n_resamples=0,
        )  # fmt: skip


def test_dr_with_the_true_relevance_fills_what_the_logger_never_showed():
    # Deterministic logger (logging_probability=None): the new ranker's top 10
    # holds items never shown; IPS is biased low and warns, DR with the true
    # relevance stays on the truth.
    sim = simulate_click_log(3000, 20, 10, random_state=1)
    log = sim.log
    shown = log["position"].notna()
    # a logger that always showed the same items: keep only shown rows' clicks
    new = log["relevance"].to_numpy()
    with pytest.warns(UserWarning, match="could not show"):
        rep = counterfactual_report(
            log["qid"], log["item"], log["position"], log["click"], new,
            examination=sim.examination, estimators=("ips", "dr"),
            relevance=log["relevance"], n_resamples=200, random_state=0,
        )  # fmt: skip
    truth = sim.true_value(new)
    assert rep.loc["ips", "high"] < truth
    assert rep.loc["dr", "low"] <= truth <= rep.loc["dr", "high"]
    assert 0 < rep.loc["ips", "unsupported_share"] < 1
    assert shown.mean() == 0.5


def test_default_dr_model_learns_from_repeated_items():
    sim = simulate_click_log(200, 20, 10, impressions_per_query=10, random_state=2)
    log = sim.log
    new = log["feature"].to_numpy()
    rep = counterfactual_report(
        log["qid"], log["item"], log["position"], log["click"], new,
        examination=sim.examination, logging_probability=log["logging_probability"],
        estimators=("ips", "dr"), n_resamples=200, random_state=0,
    )  # fmt: skip
    truth = sim.true_value(new)
    width = rep["high"] - rep["low"]
    assert width["dr"] < width["ips"]
    assert rep.loc["dr", "low"] <= truth <= rep.loc["dr", "high"]


def test_clipping_reports_its_bias():
    sim = simulate_click_log(2000, 20, 10, logger="softmax", random_state=3)
    log = sim.log.assign(new=sim.log["feature"])
    kw = dict(
        examination=sim.examination, logging_probability=log["logging_probability"]
    )
    plain = _report(log, **kw)
    clipped = _report(log, clip=5.0, **kw)
    assert clipped.loc["ips", "estimate"] < plain.loc["ips", "estimate"]
    assert clipped.loc["ips", "clipping_bias"] == pytest.approx(
        clipped.loc["ips", "estimate"] - plain.loc["ips", "estimate"]
    )
    assert 0 < clipped.loc["ips", "clipped_share"] < 1
    assert clipped.loc["ips", "max_weight"] <= 5.0 * 1.0 + 1e-12
    assert plain.loc["ips", "clipping_bias"] == 0.0
    assert (
        clipped.loc["ips", "effective_sample_size"]
        > plain.loc["ips", "effective_sample_size"]
    )


def test_cascade_estimator_covers_the_cascade_truth():
    hits = []
    for r in range(10):
        sim = simulate_click_log(
            60, 20, 10, click_model="cascade", impressions_per_query=20,
            random_state=r,
        )  # fmt: skip
        log = sim.log
        new = log["feature"].to_numpy()
        rep = counterfactual_report(
            log["qid"], log["item"], log["position"], log["click"], new,
            estimators="cascade", k=3, n_resamples=200, random_state=r,
        )  # fmt: skip
        truth = sim.true_value(new, k=3)
        hits.append(rep.loc["cascade", "low"] <= truth <= rep.loc["cascade", "high"])
    assert np.mean(hits) >= 0.9
    assert np.isnan(rep.loc["cascade", "effective_sample_size"])


def test_no_warning_when_the_logger_could_show_everything():
    sim = simulate_click_log(50, 10, 5, random_state=0)
    log = sim.log.assign(new=sim.log["feature"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rep = _report(
            log, examination=sim.examination, k=5,
            logging_probability=log["logging_probability"],
        )  # fmt: skip
    assert (rep["unsupported_share"] == 0).all()


def _bad(**changes):
    cols = {c: HAND[c].to_numpy() for c in HAND.columns}
    kw = {"examination": [1.0, 0.5], "logging_probability": cols.pop("p"), "k": 2}
    for key, value in changes.items():
        (cols if key in cols else kw)[key] = value
    return counterfactual_report(
        cols["qid"], cols["item"], cols["position"], cols["click"], cols["new"],
        n_resamples=0, **kw,
    )  # fmt: skip


@pytest.mark.parametrize(
    "changes, match",
    [
        (
            {"logging_probability": [0.0, 0.5, 0.5, 1, 1]},
            "logging_probability is 0 at row 0",
        ),
        (
            {"logging_probability": [1.5, 0.5, 0.5, 1, 1]},
            r"in \[0, 1\], got 1.5 at row 0",
        ),
        ({"logging_probability": [0.5, -0.1, 0.5, 1, 1]}, "got -0.1 at row 1"),
        ({"logging_probability": [0.5, 0.5, np.nan, 1, 1]}, "got nan at row 2"),
        (
            {"logging_probability": [0.5, 0.5]},
            "logging_probability must hold one value",
        ),
        ({"click": [1, 0, 1, 1, 1]}, r"click is 1 on 1 row\(s\) never shown"),
        ({"click": [2, 0, 0, 1, 1]}, "click must be 0/1"),
        ({"examination": [1.0]}, "examination has 1 position.* down to position 2"),
        ({"examination": [1.0, 0.5], "k": 3}, "k=3"),
        ({"examination": [1.0, 0.0]}, r"probability in \(0, 1\].*position 2"),
        ({"examination": [1.0, 1.2]}, "got 1.2 at position 2"),
        ({"new": [1.0, np.nan, 0, 0, 0]}, "new_score contains 1 NaN"),
        ({"new": [1.0, 2.0]}, "new_score must hold one value per row"),
        ({"item": ["a"]}, "item must hold one value per row"),
        ({"position": [1, 1, np.nan, 2, 1]}, "share qid 1 and position 1"),
        ({"position": [0, 2, np.nan, 2, 1]}, "whole number >= 1"),
        ({"position": [1.5, 2, np.nan, 2, 1]}, "got 1.5 at row 0"),
        ({"estimators": ("ips", "magic")}, "estimators must be distinct names"),
        ({"estimators": ("ips", "ips")}, "estimators must be distinct names"),
        ({"estimators": "cascade", "target": "dcg"}, "target='clicks' only"),
        ({"position": [np.nan] * 5, "click": [0] * 5}, "shows nothing"),
        # A missing query or item id was a query or an item of its own (NaN),
        # or failed inside numpy (None); a text click failed in an f-string.
        ({"qid": [1, 1, 1, np.nan, np.nan]}, "qid is missing at row 3"),
        ({"qid": np.array([1, 1, 1, 2, None])}, "qid is missing at row 4"),
        ({"qid": pd.array([1, 1, None, 2, 2], dtype="Int64")},
         "qid is missing at row 2"),
        ({"item": ["a", None, "c", "x", "y"]}, "item is missing at row 1"),
        ({"click": pd.array([1, 0, None, 1, 1], dtype="boolean")},
         "click is missing at row 2"),
        ({"click": pd.Series(["1", "0", "0", "1", "1"], dtype=object)},
         "click must be 0/1 or boolean, got '1' at row 0"),
        ({"qid": pd.Series(["q", "q", "q", "r", "r"], dtype=object),
          "position": [1, 1, np.nan, 2, 1]}, "share qid 'q' and position 1"),
    ],
)  # fmt: skip
def test_bad_input_names_the_argument(changes, match):
    with pytest.raises(ValueError, match=match):
        _bad(**changes)


def test_ids_of_mixed_types_are_ids():
    """Query and item ids of mixed kinds (1 and "x") failed inside numpy."""
    mixed = HAND.assign(qid=np.array([1, 1, 1, "x", "x"], dtype=object),
                        item=np.array(["a", 2, "c", 4, "y"], dtype=object))  # fmt: skip
    kw = {"examination": [1.0, 0.5], "logging_probability": HAND["p"], "k": 2,
          "estimators": ["ips", "dr", "cascade"]}  # fmt: skip
    assert _report(mixed, **kw).equals(_report(HAND, **kw))


def test_estimated_examination_may_exceed_one():
    from skndcg.evaluation import PositionBias

    bias = PositionBias(np.array([1.0, 1.1]), np.full(2, np.nan), np.full(2, np.nan),
                        "em", np.array([5, 5]))  # fmt: skip
    rep = _bad(examination=bias)
    assert np.isfinite(rep["estimate"]).all()


def test_cascade_bootstrap_equals_a_refit_on_each_resampled_log():
    from skndcg.evaluation._shared import as_generator, multinomial_counts
    from skndcg.online._cascade import cascade_estimate
    from skndcg.online._clicklog import check_click_log

    sim = simulate_click_log(
        8, 6, 4, click_model="cascade", impressions_per_query=3, random_state=5
    )
    log = sim.log
    new = log["feature"].to_numpy()
    cols = (log["qid"], log["item"], log["position"], log["click"], new)
    items = pd.factorize(np.asarray(log["item"]))[0]
    est, boot, _ = cascade_estimate(
        check_click_log(*cols), items, 3, 30, as_generator(7)
    )
    point = counterfactual_report(*cols, estimators="cascade", k=3, n_resamples=0)
    assert abs(est - point.loc["cascade", "estimate"]) < 1e-12
    # the same draws: each resample is the log with every query repeated as
    # often as it was drawn (the qids are 0..23 in order), refitted from rows
    counts = multinomial_counts(as_generator(7), 30, 24).astype(int)
    qid = log["qid"].to_numpy()
    for b in range(30):
        parts = [
            log[qid == q].assign(qid=1000 * q + r)
            for q in range(24)
            for r in range(counts[b, q])
        ]
        rs = pd.concat(parts, ignore_index=True)
        ref = counterfactual_report(
            rs["qid"], rs["item"], rs["position"], rs["click"], rs["feature"],
            estimators="cascade", k=3, n_resamples=0,
        )  # fmt: skip
        assert abs(boot[b] - ref.loc["cascade", "estimate"]) < 1e-12


@pytest.mark.parametrize("estimators", ["ips", "dr", "cascade"])
def test_an_item_twice_in_a_logged_query_is_refused(estimators):
    """An item on two rows of one logged query was pooled by the doubly
    robust and cascade estimators and ranked twice in the new top k."""
    log = HAND.assign(item=["a", "b", "a", "x", "y"])
    with pytest.raises(ValueError, match=r"rows \[0, 2\] share qid 1 and item "
                       r"'a': .*its own qid"):  # fmt: skip
        _report(log, examination=[1.0, 0.5], k=2, estimators=estimators)
    # the same item in two queries (or impressions) is the usual log
    kw = {"examination": [1.0, 0.5], "logging_probability": HAND["p"], "k": 2}
    _report(HAND.assign(item=["a", "b", "c", "a", "b"]), estimators=estimators, **kw)


@pytest.mark.parametrize("estimators", ["ips", "cascade"])
def test_too_few_resamples_for_the_confidence_are_refused(estimators):
    # n_resamples=1 gave the interval [x, x], which can exclude the estimate,
    # where bootstrap_ci, compare and the other doors refuse it.
    kw = dict(examination=[1.0, 0.5], logging_probability=HAND["p"], k=2)
    kw["estimators"] = estimators
    with pytest.raises(ValueError, match=r"n_resamples=1 is too few for "
                       r"confidence=0.95.*n_resamples=41 or more"):  # fmt: skip
        _report(HAND, n_resamples=1, **kw)
    with pytest.raises(ValueError, match=r"=100 .*0.99.*=201 or more"):
        _report(HAND, n_resamples=100, confidence=0.99, **kw)
    assert np.isnan(_report(HAND, **kw)["low"]).all()  # 0 still skips them
    assert np.isfinite(_report(HAND, n_resamples=41, **kw)["low"]).all()
