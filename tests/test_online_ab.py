"""ab_test: references (scipy, brute force), known truth by simulation, errors."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from skndcg.online import ab_test
from skndcg.online._ab import mixture_multiplier, mixture_p_value


def _users(n_users, seed, per_user=3, lift=0.0, sd_user=0.15, sd_query=0.1):
    """Per-query values clustered by user, arms alternating by user."""
    rng = np.random.default_rng(seed)
    user = np.repeat(np.arange(n_users), per_user)
    arm = np.where(user % 2 == 0, "A", "B")
    value = (
        0.6
        + rng.normal(0, sd_user, n_users)[user]
        + rng.normal(0, sd_query, user.size)
        + lift * (arm == "B")
    )
    return value, arm, user


def test_one_row_per_unit_is_welchs_test():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.5, 0.2, 300), rng.normal(0.55, 0.3, 200)
    arm = np.r_[["A"] * 300, ["B"] * 200]
    res = ab_test(np.r_[a, b], arm, np.arange(500), split={"A": 0.6, "B": 0.4})
    ref = stats.ttest_ind(b, a, equal_var=False)
    ci = ref.confidence_interval(0.95)
    assert res.lift == pytest.approx(b.mean() - a.mean(), rel=1e-12)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert (res.low, res.high) == pytest.approx((ci.low, ci.high), rel=1e-9)
    # Relative lift: delta method by hand.
    se = np.sqrt(b.var(ddof=1) / 200 / a.mean() ** 2
                 + b.mean() ** 2 * a.var(ddof=1) / 300 / a.mean() ** 4)  # fmt: skip
    t = stats.t.ppf(0.975, ref.df)
    assert res.relative_lift == pytest.approx(b.mean() / a.mean() - 1, rel=1e-12)
    assert res.relative_low == pytest.approx(res.relative_lift - t * se, rel=1e-9)
    assert res.srm_p_value == pytest.approx(1.0)
    assert ab_test(np.r_[a, b], arm, np.arange(500)).srm_p_value == pytest.approx(
        stats.chisquare([300, 200]).pvalue
    )


def test_clustered_values_use_the_delta_method_over_units():
    value, arm, user = _users(400, 1)
    res = ab_test(value, arm, user)
    # Brute force: the ratio of sums per arm and the sandwich variance over units.
    var = {}
    for a in ("A", "B"):
        sel = arm == a
        units = pd.DataFrame({"u": user[sel], "v": value[sel]}).groupby("u")["v"]
        y, n = units.sum().to_numpy(), units.count().to_numpy()
        r = y.sum() / n.sum()
        assert r == pytest.approx(value[sel].mean(), rel=1e-12)
        g = y.size
        var[a] = g / (g - 1) * np.sum((y - r * n) ** 2) / n.sum() ** 2
    se = np.sqrt(var["A"] + var["B"])
    assert res.lift == pytest.approx(
        value[arm == "B"].mean() - value[arm == "A"].mean()
    )
    assert (res.high - res.low) / 2 == pytest.approx(
        stats.t.ppf(0.975, 397.9) * se, rel=1e-3
    )
    assert res.to_frame()["n_units"].item() == 200
    # average="units" is the test on the per-unit means, one row each.
    means = pd.Series(value).groupby(user).mean()
    per = ab_test(means.to_numpy(), np.where(means.index % 2, "B", "A"), means.index)
    got = ab_test(value, arm, user, average="units")
    assert (got.lift, got.p_value) == pytest.approx((per.lift, per.p_value), rel=1e-12)


def test_clustered_intervals_cover_where_row_level_ones_do_not():
    # A/A tests on users with three correlated queries each: the interval over
    # users covers 0 about 95% of the time; treating queries as independent
    # (each query its own unit) covers far less.
    hits_user = hits_row = 0
    for seed in range(200):
        value, arm, user = _users(200, seed, sd_user=0.2, sd_query=0.05)
        hits_user += ab_test(value, arm, user).p_value > 0.05
        hits_row += ab_test(value, arm, np.arange(value.size)).p_value > 0.05
    assert 0.91 <= hits_user / 200 <= 0.99
    assert hits_row / 200 < 0.85


def test_cuped_narrows_the_interval_as_theory_says():
    # Unit metric and pre-period metric correlated at rho: the lift's variance
    # shrinks by the factor 1 - rho**2, and the interval's width by its root.
    rng = np.random.default_rng(2)
    n, rho = 40_000, 0.7
    pre = rng.normal(0, 1, n)
    y = 0.5 + rho * pre + np.sqrt(1 - rho**2) * rng.normal(0, 1, n)
    arm = np.where(np.arange(n) % 2, "B", "A")
    y = y + 0.01 * (arm == "B")
    plain = ab_test(y, arm, np.arange(n))
    cuped = ab_test(y, arm, np.arange(n), pre=pre)
    ratio = (cuped.high - cuped.low) / (plain.high - plain.low)
    assert ratio == pytest.approx(np.sqrt(1 - rho**2), rel=0.02)
    assert cuped.variance_reduction == pytest.approx(rho**2, abs=0.01)
    assert np.isnan(plain.variance_reduction)
    # The adjustment moves the estimate by theta * (difference of pre means).
    shift = pre[arm == "B"].mean() - pre[arm == "A"].mean()
    assert cuped.lift == pytest.approx(plain.lift - rho * shift, abs=2e-3)


@pytest.mark.slow
def test_cuped_intervals_cover_the_true_lift():
    hits = 0
    for seed in range(400):
        rng = np.random.default_rng(seed)
        pre = rng.normal(0, 1, 600)
        user = np.repeat(np.arange(600), 2)
        arm = np.where(user % 2, "B", "A")
        y = 0.6 * pre[user] + rng.normal(0, 0.8, user.size) + 0.05 * (arm == "B")
        res = ab_test(y, arm, user, pre=pre[user])
        hits += res.low <= 0.05 <= res.high
    assert 0.93 <= hits / 400 <= 0.97


def _aa_looks(n_experiments, n_days, per_day, seed):
    """Welch z and unit counts of daily looks at A/A tests (one value per unit)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (n_experiments, 2, n_days * per_day))
    n = per_day * np.arange(1, n_days + 1)
    z = np.empty((n_experiments, n_days))
    for d, m in enumerate(n):
        a, b = x[:, 0, :m], x[:, 1, :m]
        se = np.sqrt(a.var(1, ddof=1) / m + b.var(1, ddof=1) / m)
        z[:, d] = (b.mean(1) - a.mean(1)) / se
    return x, n, z


