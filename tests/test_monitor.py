"""metric_over_time: hand cases, brute force for every number, simulations."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from skndcg.evaluation import metric_over_time
from skndcg.metrics import grouped_ranking_scores, ranking_report

# scipy warns on nearly equal samples in the reference t-tests below.
pytestmark = pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")

T0 = pd.Timestamp("2024-03-04 00:00")  # a Monday


def _log(n_queries, seed, per_query=5, span="1h", drop=None):
    """Random graded log; ``drop`` = (from_time, share of queries zeroed)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), per_query)
    y = rng.integers(0, 3, qid.size)
    s = y + rng.normal(0, 1.5, qid.size)
    start = T0 + pd.to_timedelta(
        rng.uniform(0, pd.Timedelta(span).total_seconds(), n_queries), unit="s"
    )
    t = start[qid] + pd.to_timedelta(rng.uniform(0, 30, qid.size), unit="s")
    if drop is not None:
        since, share = drop
        hit = (start >= since) & (rng.random(n_queries) < share)
        y = np.where(hit[qid], 0, y)
    return y, s, qid, pd.Series(t)


def test_hand_case_intervals_and_change():
    # Window 1: MRR 1 and 1; window 2: MRR 1 and 0.5.
    y = [1, 0, 1, 0, 1, 0, 0, 1]
    s = [0.9, 0.1, 0.8, 0.2, 0.7, 0.3, 0.6, 0.4]
    q = [1, 1, 2, 2, 3, 3, 4, 4]
    t = ["2024-01-01 00:01"] * 4 + ["2024-01-01 00:07"] * 4
    out = metric_over_time(y, s, q, t, freq="5min", metrics="mrr", correction="none")
    assert out["window"].tolist() == [
        pd.Timestamp("2024-01-01 00:00"),
        pd.Timestamp("2024-01-01 00:05"),
    ]
    first, second = out.iloc[0], out.iloc[1]
    assert first["value"] == 1.0 and first["low"] == 1.0 and first["high"] == 1.0
    assert np.isnan(first["baseline"]) and not first["alert"]
    half = stats.norm.ppf(0.975) * np.std([1.0, 0.5], ddof=1) / np.sqrt(2)
    assert second["value"] == 0.75
    assert second["low"] == pytest.approx(0.75 - half)
    assert second["high"] == pytest.approx(0.75 + half)
    assert second["baseline"] == 1.0 and second["change"] == -0.25
    assert second["n_queries"] == 2 and second["baseline_n_queries"] == 2
    # Baseline has no variance, the window has: Welch's test still applies.
    want_p = stats.ttest_ind(
        [1.0, 0.5], [1.0, 1.0], equal_var=False, alternative="less"
    ).pvalue
    assert second["p_value"] == pytest.approx(want_p)


def _brute(y, s, q, t, freq, metrics, baseline_windows, lag, **options):
    """Every number of one window, by the public engine on that window's queries."""
    start = pd.Series(pd.to_datetime(t)).groupby(np.asarray(q)).min().dt.floor(freq)
    rows = []
    for w in pd.date_range(start.min(), start.max(), freq=freq):
        mine = start.index[start == w]
        back = start.index[
            start.isin([w - lag * j for j in range(1, baseline_windows + 1)])
        ]
        for m in metrics:
            sel = np.isin(q, mine)
            val = grouped_ranking_scores(y[sel], s[sel], q[sel], [m], **options)[m]
            per = ranking_report(y[sel], s[sel], q[sel], metrics=[m], **options)[m]
            per = per.dropna().to_numpy()
            bsel = np.isin(q, back)
            if bsel.any():
                per_b = (
                    ranking_report(y[bsel], s[bsel], q[bsel], metrics=[m], **options)[m]
                    .dropna()
                    .to_numpy()
                )
                base = grouped_ranking_scores(
                    y[bsel], s[bsel], q[bsel], [m], **options
                )[m]
                p = stats.ttest_ind(
                    per, per_b, equal_var=False, alternative="less"
                ).pvalue
            else:
                base, p, per_b = np.nan, np.nan, []
            rows.append((w, m, len(per), val, per, base, len(per_b), p))
    return rows


