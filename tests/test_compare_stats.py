"""compare(): agreement with scipy and statsmodels, hand-computed intervals."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from skndcg.evaluation import SmallSampleWarning, compare
from skndcg.evaluation._stats import _resampling
from skndcg.evaluation._stats._resampling import as_generator, multinomial_counts
from skndcg.evaluation._stats._significance import adjust_p_values


def _long(values, qids=None):
    """Long frame from {model: per-query values} (one metric, 'm')."""
    frames = []
    for name, v in values.items():
        q = np.arange(len(v)) if qids is None else qids
        frames.append(pd.DataFrame({"model": name, "qid": q, "m": v}))
    return pd.concat(frames, ignore_index=True)


def _pair(n, seed, shift=0.05):
    rng = np.random.default_rng(seed)
    b = rng.random(n)
    a = np.clip(b + rng.normal(shift, 0.1, n), 0, 1)
    return a, b


def _row(cmp, model="a"):
    return cmp.to_frame().set_index("model").loc[model]


@pytest.mark.parametrize("seed", range(3))
def test_t_matches_ttest_rel(seed):
    a, b = _pair(40, seed)
    cmp = compare(
        _long({"b": b, "a": a}),
        baseline="b",
        test="t",
        correction=None,
        n_resamples=50,
        random_state=0,
    )
    assert _row(cmp)["p_value"] == pytest.approx(
        stats.ttest_rel(a, b).pvalue, rel=1e-10
    )


@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_matches_scipy(seed):
    a, b = _pair(30, seed)
    a[:3] = b[:3]  # zero differences are dropped, as scipy does by default
    cmp = compare(
        _long({"b": b, "a": a}),
        baseline="b",
        test="wilcoxon",
        correction=None,
        n_resamples=50,
        random_state=0,
    )
    assert _row(cmp)["p_value"] == pytest.approx(
        stats.wilcoxon(a - b).pvalue, rel=1e-10
    )


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
@pytest.mark.parametrize(("n", "seed"), [(6, 0), (10, 1), (12, 2)])
def test_randomization_exact_matches_permutation_test(n, seed):
    a, b = _pair(n, seed, shift=0.03)
    cmp = compare(
        _long({"b": b, "a": a}),
        baseline="b",
        test="randomization",
        correction=None,
        n_resamples=9999,
        random_state=0,
    )
    ref = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=9999,
    )
    assert _row(cmp)["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)


def test_randomization_monte_carlo_close_to_exact():
    a, b = _pair(14, 5, shift=0.04)  # 16,384 sign vectors
    exact = compare(
        _long({"b": b, "a": a}),
        baseline="b",
        test="randomization",
        correction=None,
        n_resamples=20_000,
        random_state=0,
    )
    mc = compare(
        _long({"b": b, "a": a}),
        baseline="b",
        test="randomization",
        correction=None,
        n_resamples=5_000,
        random_state=0,
    )
    ref = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
    )
    assert _row(exact)["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert _row(mc)["p_value"] == pytest.approx(ref.pvalue, abs=0.02)


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_cluster_randomization_flips_whole_clusters():
    rng = np.random.default_rng(7)
    cluster = np.repeat(np.arange(8), 3)
    d = rng.normal(0.05, 0.1, 8)[cluster] + rng.normal(0, 0.02, 24)
    b = rng.random(24)
    cmp = compare(
        _long({"b": b, "a": b + d}),
        baseline="b",
        test="randomization",
        cluster=cluster,
        correction=None,
        random_state=0,
    )
    totals = np.bincount(cluster, weights=d)
    ref = stats.permutation_test(
        (totals, np.zeros(8)),
        lambda x, y, axis: np.sum(x - y, axis=axis) / 24,
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
    )
    assert _row(cmp)["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)


def test_cluster_t_matches_statsmodels_cluster_robust_se():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    cluster = rng.integers(0, 15, 90)
    d = rng.normal(0.02, 0.1, 15)[cluster] + rng.normal(0, 0.05, 90)
    b = rng.random(90)
    cmp = compare(
        _long({"b": b, "a": b + d}),
        baseline="b",
        test="t",
        cluster=cluster,
        correction=None,
        n_resamples=50,
        random_state=0,
    )
    fit = sm.OLS(d, np.ones(90)).fit(cov_type="cluster", cov_kwds={"groups": cluster})
    t = d.mean() / fit.bse[0]
    assert _row(cmp)["p_value"] == pytest.approx(2 * stats.t.sf(abs(t), 14), rel=1e-8)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_corrections_match_statsmodels(method):
    rng = np.random.default_rng(0)
    for p in (rng.random(20) ** 3, np.array([0.01, 0.01, 0.04, 0.2, 0.04, 1.0])):
        assert adjust_p_values(p, method) == pytest.approx(
            multipletests(p, method=method)[1], rel=1e-12
        )
    # Through compare: every (model, metric) comparison is one hypothesis.
    base = rng.random(60)
    frames = {
        name: pd.DataFrame(
            {"qid": np.arange(60), "x": np.clip(base + s, 0, 1), "y": base * (1 + s)}
        )
        for name, s in {"b": 0.0, "m1": 0.01, "m2": 0.02, "m3": -0.004}.items()
    }
    frames["m1"]["x"] += rng.normal(0, 0.05, 60)
    frames["m2"]["y"] += rng.normal(0, 0.2, 60)
    cmp = compare(frames, baseline="b", test="t", correction=method, n_resamples=250)
    pairs = cmp.to_frame(pairs=True)
    assert len(pairs) == 6
    expected = multipletests(pairs["p_value"], method=method)[1]
    assert pairs["p_adjusted"].to_numpy() == pytest.approx(expected, rel=1e-12)
    assert cmp.confidence_adjusted >= 0.95
    if method != "fdr_bh":
        assert cmp.confidence_adjusted == pytest.approx(1 - 0.05 / 6)
    none = compare(frames, baseline="b", test="t", correction=None, n_resamples=100)
    out = none.to_frame(pairs=True)
    assert (out["p_adjusted"] == out["p_value"]).all()


def _six_models(shift, n=40):
    """A baseline and five models, six metrics: 30 comparisons."""
    rng = np.random.default_rng(0)
    base = rng.random((n, 6))
    return {
        name: pd.DataFrame(
            np.clip(base + i * shift + rng.normal(0, 0.01, base.shape), 0, 1),
            columns=[f"m{j}" for j in range(6)],
        ).assign(qid=np.arange(n))
        for i, name in enumerate(["b", "a1", "a2", "a3", "a4", "a5"])
    }


def test_resamples_are_checked_at_the_corrected_confidence():
    # 30 comparisons: the Bonferroni intervals are at 1 - 0.05 / 30, whose
    # tails need 1 + 2 / (0.05 / 30) = 1201 resamples (41 at 95%).
    frames = _six_models(0.0)
    kw = dict(baseline="b", random_state=0)
    # Too few: a warning (a monitor over many windows is not refused), with
    # the intervals still reported and pointing at this line.
    with pytest.warns(SmallSampleWarning, match=(
        r"n_resamples=1000 is too few for the Bonferroni-corrected confidence "
        r"0\.998333 of 30 comparisons \(correction='holm' raised "
        r"confidence=0\.95\).*n_resamples=1201 or more.*too narrow"
    )) as caught:  # fmt: skip
        few = compare(frames, n_resamples=1000, **kw)
    assert caught[0].filename == __file__
    assert np.isfinite(few.to_frame(pairs=True)["diff_low"]).all()
    with pytest.warns(SmallSampleWarning, match="of 60 comparisons"):  # segments
        compare(frames, n_resamples=2000, by={q: q % 2 for q in range(40)}, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        cmp = compare(frames, n_resamples=1201, **kw)
    assert cmp.confidence_adjusted == pytest.approx(1 - 0.05 / 30)
    compare(frames, n_resamples=1000, correction=None, **kw)  # 95% only
    assert compare(frames, **kw).n_resamples == 10_000  # the default is enough
    # FDR intervals are at 1 - R * 0.05 / 30 with R rejections: all 30 here,
    # so 95% and 100 resamples do; with one rejection or none, as Bonferroni.
    cmp = compare(_six_models(0.05), n_resamples=100, correction="fdr_bh", **kw)
    assert cmp.confidence_adjusted == pytest.approx(0.95)
    with pytest.warns(SmallSampleWarning, match=(
        r"false-coverage-rate \(0 significant\)-corrected confidence 0\.998333 "
        r"of 30 comparisons \(correction='fdr_bh' raised"
    )):  # fmt: skip
        compare(frames, n_resamples=1000, correction="fdr_bh", **kw)


def test_bootstrap_interval_by_hand():
    """The interval is the percentile of means under the documented counts."""
    rng = np.random.default_rng(2)
    a, b = rng.random(25), rng.random(25)
    w = rng.integers(1, 4, 25).astype(float)
    cmp = compare(
        _long({"b": b, "a": a}),
        baseline="b",
        sample_weight=w,
        n_resamples=400,
        correction=None,
        random_state=11,
    )
    counts = multinomial_counts(as_generator(11), 400, 25)
    assert (counts.sum(1) == 25).all()
    cw = counts * w
    ma, mb = (cw @ a) / cw.sum(1), (cw @ b) / cw.sum(1)
    row = _row(cmp)
    assert row["mean"] == pytest.approx(np.average(a, weights=w), rel=1e-12)
    lo, hi = np.percentile(ma, [2.5, 97.5])
    assert (row["low"], row["high"]) == pytest.approx((lo, hi), rel=1e-10)
    lo, hi = np.percentile(ma - mb, [2.5, 97.5])
    assert (row["diff_low"], row["diff_high"]) == pytest.approx((lo, hi), rel=1e-10)
    lo, hi = np.percentile((ma - mb) / mb, [2.5, 97.5])
    assert (row["lift_low"], row["lift_high"]) == pytest.approx((lo, hi), rel=1e-10)
    obs = np.average(a - b, weights=w)
    far = np.sum((ma - mb) <= 0) if obs > 0 else np.sum((ma - mb) >= 0)
    p = min(1, 2 * (far + 1) / (400 + 1))  # never below 1 / (B + 1)
    assert row["p_value"] == pytest.approx(p)


def test_bca_by_hand():
    values = np.array([0.0, 0.1, 0.2, 0.25, 0.9, 1.0, 0.05])  # skewed
    other = np.full(7, 0.3)
    B = 2000
    cmp = compare(
        _long({"a": values, "b": other}),
        baseline="b",
        interval="bca",
        n_resamples=B,
        correction=None,
        random_state=4,
        min_queries=0,
    )
    counts = multinomial_counts(as_generator(4), B, 7)
    means = counts @ values / 7
    theta = values.mean()
    share = (np.sum(means < theta) + 0.5 * np.sum(means == theta)) / B
    z0 = stats.norm.ppf(share)
    jack = np.array([np.delete(values, i).mean() for i in range(7)])
    dev = jack.mean() - jack
    acc = np.sum(dev**3) / (6 * np.sum(dev**2) ** 1.5)
    bounds = []
    for q in (0.025, 0.975):
        z = stats.norm.ppf(q)
        level = stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        bounds.append(np.percentile(means, 100 * level))
    row = _row(cmp, "a")
    assert acc > 0.01  # the case is skewed enough for the correction to matter
    assert (row["low"], row["high"]) == pytest.approx(bounds, rel=1e-10)
    pct = np.percentile(means, [2.5, 97.5])
    assert not np.allclose(bounds, pct)


def test_counts_do_not_depend_on_block_size(monkeypatch):
    a, b = _pair(300, 1)
    kw = dict(baseline="b", n_resamples=333, random_state=5, interval="bca")
    one = compare(_long({"b": b, "a": a}), **kw).to_frame()
    monkeypatch.setattr(_resampling, "_BLOCK_CELLS", 1000)
    chunked = compare(_long({"b": b, "a": a}), **kw).to_frame()
    pd.testing.assert_frame_equal(one, chunked)


def test_counts_are_uniform_multinomial():
    counts = multinomial_counts(np.random.default_rng(0), 2000, 50)
    # Each unit is drawn with probability 1/50 in each of 50 draws.
    per_unit = counts.sum(0)
    chi2 = ((per_unit - 2000) ** 2 / 2000).sum()
    assert stats.chi2.sf(chi2, 49) > 1e-3
    assert counts[:, 0].mean() == pytest.approx(1.0, abs=0.1)
    assert counts[:, 0].var() == pytest.approx(1 - 1 / 50, abs=0.15)


def test_single_precision_products_agree(monkeypatch):
    a, b = _pair(500, 9)
    kw = dict(baseline="b", n_resamples=200, random_state=1)
    double = compare(_long({"b": b, "a": a}), **kw).to_frame()
    monkeypatch.setattr(_resampling, "_FLOAT32_FROM", 0)
    single = compare(_long({"b": b, "a": a}), **kw).to_frame()
    for col in ("low", "high", "diff_low", "diff_high"):
        assert single[col].to_numpy() == pytest.approx(
            double[col].to_numpy(), abs=1e-7, nan_ok=True
        )


def test_cluster_bootstrap_widens_with_correlated_queries():
    rng = np.random.default_rng(0)
    cluster = np.repeat(np.arange(40), 10)
    b = rng.random(400)
    correlated = b + 0.02 + rng.normal(0, 0.1, 40)[cluster] + rng.normal(0, 0.02, 400)
    kw = dict(baseline="b", n_resamples=2000, random_state=0, correction=None)
    plain = _row(compare(_long({"b": b, "a": correlated}), **kw))
    clus = _row(compare(_long({"b": b, "a": correlated}), cluster=cluster, **kw))
    assert plain["diff"] == pytest.approx(clus["diff"])
    width = lambda r: r["diff_high"] - r["diff_low"]  # noqa: E731
    assert width(clus) > 2 * width(plain)
    # Independent queries: clustering them changes little.
    indep = b + 0.02 + rng.normal(0, 0.1, 400)
    plain = _row(compare(_long({"b": b, "a": indep}), **kw))
    clus = _row(compare(_long({"b": b, "a": indep}), cluster=cluster, **kw))
    assert 0.75 < width(clus) / width(plain) < 1.33


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_clusters_without_values_do_not_count(test):
    """A cluster whose queries are all NaN for the metric is left out."""
    rng = np.random.default_rng(8)
    cluster = np.repeat(np.arange(12), 2)
    a, b = rng.random(24), rng.random(24)
    a_nan, b_nan = a.copy(), b.copy()
    a_nan[:2] = b_nan[:2] = np.nan  # cluster 0
    kw = dict(baseline="b", test=test, correction=None, n_resamples=50)
    with_nan = _row(compare(_long({"b": b_nan, "a": a_nan}), cluster=cluster, **kw))
    without = _row(
        compare(
            _long({"b": b[2:], "a": a[2:]}, np.arange(2, 24)), cluster=cluster[2:], **kw
        )
    )
    assert with_nan["p_value"] == pytest.approx(without["p_value"], rel=1e-12)


@settings(max_examples=25)
@given(
    n=st.integers(3, 30),
    seed=st.integers(0, 2**31 - 1),
    test=st.sampled_from(["paired_bootstrap", "randomization", "t"]),
)
def test_swapping_models_mirrors_the_comparison(n, seed, test):
    rng = np.random.default_rng(seed)
    a, b = rng.random(n).round(2), rng.random(n).round(2)
    kw = dict(
        test=test, correction=None, n_resamples=200, random_state=seed, min_queries=0
    )
    ab = compare(_long({"b": b, "a": a}), baseline="b", **kw).to_frame(pairs=True)
    ba = compare(_long({"a": a, "b": b}), baseline="a", **kw).to_frame(pairs=True)
    r, s = ab.iloc[0], ba.iloc[0]
    assert r["diff"] == pytest.approx(-s["diff"], abs=1e-12)
    assert r["diff_low"] == pytest.approx(-s["diff_high"], abs=1e-12)
    assert r["diff_high"] == pytest.approx(-s["diff_low"], abs=1e-12)
    assert r["p_value"] == pytest.approx(s["p_value"], abs=1e-12, nan_ok=True)
    assert (r["wins"], r["ties"], r["losses"]) == (s["losses"], s["ties"], s["wins"])
    if test != "t":
        return  # resampled differences of exactly zero may round either way
    # Shifting every value by a constant moves the means, not the comparison.
    shifted = compare(_long({"b": b + 3, "a": a + 3}), baseline="b", **kw)
    t = shifted.to_frame(pairs=True).iloc[0]
    assert t["diff"] == pytest.approx(r["diff"], abs=1e-9)
    assert t["p_value"] == pytest.approx(r["p_value"], abs=1e-9, nan_ok=True)