def test_sequential_p_values_are_the_mixture_test():
    x, n, z = _aa_looks(3, 4, 50, 0)
    for e in range(3):
        for d, m in enumerate(n):
            values = np.r_[x[e, 0, :m], x[e, 1, :m]]
            arm = np.repeat(["A", "B"], m)
            res = ab_test(values, arm, np.arange(2 * m), sequential=True, mixing=0.1)
            r = 0.1**2 / (2 / m)
            assert res.p_value == pytest.approx(mixture_p_value(z[e, d], r), rel=1e-9)
            se = res.lift / z[e, d]
            h = mixture_multiplier(r, 0.05)
            assert res.high == pytest.approx(res.lift + h * se, rel=1e-9)


def test_daily_looks_at_an_aa_test_keep_false_alarms_at_alpha():
    # 2,000 A/A tests, looked at every day for 28 days: stopping the first
    # time p <= 0.05 declares a difference in at most 5% of them with the
    # sequential p-value; the fixed-sample p-value, peeked at daily, in far
    # more.
    _, n, z = _aa_looks(2000, 28, 100, 1)
    r = 0.05**2 / (2 / n)
    seq = (mixture_p_value(z, r) <= 0.05).any(1).mean()
    fixed = (2 * stats.norm.sf(np.abs(z)) <= 0.05).any(1).mean()
    assert seq <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 2000)
    assert fixed > 0.15
    # A true lift of 0.2 standard deviations is found by the end nearly always.
    rng = np.random.default_rng(3)
    m = 2800
    values = np.r_[rng.normal(0, 1, m), rng.normal(0.2, 1, m)]
    arm = np.repeat(["A", "B"], m)
    lifted = ab_test(values, arm, np.arange(2 * m), sequential=True)
    assert lifted.p_value < 0.01 and lifted.low > 0


@pytest.mark.slow
def test_daily_looks_through_ab_test_on_clustered_logs():
    # The same study end to end: users arrive daily, three queries each.
    alarms = peeks = 0
    for seed in range(300):
        value, arm, user = _users(1400, seed)
        looks = [user < 200 * day for day in range(1, 8)]
        alarms += any(
            ab_test(value[s], arm[s], user[s], sequential=True).p_value <= 0.05
            for s in looks
        )
        peeks += any(ab_test(value[s], arm[s], user[s]).p_value <= 0.05 for s in looks)
    assert alarms / 300 <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 300)
    assert peeks / 300 > 0.08  # the fixed-sample test, peeked at daily