@pytest.mark.parametrize("seed", range(3))
def test_every_number_equals_brute_force(seed):
    y, s, q, t = _log(300, seed, span="50min")
    metrics = ["ndcg@3", "mrr", "p@2"]
    out = metric_over_time(
        y,
        s,
        q,
        t,
        freq="10min",
        metrics=metrics,
        baseline="previous",
        baseline_windows=2,
        correction="holm",
        threshold=0.0,
        empty_windows="keep",
    )
    rows = _brute(y, s, q, t, "10min", metrics, 2, pd.Timedelta("10min"))
    got = out.set_index(["window", "metric"])
    z = stats.norm.ppf(0.975)
    pvals = []
    for w, m, n, val, per, base, nb, p in rows:
        r = got.loc[(w, m)]
        assert r["n_queries"] == n and r["baseline_n_queries"] == nb
        np.testing.assert_allclose(r["value"], val, rtol=1e-12)
        half = z * per.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
        np.testing.assert_allclose(r["low"], val - half, rtol=1e-12)
        np.testing.assert_allclose(r["high"], val + half, rtol=1e-12)
        np.testing.assert_allclose(r["baseline"], base, rtol=1e-12)
        np.testing.assert_allclose(r["change"], val / base - 1, rtol=1e-12)
        np.testing.assert_allclose(r["p_value"], p, rtol=1e-9)
        pvals.append(p)
    pvals = np.array(pvals)
    ok = ~np.isnan(pvals)
    want_adj = np.full(pvals.size, np.nan)
    want_adj[ok] = multipletests(pvals[ok], method="holm")[1]
    np.testing.assert_allclose(out["p_adjusted"], want_adj, rtol=1e-9)
    want_alert = (want_adj < 0.05) & (out["change"].to_numpy() <= 0)
    np.testing.assert_array_equal(out["alert"], want_alert)


def test_unsorted_time_column_gives_the_same_result():
    y, s, q, t = _log(200, 7)
    order = np.argsort(t.to_numpy(), kind="stable")
    sorted_out = metric_over_time(
        y[order], s[order], q[order], t.iloc[order], freq="15min", metrics=["ndcg@5"]
    )
    perm = np.random.default_rng(0).permutation(q.size)
    shuffled = metric_over_time(
        y[perm], s[perm], q[perm], t.iloc[perm], freq="15min", metrics=["ndcg@5"]
    )
    pd.testing.assert_frame_equal(sorted_out, shuffled)


def test_same_weekday_last_week_baseline():
    days = pd.date_range(T0, periods=8, freq="1D") + pd.Timedelta("9h")
    q = np.repeat(np.arange(16), 2)
    t = np.repeat(np.repeat(days, 2), 2)
    y = np.tile([1, 0], 16)
    # Every day ranks the relevant item first except day 8, query 15.
    s = np.tile([1.0, 0.0], 16)
    s[30:32] = [0.0, 1.0]
    out = metric_over_time(
        y,
        s,
        q,
        t,
        freq="1D",
        metrics="mrr",
        baseline="week",
        correction="none",
        threshold=0.0,
    )
    assert out["baseline"].isna().sum() == 7
    last = out.iloc[-1]
    assert last["window"] == pd.Timestamp("2024-03-11")
    assert last["value"] == 0.75 and last["baseline"] == 1.0
    assert last["baseline_n_queries"] == 2  # the queries of Monday 2024-03-04


def test_window_without_queries():
    y, s, q = [1, 0, 1, 0], [1.0, 0.0, 1.0, 0.0], [1, 1, 2, 2]
    t = ["2024-01-01 00:00", "2024-01-01 00:00", "2024-01-01 00:20", "2024-01-01 00:20"]
    with pytest.raises(ValueError, match=r"3 window\(s\).*no queries.*00:05:00"):
        metric_over_time(y, s, q, t, freq="5min", metrics="mrr")
    out = metric_over_time(y, s, q, t, freq="5min", metrics="mrr", empty_windows="keep")
    assert out["n_queries"].tolist() == [1, 0, 0, 0, 1]
    assert out["value"].isna().tolist() == [False, True, True, True, False]
    assert not out["alert"].any()


def test_bad_input():
    y, s, q, t = [1, 0], [1.0, 0.0], [1, 1], ["2024-01-01", "2024-01-01"]
    with pytest.raises(ValueError, match=r"freq='MS' is not a fixed window"):
        metric_over_time(y, s, q, t, freq="MS")
    with pytest.raises(ValueError, match=r"time must hold one value per row"):
        metric_over_time(y, s, q, t[:1], freq="1D")
    with pytest.raises(ValueError, match=r"time has 1 missing value"):
        metric_over_time(y, s, q, ["2024-01-01", None], freq="1D")
    with pytest.raises(ValueError, match=r"tile a week, got freq='5D'"):
        metric_over_time(y, s, q, t, freq="5D", baseline="week")
    with pytest.raises(ValueError, match=r"baseline"):
        metric_over_time(y, s, q, t, freq="1D", baseline="yesterday")
    with pytest.raises(TypeError, match=r"sample_weight"):
        metric_over_time(y, s, q, t, freq="1D", sample_weight=[1, 1])
    with pytest.raises(ValueError, match=r"y_score must name one of its columns"):
        metric_over_time(
            "a", "zz", "q", "t", freq="1D", data=pd.DataFrame({"a": y, "q": q, "t": t})
        )


