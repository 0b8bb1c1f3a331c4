"""Sample-size planning: required_queries and minimum_detectable_effect."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skndcg.evaluation import (
    SmallSampleWarning,
    compare,
    minimum_detectable_effect,
    required_queries,
)


def _power_nct(n, effect, sd, alpha):
    """Exact power of the two-sided paired t-test (noncentral t)."""
    df, ncp = n - 1, effect * math.sqrt(n) / sd
    crit = stats.t.ppf(1 - alpha / 2, df)
    return stats.nct.sf(crit, df, ncp) + stats.nct.cdf(-crit, df, ncp)


@pytest.mark.parametrize(
    ("effect", "sd", "alpha", "power"),
    [
        (0.02, 0.1, 0.05, 0.8),
        (0.05, 0.2, 0.01, 0.9),
        (0.5, 1.0, 0.05, 0.8),
        (1.0, 1.0, 0.05, 0.8),
    ],
)
def test_required_queries_is_the_smallest_with_the_power(effect, sd, alpha, power):
    n = required_queries(effect=effect, sd=sd, alpha=alpha, power=power)
    # The t approximation reaches (about) the exact noncentral-t power at n ...
    assert _power_nct(n, effect, sd, alpha) >= power - 0.01
    # ... and the condition it solves fails at n - 1.
    df = n - 2
    need = (
        (stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)) * sd / effect
    ) ** 2
    assert n == 2 or need > n - 1


def test_sakai_topic_set_size_cross_check():
    # Sakai (2016), paired t-test: n ~ ((z_a/2 + z_b) / (delta / sigma))^2
    # + z_a/2^2 / 2, the normal start his tool then refines.
    for effect, sd in [(0.02, 0.1), (0.05, 0.15), (0.1, 0.2)]:
        z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
        sakai = (z * sd / effect) ** 2 + stats.norm.ppf(0.975) ** 2 / 2
        assert abs(required_queries(effect=effect, sd=sd) - math.ceil(sakai)) <= 1


def test_mde_and_required_queries_are_inverse():
    for n in (20, 50, 199, 1000):
        mde = minimum_detectable_effect(n_queries=n, sd=0.1)
        assert required_queries(effect=mde * 1.0001, sd=0.1) <= n
        assert required_queries(effect=mde * 0.98, sd=0.1) > n - 1


def test_correction_over_m_comparisons_is_bonferroni():
    plain = required_queries(effect=0.02, sd=0.1, alpha=0.01)
    assert required_queries(effect=0.02, sd=0.1, n_comparisons=5) == plain
    assert minimum_detectable_effect(
        n_queries=100, sd=0.1, n_comparisons=5
    ) == pytest.approx(minimum_detectable_effect(n_queries=100, sd=0.1, alpha=0.01))
    one = required_queries(effect=0.02, sd=0.1, alternative="greater")
    assert one < required_queries(effect=0.02, sd=0.1)


def _frame(a, b):
    n = len(a)
    return pd.DataFrame(
        {
            "model": ["a"] * n + ["b"] * n,
            "qid": np.tile(np.arange(n), 2),
            "m": np.r_[a, b],
        }
    )


def test_pilot_comparison_gives_the_sd():
    rng = np.random.default_rng(0)
    b = rng.random(40)
    a = b + rng.normal(0.01, 0.12, 40)
    pilot = compare(_frame(a, b), baseline="b", n_resamples=200, random_state=0)
    sd = float(np.std(a - b, ddof=1))
    assert required_queries(effect=0.02, sd=pilot) == required_queries(
        effect=0.02, sd=sd
    )
    assert minimum_detectable_effect(n_queries=300, sd=pilot) == pytest.approx(
        minimum_detectable_effect(n_queries=300, sd=sd)
    )
    with pytest.raises(ValueError, match="metric='x' is not one of"):
        required_queries(effect=0.02, sd=pilot, metric="x")
    with pytest.raises(ValueError, match="pair=\\('b', 'a'\\) is not one of"):
        required_queries(effect=0.02, sd=pilot, pair=("b", "a"))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(effect=0, sd=1), "effect must be a positive number"),
        (dict(effect=0.1, sd=-1), "sd must be a positive number"),
        (dict(effect=0.1, sd=1, alpha=1.5), "alpha must be a number strictly"),
        (dict(effect=0.1, sd=1, power=0), "power must be a number strictly"),
        (dict(effect=0.1, sd=1, n_comparisons=0), "n_comparisons must be"),
        (dict(effect=0.1, sd=1, alternative="less"), "alternative must be"),
        (dict(effect=1e-9, sd=1), "more than 1000000000 queries"),
        (dict(effect=0.1, sd=1, metric="m"), "metric= and pair= choose from a pilot"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        required_queries(**kwargs)
    with pytest.raises(ValueError, match="n_queries must be an integer >= 2"):
        minimum_detectable_effect(n_queries=1, sd=1)


def test_minimum_detectable_effect_of_a_huge_n_queries():
    # scipy takes no integer beyond int64 ("ufunc 'stdtrit' not supported").
    for n in (10**30, 10**400, 10**1000):
        mde = minimum_detectable_effect(n_queries=n, sd=0.1)
        z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
        assert mde == pytest.approx(z * 0.1 / math.sqrt(float(n)) if n < 10**300 else 0)


def test_simulated_power_with_the_project_tests():
    """At the planned size the randomization and t tests reach the power."""
    effect, sd = 0.5, 1.0
    n = required_queries(effect=effect, sd=sd)  # 34
    rng = np.random.default_rng(1)
    hits = {"randomization": 0, "t": 0}
    n_sims = 150
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        for i in range(n_sims):
            b = rng.random(n)
            a = b + rng.normal(effect, sd, n)
            for test in hits:
                row = compare(
                    _frame(a, b),
                    baseline="b",
                    test=test,
                    n_resamples=400,
                    correction=None,
                    random_state=i,
                ).to_frame(pairs=True)
                hits[test] += row["p_value"][0] <= 0.05
    for test, h in hits.items():
        # Power 0.8 planned; 150 simulations: a standard error of about 0.033.
        assert 0.70 <= h / n_sims <= 0.92, (test, h / n_sims)


def test_pilot_weights_clusters_and_segments():
    rng = np.random.default_rng(1)
    b = rng.random(60)
    a = b + rng.normal(0.02, 0.1, 60)
    frame = _frame(a, b)
    plain = compare(frame, baseline="b", n_resamples=50, random_state=0)
    # A SegmentedComparison was read as a number: "sd must be a positive number".
    seg = compare(frame, baseline="b", by={q: q % 2 for q in range(60)},
                  n_resamples=100, random_state=0)  # fmt: skip
    with pytest.raises(
        ValueError,
        match=r"sd is a SegmentedComparison; pass the "
        r"Comparison of one segment, sd=pilot\[segment\].*\[0, 1\]",
    ):
        required_queries(effect=0.02, sd=seg)  # fmt: skip
    assert required_queries(effect=0.02, sd=seg[1]) > 0
    # Weights and clusters were ignored. Weighted: the sd whose sqrt(n)-th is
    # the weighted mean's standard error; equal weights change nothing.
    w = rng.integers(1, 4, 60).astype(float)
    weighted = compare(frame, baseline="b", sample_weight=w, n_resamples=50)
    d = a - b
    r = w * (d - np.average(d, weights=w))
    se = np.sqrt(np.sum(r**2) / w.sum() ** 2 * 60 / 59)
    n = required_queries(effect=0.02, sd=weighted)
    assert n == required_queries(effect=0.02, sd=se * np.sqrt(60))
    assert n != required_queries(effect=0.02, sd=plain)
    same = compare(frame, baseline="b", sample_weight=np.full(60, 3.0), n_resamples=50)
    assert required_queries(effect=0.02, sd=same) == required_queries(
        effect=0.02, sd=plain
    )
    # Clustered: queries of a cluster that move together need more queries.
    cluster = np.arange(60) // 6
    d_c = np.repeat(rng.normal(0.02, 0.1, 10), 6) + rng.normal(0, 0.01, 60)
    clustered = _frame(b + d_c, b)
    flat = compare(clustered, baseline="b", n_resamples=50)
    robust = compare(clustered, baseline="b", cluster=cluster, n_resamples=50)
    totals = np.bincount(cluster, weights=d_c - d_c.mean())
    se_c = np.sqrt(np.sum(totals**2) / 60**2 * 10 / 9)
    assert minimum_detectable_effect(n_queries=300, sd=robust) == pytest.approx(
        minimum_detectable_effect(n_queries=300, sd=se_c * np.sqrt(60))
    )
    assert required_queries(effect=0.02, sd=robust) > 2 * required_queries(
        effect=0.02, sd=flat
    )
    one = compare(clustered, baseline="b", cluster=np.zeros(60), min_queries=0)
    with pytest.raises(ValueError, match=r"the pilot has 1 cluster for 'a' - 'b'"):
        required_queries(effect=0.02, sd=one)