def test_several_arms_are_corrected_together():
    value, _, user = _users(900, 4)
    arm = np.array(["A", "B", "C"])[user % 3]
    value = value + 0.05 * (arm == "C")
    res = ab_test(value, arm, user)
    frame = res.to_frame()
    assert frame["arm"].tolist() == ["B", "C"] and (frame["control"] == "A").all()
    want = multipletests(frame["p_value"], method="holm")[1]
    np.testing.assert_allclose(frame["p_adjusted"], want, rtol=1e-12)
    # The intervals are Bonferroni intervals at 1 - alpha / 2.
    alone = ab_test(value[arm != "C"], arm[arm != "C"], user[arm != "C"], alpha=0.025)
    assert res.low["value", "B"] == pytest.approx(alone.low, rel=1e-9)
    assert isinstance(res.lift, pd.Series) and res["lift"]["value", "C"] > 0.01
    named = ab_test(value, arm, user, control="C")
    assert named.to_frame()["arm"].tolist() == ["A", "B"]


def test_result_is_a_frozen_record_with_keys_and_repr():
    value, arm, user = _users(200, 5)
    res = ab_test(value, arm, user)
    for key in ("lift", "low", "high", "p_value", "srm_p_value"):
        assert res[key] == getattr(res, key)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.alpha = 0.1
    with pytest.raises(KeyError, match="has the keys"):
        res["nope"]
    text = repr(res)
    assert "control='A'" in text and "B - A" in text and "SRM p=" in text
    assert res.to_frame()["srm_p_value"].item() == res.srm_p_value


def test_srm_and_balance_checks():
    rng = np.random.default_rng(6)
    arm = np.where(rng.random(10_000) < 0.52, "A", "B")  # 52/48 against 50/50
    value = rng.normal(size=10_000)
    age = rng.normal(40, 10, 10_000) + 3 * (arm == "B")  # unbalanced covariate
    city = rng.normal(size=10_000)
    res = ab_test(value, arm, np.arange(10_000), covariates={"age": age, "city": city})
    assert res.srm_p_value < 1e-3
    assert ab_test(value, arm, np.arange(10_000), split=[0.52, 0.48]).srm_p_value > 0.01
    bal = res.balance.set_index("covariate")
    ref = stats.ks_2samp(age[arm == "B"], age[arm == "A"])
    assert bal.loc["age", "p_value"] == pytest.approx(ref.pvalue)
    assert bal.loc["age", "p_adjusted"] < 1e-6 and bal.loc["city", "p_value"] > 0.01


def test_dataframe_of_metrics_with_column_names():
    value, arm, user = _users(300, 7)
    df = pd.DataFrame({"qid": np.arange(value.size), "ndcg@10": value,
                       "clicks": value > 0.6, "user": user, "arm": arm})  # fmt: skip
    res = ab_test(df, "arm", "user")
    assert res.to_frame()["metric"].tolist() == ["ndcg@10", "clicks"]
    assert res.lift["ndcg@10", "B"] == pytest.approx(ab_test(value, arm, user).lift)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(-5, 5), scale=st.floats(0.1, 10))
def test_invariances(seed, shift, scale):
    value, arm, user = _users(60, seed)
    base = ab_test(value, arm, user)
    perm = np.random.default_rng(seed).permutation(value.size)
    moved = ab_test(value[perm], arm[perm], user[perm])
    assert moved.lift == pytest.approx(base.lift, rel=1e-9, abs=1e-12)
    assert moved.p_value == pytest.approx(base.p_value, rel=1e-9)
    affine = ab_test(value * scale + shift, arm, user + 1000)
    assert affine.lift == pytest.approx(base.lift * scale, rel=1e-8, abs=1e-10)
    assert affine.p_value == pytest.approx(base.p_value, rel=1e-7)
    swapped = ab_test(value, np.where(arm == "A", "B", "A"), user, control="B")
    assert swapped.lift == pytest.approx(base.lift, rel=1e-9, abs=1e-12)