def test_false_alarm_rate_near_nominal_on_stationary_data():
    # 300 windows of 40 queries, no change: with no correction and no
    # threshold, the one-sided test fires in about alpha = 5% of the windows
    # (binomial sd ~1.3%; windows share baselines, so allow 2.5%-8%).
    y, s, q, t = _log(12_000, 11, per_query=4, span="300min")
    out = metric_over_time(
        y,
        s,
        q,
        t,
        freq="1min",
        metrics="ndcg@3",
        baseline_windows=3,
        correction="none",
        threshold=0.0,
    )
    rate = out["alert"].iloc[3:].mean()
    assert 0.025 <= rate <= 0.08, rate
    # With the defaults (Holm, 5% threshold) nothing alerts.
    assert not metric_over_time(
        y, s, q, t, freq="1min", metrics="ndcg@3", baseline_windows=3
    )["alert"].any()


def test_injected_five_percent_drop_is_detected():
    # 24 windows of ~2000 queries; from window 12 on, 5% of the queries lose
    # every relevant label (NDCG 0 with empty="zero"): a 5% drop in the mean.
    since = T0 + pd.Timedelta("12min")
    y, s, q, t = _log(48_000, 5, per_query=4, span="24min", drop=(since, 0.05))
    out = metric_over_time(
        y,
        s,
        q,
        t,
        freq="1min",
        metrics="ndcg@3",
        empty="zero",
        baseline_windows=4,
        threshold=0.02,
    )
    before = out[out["window"] < since]
    after = out[out["window"] >= since]
    assert not before["alert"].any()
    # The first windows after the change are compared with clean baselines.
    fresh = after.iloc[:4]
    assert fresh["change"].between(-0.08, -0.02).all(), fresh["change"]
    assert fresh["alert"].mean() >= 0.75, fresh


def _daily_log(n_days, drop_from, seed, n_queries=400, drop=0.10, every="1D"):
    """Queries of two items, one batch ``every`` day; MRR falls by ``drop``."""
    rng = np.random.default_rng(seed)
    days = np.repeat(np.arange(n_days), n_queries)
    # MRR of a query is 1 (relevant item first) or 0.5; its mean is 0.8 before
    # the drop and 0.8 * (1 - drop) after.
    p_first = np.where(days >= drop_from, 2 * 0.8 * (1 - drop) - 1, 0.6)
    first = rng.random(days.size) < p_first
    q = np.repeat(np.arange(days.size), 2)
    y = np.tile([1, 0], days.size)
    s = np.where(np.repeat(first, 2), np.tile([1.0, 0.0], days.size), 1 - y)
    t = T0 + np.repeat(days, 2) * pd.Timedelta(every) + pd.Timedelta("9h")
    return y, s.astype(float), q, t


def test_sustained_drop_stays_flagged_by_the_default_baseline():
    # Seven normal days, then three days 10% lower (MRR 0.8 -> 0.72).
    y, s, q, t = _daily_log(10, 7, seed=3)
    out = metric_over_time(y, s, q, t, freq="1D", metrics="mrr")
    assert out["value"].iloc[7:].mean() == pytest.approx(0.72, abs=0.03)
    assert out["alert"].tolist() == [False] * 7 + [True] * 3
    # Each degraded day is compared with the last normal one, not with itself.
    assert (out["baseline"].iloc[7:] == out["value"].iloc[6]).all()
    # The previous window as baseline: only the first day of the drop alerts.
    prev = metric_over_time(y, s, q, t, freq="1D", metrics="mrr", baseline="previous")
    assert prev["alert"].tolist() == [False] * 7 + [True, False, False]
    # Pooling three normal days gives the same verdict.
    pooled = metric_over_time(y, s, q, t, freq="1D", metrics="mrr", baseline_windows=3)
    assert pooled["alert"].tolist() == [False] * 7 + [True] * 3
    assert (pooled["baseline_n_queries"].iloc[7:] == 3 * 400).all()


def test_recovery_ends_the_alerts_and_a_held_out_window_stays_out():
    y, s, q, t = _daily_log(6, 3, seed=4)
    # Days 3-5 are low; put day 5 back to normal: it must not alert, and its
    # baseline still skips days 3-4.
    recovered = np.repeat(np.arange(len(q) // 2) // 400 == 5, 2)
    s = np.where(recovered & (y == 1), 1.0, np.where(recovered, 0.0, s))
    out = metric_over_time(y, s, q, t, freq="1D", metrics="mrr")
    assert out["alert"].tolist() == [False, False, False, True, True, False]
    assert out["baseline"].iloc[5] == out["value"].iloc[2]


def test_week_baseline_skips_a_held_out_week():
    # Mondays of four weeks, one query of MRR 1 or 0.5 each; week 3 drops.
    y, s, q, t = _daily_log(4, 2, seed=5, drop=0.2, every="7D")
    out = metric_over_time(y, s, q, t, freq="1D", metrics="mrr", baseline="week",
                           empty_windows="keep")  # fmt: skip
    weekly = out[out["n_queries"] > 0]
    assert weekly["alert"].tolist() == [False, False, True, True]
    assert weekly["baseline"].iloc[3] == weekly["value"].iloc[1]
