"""compare() and --ci refuse to over-claim on a handful of queries."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skndcg.cli import main
from skndcg.evaluation import SmallSampleWarning, compare, paired_bootstrap
from skndcg.metrics import ranking_report


def _long(a, b):
    n = len(a)
    return pd.DataFrame(
        {
            "model": ["a"] * n + ["b"] * n,
            "qid": np.tile(np.arange(n), 2),
            "m": np.r_[a, b],
        }
    )


def _pair(frame, **kw):
    return compare(frame, baseline="b", random_state=0, **kw).to_frame(pairs=True)


# The three cases measured on the main branch before the guard.
@pytest.mark.parametrize("test", ["paired_bootstrap", "t", "randomization"])
def test_one_query_is_never_significant_and_warns(test):
    with pytest.warns(SmallSampleWarning, match="only 1 query .*min_queries=10"):
        row = _pair(_long([0.9], [0.1]), test=test).iloc[0]
    assert not row["significant"]
    assert np.isnan(row["diff_low"]) and np.isnan(row["diff_high"])
    if test == "t":
        assert np.isnan(row["p_value"])  # no variance with one query
    else:
        assert row["p_value"] == 1.0  # both signs equally likely: exact p = 1


def test_three_same_sign_queries_get_the_exact_randomization_p_value():
    frame = _long([0.9, 0.8, 0.7], [0.1, 0.2, 0.3])
    with pytest.warns(SmallSampleWarning, match="randomization test instead"):
        row = _pair(frame).iloc[0]
    # Exact sign-flip test: 2 of the 8 sign vectors are as extreme: p = 2/8.
    assert row["p_value"] == pytest.approx(0.25)
    assert not row["significant"]
    with pytest.warns(SmallSampleWarning):
        rand = _pair(frame, test="randomization").iloc[0]
    assert rand["p_value"] == pytest.approx(0.25)


def test_ci_on_one_query_prints_no_interval(tmp_path, capsys):
    path = tmp_path / "one.csv"
    path.write_text("user,item,rating,pred\na,x,1,0.9\na,y,0,0.5\n")
    code = main(
        [
            "score",
            str(path),
            *("--qid", "user", "--label", "rating", "--score", "pred"),
            *("--metrics", "ndcg", "--format", "json", "--ci"),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["ci"]["ndcg"] == [None, None]  # not [1.0, 1.0]
    assert "only 1 queries count, fewer than 10" in err


def test_min_queries_zero_turns_the_guard_off():
    frame = _long([0.9, 0.8, 0.7], [0.1, 0.2, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        row = _pair(frame, min_queries=0, n_resamples=999).iloc[0]
    assert np.isfinite(row["diff_low"])
    # The bootstrap p-value is floored at 2 / (B + 1) (two-sided).
    assert row["p_value"] == pytest.approx(2 / 1000)


def test_the_guard_holds_at_the_threshold():
    rng = np.random.default_rng(0)
    a, b = rng.random(10), rng.random(10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        row = _pair(_long(a, b)).iloc[0]  # 10 queries: not below 10
    assert np.isfinite(row["diff_low"])
    with pytest.warns(SmallSampleWarning, match="only 9 queries"):
        row = _pair(_long(a[:9], b[:9])).iloc[0]
    assert np.isnan(row["diff_low"])


def test_only_the_small_metric_is_refused():
    rng = np.random.default_rng(1)
    frame = _long(rng.random(12), rng.random(12))
    frame["sparse"] = frame["m"].where(frame["qid"] < 4)
    with pytest.warns(SmallSampleWarning, match="sparse: only 4 queries"):
        rows = compare(frame, baseline="b", random_state=0).to_frame(pairs=True)
    rows = rows.set_index("metric")
    assert np.isfinite(rows.loc["m", "diff_low"])
    assert np.isnan(rows.loc["sparse", "diff_low"])


@pytest.mark.parametrize("bad", [-1, 2.5, True, "10"])
def test_min_queries_is_checked(bad):
    with pytest.raises(ValueError, match="min_queries must be an integer >= 0"):
        compare(_long([0.1, 0.2], [0.2, 0.1]), min_queries=bad)


def test_bootstrap_p_values_are_never_below_one_over_b_plus_one():
    rng = np.random.default_rng(2)
    a = rng.random(50) + 1.0  # every difference far above zero
    b = rng.random(50)
    for n_resamples in (99, 500):
        row = _pair(_long(a, b), n_resamples=n_resamples).iloc[0]
        assert row["p_value"] >= 1 / (n_resamples + 1)
        assert row["p_value"] == pytest.approx(2 / (n_resamples + 1))
    res = paired_bootstrap(a, b, n_resamples=199, random_state=0)
    assert res.p_value == pytest.approx(2 / 200)


def test_expanded_interval_is_wider_on_few_queries_and_alike_on_many():
    rng = np.random.default_rng(3)
    kw = dict(baseline="b", correction=None, n_resamples=4000, random_state=0)
    widths = {}
    for n in (12, 400):
        frame = _long(rng.random(n) + 0.05, rng.random(n))
        for interval in ("percentile", "expanded"):
            r = compare(frame, interval=interval, **kw).to_frame(pairs=True).iloc[0]
            widths[n, interval] = r["diff_high"] - r["diff_low"]
    # sqrt(12/11) * t(11) / z at 95%: about 1.18 times as wide.
    ratio = stats.t.ppf(0.975, 11) * np.sqrt(12 / 11) / stats.norm.ppf(0.975)
    assert widths[12, "expanded"] / widths[12, "percentile"] == pytest.approx(
        ratio, rel=0.06
    )
    assert widths[400, "expanded"] / widths[400, "percentile"] == pytest.approx(
        1.0, abs=0.02
    )


def _null_and_shift(rng, n, delta):
    base = rng.beta(2, 3, n)
    return _long(base + delta + rng.normal(0, 0.1, n), base)


def calibration(n, n_experiments, *, interval, test, delta=0.03, seed=0):
    """Coverage of the 95% interval of a true shift, rejection rate under no shift."""
    rng = np.random.default_rng(seed)
    hits = rejections = 0
    kw = dict(baseline="b", correction=None, n_resamples=1000, interval=interval)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        for i in range(n_experiments):
            row = compare(
                _null_and_shift(rng, n, delta), random_state=i, **kw
            ).to_frame(pairs=True)
            hits += row["diff_low"][0] <= delta <= row["diff_high"][0]
            row = compare(
                _null_and_shift(rng, n, 0.0), test=test, random_state=i, **kw
            ).to_frame(pairs=True)
            rejections += row["p_value"][0] <= 0.05
    return hits / n_experiments, rejections / n_experiments


def test_small_samples_keep_their_level_quick():
    # Few experiments, loose bounds: a randomization test at n = 5 cannot
    # reject at 5% (its smallest p-value is 2/32), and no interval is given.
    coverage, rejected = calibration(5, 40, interval="percentile", test="t")
    assert coverage == 0.0  # refused: NaN intervals cover nothing
    assert rejected <= 0.15
    _, rejected = calibration(5, 40, interval="percentile", test="paired_bootstrap")
    assert rejected == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 10, 30])
def test_p_values_stay_calibrated(n):
    for test in ("paired_bootstrap", "randomization", "t"):
        _, rejected = calibration(n, 400, interval="percentile", test=test, seed=n)
        # At n = 5 the default test is the exact randomization test.
        upper = 0.08 if (test != "paired_bootstrap" or n < 10) else 0.11
        assert rejected <= upper, (n, test, rejected)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n", "interval", "low"),
    [(10, "expanded", 0.92), (30, "percentile", 0.92), (30, "expanded", 0.93)],
)
def test_intervals_stay_calibrated(n, interval, low):
    coverage, _ = calibration(n, 400, interval=interval, test="t", seed=n)
    assert low <= coverage <= 0.985, coverage


if __name__ == "__main__":
    for n in (5, 10, 30):
        for interval in ("percentile", "expanded"):
            for test in ("paired_bootstrap", "randomization", "t"):
                cov, rej = calibration(n, 1000, interval=interval, test=test, seed=n)
                print(
                    f"n={n:3d} {interval:10s} {test:17s} coverage {cov:.3f} "
                    f"rejects {rej:.3f}"
                )


def test_small_sample_warning_points_at_the_callers_line():
    # compare_scores() calls compare() inside skndcg: the warning still names
    # this file, the caller's, as compare() called directly does.
    from skndcg.evaluation import compare_scores

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(5), 4)
    y = rng.integers(0, 3, qid.size)
    y[::4] = 2
    scores = {"a": rng.random(qid.size), "b": rng.random(qid.size)}
    for call in (
        lambda: compare_scores(y, scores, qid, metrics="ndcg@3"),
        lambda: compare(
            {m: ranking_report(y, s, qid, metrics="ndcg@3") for m, s in scores.items()},
            metrics="ndcg@3",
        ),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        small = [w for w in caught if issubclass(w.category, SmallSampleWarning)]
        assert small and {w.filename for w in small} == {__file__}


def test_small_sample_warning_skips_every_skndcg_frame():
    # The demo's metric_curves() calls compare() from outside
    # skndcg.evaluation but inside skndcg: the warning passes over the demo's
    # frames too and names this file.
    from skndcg.demo import _intervals
    from skndcg.metrics import ranking_report

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(5), 4)
    y = rng.integers(0, 3, qid.size)
    reports = {
        m: ranking_report(y, rng.random(qid.size), qid, metrics="ndcg@3")
        for m in ("a", "b")
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _intervals.metric_curves(
            reports, [3], ranker="a", n_resamples=50, confidence=0.9, random_state=0
        )
    small = [w for w in caught if issubclass(w.category, SmallSampleWarning)]
    assert small and {w.filename for w in small} == {__file__}
