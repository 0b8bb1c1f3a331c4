"""Bootstrap intervals over queries: hand checks, coverage, properties, errors."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skndcg.evaluation import SmallSampleWarning, bootstrap_ci, paired_bootstrap
from skndcg.evaluation._stats import _bootstrap


def _by_hand(values, n_resamples, confidence, seed):
    """Percentile interval of resampled means, drawn with the same generator."""
    rs = np.random.RandomState(seed)
    idx = rs.randint(0, len(values), size=(n_resamples, len(values)))
    means = np.asarray(values)[idx].mean(axis=1)
    alpha = 1 - confidence
    return means, np.percentile(means, [100 * alpha / 2, 100 * (1 - alpha / 2)])


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_matches_hand_computation(monkeypatch):
    values = np.array([0.1, 0.5, 0.9, 0.3, 0.0, 1.0, 0.7])
    _, (low, high) = _by_hand(values, 500, 0.9, seed=42)
    ci = bootstrap_ci(values, n_resamples=500, confidence=0.9, random_state=42)
    assert ci.estimate == pytest.approx(values.mean())
    assert (ci.low, ci.high) == pytest.approx((low, high))
    # Resampling in chunks draws the same stream as one big draw.
    monkeypatch.setattr(_bootstrap, "_CHUNK_CELLS", 20)
    chunked = bootstrap_ci(values, n_resamples=500, confidence=0.9, random_state=42)
    assert chunked == ci


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_tiny_case_exact():
    # Two values: every resampled mean is 0, 0.5 or 1 with probabilities
    # 1/4, 1/2, 1/4; a 40% interval covers only the middle.
    ci = bootstrap_ci([0.0, 1.0], n_resamples=4000, confidence=0.4, random_state=0)
    assert ci == (0.5, 0.5, 0.5)
    assert bootstrap_ci([0.3], random_state=0) == pytest.approx((0.3, 0.3, 0.3))


def test_coverage_on_simulated_data():
    """About 95% of 95% intervals cover the true mean."""
    rng = np.random.default_rng(0)
    true_mean, hits, n_trials = 0.4, 0, 300
    for trial in range(n_trials):
        sample = rng.beta(2, 3, size=120)  # mean 2 / (2 + 3) = 0.4
        ci = bootstrap_ci(sample, n_resamples=300, random_state=trial)
        hits += ci.low <= true_mean <= ci.high
    assert 0.90 <= hits / n_trials <= 0.99


def test_width_shrinks_with_more_queries():
    rng = np.random.default_rng(1)
    small = bootstrap_ci(rng.random(50), random_state=0)
    large = bootstrap_ci(rng.random(5000), random_state=0)
    assert large.high - large.low < (small.high - small.low) / 5


def test_paired_matches_hand_computation():
    rng = np.random.default_rng(3)
    b = rng.random(40)
    a = b + rng.normal(0.05, 0.1, 40)
    means, (low, high) = _by_hand(a - b, 700, 0.95, seed=9)
    res = paired_bootstrap(a, b, n_resamples=700, random_state=9)
    assert res.difference == pytest.approx(np.mean(a - b))
    assert (res.low, res.high) == pytest.approx((low, high))
    # The observed difference counts as a resample: never below 1 / (B + 1).
    far = np.sum(means <= 0)
    assert res.p_value == pytest.approx(min(1.0, 2 * (far + 1) / (700 + 1)))
    swapped = paired_bootstrap(b, a, n_resamples=700, random_state=9)
    assert swapped.difference == pytest.approx(-res.difference)
    assert (swapped.low, swapped.high) == pytest.approx((-high, -low))
    assert swapped.p_value == pytest.approx(res.p_value)


def test_paired_is_narrower_than_separate_intervals():
    rng = np.random.default_rng(4)
    query_difficulty = rng.random(200)
    a = query_difficulty + 0.03 + rng.normal(0, 0.02, 200)
    b = query_difficulty
    paired = paired_bootstrap(a, b, random_state=0)
    ci_a, ci_b = bootstrap_ci(a, random_state=0), bootstrap_ci(b, random_state=0)
    assert ci_a.low < ci_b.high  # separate intervals overlap ...
    assert paired.low > 0 and paired.p_value < 0.01  # ... the paired one does not


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_paired_constant_and_equal():
    b = np.array([0.2, 0.5, 0.9])
    res = paired_bootstrap(b + 0.1, b, random_state=0)
    # No resample is on the far side; the p-value is floored at 2 / (B + 1).
    assert res == pytest.approx((0.1, 0.1, 0.1, 2 / 1001))
    assert paired_bootstrap(b, b, random_state=0) == (0.0, 0.0, 0.0, 1.0)


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_nan_policy():
    values = [0.2, np.nan, 0.6]
    assert bootstrap_ci(values, random_state=0) == bootstrap_ci(
        [0.2, 0.6], random_state=0
    )
    with pytest.raises(ValueError, match=r"values contains 1 NaN value\(s\)"):
        bootstrap_ci(values, nan_policy="raise")
    assert np.isnan(bootstrap_ci([np.nan, np.nan])).all()
    res = paired_bootstrap([0.5, np.nan, 0.7], [0.4, 0.3, np.nan], random_state=0)
    assert res[:3] == pytest.approx((0.1, 0.1, 0.1))
    with pytest.raises(ValueError, match=r"a or b contains 2 NaN"):
        paired_bootstrap([0.5, np.nan, 0.7], [0.4, 0.3, np.nan], nan_policy="raise")
    assert np.isnan(paired_bootstrap([np.nan], [0.1])).all()


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_edge_cases_give_the_documented_results():
    # constant values: the interval shrinks to the value
    assert tuple(bootstrap_ci([0.25] * 6, random_state=0)) == (0.25, 0.25, 0.25)
    # every resample draws only zero-weight queries: no bounds
    assert np.isnan(_bootstrap._interval(np.full(41, np.nan), 0.95)).all()
    # some do: they are left out of the percentiles
    values, weights = np.array([9.0, 9.0, 0.0, 2.0]), np.array([0.0, 0.0, 1.0, 1.0])
    means = _bootstrap._resampled_means(values, 300, 5, weights)
    assert 0 < np.isnan(means).sum() < 300
    ci = bootstrap_ci(values, sample_weight=weights, n_resamples=300, random_state=5)
    expected = np.percentile(means[~np.isnan(means)], [2.5, 97.5])
    assert (ci.low, ci.high) == tuple(expected)


def test_errors():
    with pytest.raises(ValueError, match=r"values must be one-dimensional.*\(2, 2\)"):
        bootstrap_ci([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(ValueError, match="values contains infinite"):
        bootstrap_ci([0.1, np.inf])
    with pytest.raises(ValueError, match="got 2 and 3 values"):
        paired_bootstrap([0.1, 0.2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="'confidence' parameter"):
        bootstrap_ci([0.1, 0.2], confidence=95)
    with pytest.raises(ValueError, match="'n_resamples' parameter"):
        paired_bootstrap([0.1], [0.2], n_resamples=0)
    with pytest.raises(ValueError, match="'nan_policy' parameter"):
        bootstrap_ci([0.1], nan_policy="drop")


values_st = st.lists(
    st.floats(0, 1, allow_nan=False, allow_subnormal=False), min_size=1, max_size=30
)


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
@given(values=values_st, seed=st.integers(0, 1000), shift=st.floats(-5, 5))
def test_bounds_and_shift_equivariance(values, seed, shift):
    ci = bootstrap_ci(values, n_resamples=50, random_state=seed)
    assert min(values) - 1e-12 <= ci.low <= ci.high <= max(values) + 1e-12
    moved = bootstrap_ci(np.add(values, shift), n_resamples=50, random_state=seed)
    assert np.allclose(np.subtract(moved, shift), ci, atol=1e-9)


def test_series_are_aligned_by_label():
    # A Series b (or sample_weight) in another order than a is matched by
    # query, not by position; labels that do not match are refused.
    rng = np.random.default_rng(0)
    a = pd.Series(rng.random(20))
    b = a + 0.1
    shuffled = b.sample(frac=1, random_state=1)
    assert paired_bootstrap(a, shuffled, random_state=0) == paired_bootstrap(
        a, b, random_state=0
    )
    w = pd.Series(np.arange(20.0))
    shuffled_w = w.sample(frac=1, random_state=2)
    assert bootstrap_ci(a, sample_weight=shuffled_w, random_state=0) == (
        bootstrap_ci(a, sample_weight=w, random_state=0)
    )
    with pytest.raises(ValueError, match="b is a Series whose index does not hold"):
        paired_bootstrap(a, pd.Series(b.to_numpy(), index=np.arange(100, 120)))
    with pytest.raises(ValueError, match="sample_weight is a Series whose index"):
        paired_bootstrap(a, b, sample_weight=w.iloc[:19])


def test_few_queries_warn():
    with pytest.warns(SmallSampleWarning, match=r"only 1 query .* too narrow"):
        ci = bootstrap_ci([0.5], random_state=0)
    assert ci == (0.5, 0.5, 0.5)
    with pytest.warns(SmallSampleWarning, match=r"only 3 queries .* p-value too"):
        paired_bootstrap([0.3, 0.4, 0.5], [0.1, 0.2, 0.3], random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bootstrap_ci(np.linspace(0, 1, 10), random_state=0)


def test_non_numbers_name_the_argument():
    with pytest.raises(ValueError, match=r"values must hold numbers.*dict"):
        bootstrap_ci({"q1": 0.1, "q2": 0.5})
    with pytest.raises(ValueError, match="sample_weight must hold numbers"):
        bootstrap_ci([0.1, 0.5], sample_weight=["a", "b"])
    with pytest.raises(ValueError, match="b must hold numbers"):
        paired_bootstrap([0.1, 0.5], ["x", "y"])


def test_too_few_resamples_for_the_confidence_are_refused_at_every_door():
    # One resample gave the interval [x, x], which can exclude the estimate;
    # each tail of a percentile interval needs a resample beyond its bound:
    # n_resamples >= 1 + 2 / (1 - confidence), 41 at 95% and 201 at 99%.
    from skndcg.evaluation import (
        compare,
        estimate_position_bias,
        prediction_powered_report,
    )

    values = np.linspace(0, 1, 12)
    ci = bootstrap_ci(values, n_resamples=41, random_state=0)
    assert ci.low < ci.estimate < ci.high
    scores = pd.DataFrame(
        {"model": ["a"] * 12 + ["b"] * 12, "qid": np.tile(range(12), 2),
         "m": np.r_[values, values[::-1]]}
    )  # fmt: skip
    qid = np.repeat(np.arange(12), 3)
    y = np.tile([0.0, 1.0, 2.0], 12)
    pos, clk = np.tile([1, 2, 3], 12), np.tile([1, 0, 0], 12)
    doors = {
        "bootstrap_ci": lambda **kw: bootstrap_ci(values, **kw),
        "paired_bootstrap": lambda **kw: paired_bootstrap(values, values[::-1], **kw),
        "compare": lambda **kw: compare(scores, **kw),
        "prediction_powered_report": lambda **kw: prediction_powered_report(
            y, y, -y, qid, interval="bootstrap", **kw
        ),
    }
    for call in doors.values():
        with pytest.raises(ValueError, match=r"n_resamples=1 is too few for "
                           r"confidence=0.95.*n_resamples=41 or more"):  # fmt: skip
            call(n_resamples=1)
        with pytest.raises(ValueError, match=r"=100 .*0.99.*=201 or more"):
            call(n_resamples=100, confidence=0.99)
    # Position bias: the band is a one-sided quantile, >= 1 + 1 / (1 - 0.95).
    with pytest.raises(ValueError, match=r"=20 is too few .*=21 or more"):
        estimate_position_bias(pos, clk, qid=qid, doc=pos, n_resamples=20)


def test_a_numpy_generator_is_a_random_state_as_in_compare():
    # compare took a numpy Generator; bootstrap_ci and paired_bootstrap refused it.
    values = np.linspace(0, 1, 12)
    ci = bootstrap_ci(values, random_state=np.random.default_rng(0))
    assert ci == bootstrap_ci(values, random_state=np.random.default_rng(0))
    assert ci.low < ci.estimate < ci.high
    res = paired_bootstrap(values, values[::-1], random_state=np.random.default_rng(1))
    assert res.low < res.difference < res.high
    # An int or a RandomState draws the same stream as before.
    assert bootstrap_ci(values, random_state=3) == bootstrap_ci(
        values, random_state=np.random.RandomState(3)
    )


def test_compare_checks_n_resamples_only_where_it_resamples():
    # A prediction-powered comparison with test="t" draws no resample, yet
    # refused n_resamples=1 as too few for its confidence.
    from skndcg.evaluation import compare

    rng = np.random.default_rng(0)
    model = pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], 40),
            "qid": np.tile(np.arange(40), 2),
            "m": rng.random(80),
        }
    )
    human = model[model["qid"] < 20].assign(m=lambda d: d["m"] + 0.1)
    cmp = compare(human, y_model=model, test="t", n_resamples=1)
    assert (cmp.to_frame()["low"] < cmp.to_frame()["mean"]).all()
    with pytest.raises(ValueError, match=r"n_resamples=1 is too few"):
        compare(human, y_model=model, n_resamples=1)
    with pytest.raises(ValueError, match=r"n_resamples must be an .* got 'many'"):
        compare(human, y_model=model, test="t", n_resamples="many")