def test_bad_input_gets_a_clear_error_and_nothing_is_changed():
    value, arm, user = _users(50, 8)
    kept = value.copy(), arm.copy(), user.copy()
    with pytest.raises(ValueError, match=r"arm 'B' has 1 unit\(s\)"):
        ab_test(value[:9], arm[:9], user[:9])
    with pytest.raises(ValueError, match=r"arm must hold one entry per row .*150"):
        ab_test(value, arm[:-1], user)
    with pytest.raises(ValueError, match=r"pre must hold one entry per row"):
        ab_test(value, arm, user, pre=np.ones(3))
    nan = value.copy()
    nan[7] = np.nan
    with pytest.raises(ValueError, match=r"1 NaN value\(s\), first at row 7.*omit"):
        ab_test(nan, arm, user)
    assert np.isfinite(ab_test(nan, arm, user, nan_policy="omit").lift)
    mixed = user.copy()
    mixed[1] = 1  # a row of user 0 (arm A) now belongs to user 1 (arm B)
    with pytest.raises(ValueError, match=r"1 unit\(s\) appear in more than one arm.*1"):
        ab_test(value, arm, mixed)
    with pytest.raises(ValueError, match=r"needs a control and at least one"):
        ab_test(value, np.full(value.size, "A"), user)
    with pytest.raises(ValueError, match=r"control='Z' is not an arm"):
        ab_test(value, arm, user, control="Z")
    with pytest.raises(ValueError, match=r"pre differs between the rows of"):
        ab_test(value, arm, user, pre=np.arange(value.size))
    with pytest.raises(ValueError, match=r"split must give a share to each arm"):
        ab_test(value, arm, user, split={"A": 1})
    df = pd.DataFrame({"ndcg": np.where(arm == "A", value, np.nan),
                       "ctr": np.where(arm == "B", value, np.nan)})  # fmt: skip
    with pytest.raises(
        ValueError, match=r"no metric in common: arm 'A' has \['ndcg'\]"
    ):
        ab_test(df, arm, user, nan_policy="omit")
    df["both"] = value
    with pytest.warns(UserWarning, match=r"left out metrics not measured in every"):
        res = ab_test(df, arm, user, nan_policy="omit")
    assert res.to_frame()["metric"].tolist() == ["both"]
    with pytest.raises(ValueError, match=r"arm='nope' names no column"):
        ab_test(df, "nope", user)
    with pytest.raises(ValueError, match=r"unit has 1 missing value"):
        ab_test(value, arm, np.where(np.arange(value.size) == 3, np.nan, user))
    # An infinite value gave a lift of -inf with NaN bounds, an infinite pre
    # NaN everything, without a word.
    inf = np.where(np.arange(value.size) == 4, -np.inf, value)
    with pytest.raises(ValueError, match=r"'value' have 1 infinite value\(s\), first "
                       r"-inf at row 4; every value must be finite"):  # fmt: skip
        ab_test(inf, arm, user, nan_policy="omit")
    with pytest.raises(ValueError, match=r"pre has 1 NaN or infinite value\(s\), "
                       r"first -inf at row 4"):  # fmt: skip
        ab_test(value, arm, user, pre=inf)
    for before, after in zip(kept, (value, arm, user), strict=True):
        np.testing.assert_array_equal(before, after)


def test_series_are_aligned_on_the_index_of_values():
    """A Series pre, covariate, arm or unit was read by position, so with the
    rows of values shuffled it was matched to other rows without a word."""
    value, arm, user = _users(200, 9)
    rng = np.random.default_rng(9)
    pre = (
        pd.Series(value).groupby(user).transform("mean") + rng.normal(0, 0.1, 200)[user]
    )
    df = pd.DataFrame({"v": value, "arm": arm, "user": user, "pre": pre})
    base = ab_test(df[["v"]], df["arm"], df["user"], pre=df["pre"],
                   covariates={"pre": df["pre"]})  # fmt: skip
    shuffled = df.sample(frac=1.0, random_state=1)
    moved = ab_test(shuffled[["v"]], df["arm"], df["user"], pre=df["pre"],
                    covariates={"pre": df["pre"]})  # fmt: skip
    assert moved.lift == pytest.approx(base.lift, rel=1e-9, abs=1e-12)
    assert moved.variance_reduction == pytest.approx(base.variance_reduction)
    pd.testing.assert_frame_equal(moved.balance, base.balance)
    # an array is read by position
    s = {c: shuffled[c].to_numpy() for c in shuffled.columns}
    arrays = ab_test(s["v"], s["arm"], s["user"], pre=s["pre"])
    assert arrays.lift == pytest.approx(base.lift, rel=1e-9, abs=1e-12)
    # labels that are not those of values are refused, naming the argument
    other = df["pre"].set_axis(df.index + 1)
    with pytest.raises(ValueError, match=r"pre is a Series whose index does not "
                       r"hold the labels of the index of values"):  # fmt: skip
        ab_test(shuffled[["v"]], df["arm"], df["user"], pre=other)
    with pytest.raises(ValueError, match=r"covariates\['pre'\] is a Series whose"):
        ab_test(shuffled[["v"]], df["arm"], df["user"], covariates={"pre": other})
    with pytest.raises(ValueError, match=r"unit is a Series whose index"):
        ab_test(df["v"], df["arm"], df["user"].set_axis(df.index + 1))
