"""compare_over_time: per-window paired comparisons of shadow traffic."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from skndcg.evaluation import compare_over_time
from skndcg.metrics import ranking_report

T0 = pd.Timestamp("2024-06-01")


def _shadow(n_windows=4, per_window=150, broken=None, seed=0):
    """Live and candidate scores on the same queries; ``broken`` window: the
    candidate ranks at random there."""
    rng = np.random.default_rng(seed)
    n = n_windows * per_window
    qid = np.repeat(rng.permutation(n) + 1000, 6)  # ids unrelated to time
    window = np.repeat(np.arange(n) // per_window, 6)
    y = rng.integers(0, 3, qid.size)
    live = y + rng.normal(0, 1.0, qid.size)
    cand = y + rng.normal(0, 0.7, qid.size)
    if broken is not None:
        cand = np.where(window == broken, rng.normal(0, 1, qid.size), cand)
    time = T0 + pd.to_timedelta(window * 5 + rng.uniform(0, 4.9, qid.size), "min")
    return y, {"live": live, "cand": cand}, qid, pd.Series(time), window


def test_every_window_equals_a_paired_t_test_on_its_queries():
    y, scores, qid, time, window = _shadow()
    out = compare_over_time(y, scores, qid, time, freq="5min", baseline="live",
                            metrics=["ndcg@5", "mrr"], test="t")  # fmt: skip
    assert out["window"].tolist() == sorted(
        [T0 + pd.Timedelta(minutes=5 * w) for w in range(4)] * 2
    )
    pvals = []
    for _, r in out.iterrows():
        w = (r["window"] - T0) // pd.Timedelta("5min")
        sel = window == w
        per = {
            k: ranking_report(y[sel], s[sel], qid[sel], metrics=[r["metric"]])
            for k, s in scores.items()
        }
        d = (per["cand"][r["metric"]] - per["live"][r["metric"]]).dropna()
        assert r["n_queries"] == d.size
        assert r["diff"] == pytest.approx(d.mean(), rel=1e-12)
        want = stats.ttest_rel(
            per["cand"][r["metric"]].dropna(), per["live"][r["metric"]].dropna()
        ).pvalue
        assert r["p_value"] == pytest.approx(want, rel=1e-9)
        pvals.append(r["p_value"])
    np.testing.assert_allclose(
        out["p_adjusted"], multipletests(pvals, method="holm")[1], rtol=1e-9
    )


def test_a_broken_window_is_the_one_flagged_worse():
    y, scores, qid, time, _ = _shadow(n_windows=5, per_window=300, broken=3)
    out = compare_over_time(y, scores, qid, time, freq="5min", baseline="live",
                            random_state=0)  # fmt: skip
    worse = out["significant"] & (out["diff"] < 0)
    better = out["significant"] & (out["diff"] > 0)
    assert worse.tolist() == [False, False, False, True, False]
    assert better.sum() >= 3


def test_data_columns_give_the_same_result():
    y, scores, qid, time, _ = _shadow(n_windows=2)
    df = pd.DataFrame({"label": y, "live": scores["live"], "cand": scores["cand"],
                       "q": qid, "ts": time})  # fmt: skip
    a = compare_over_time(y, scores, qid, time, freq="5min", baseline="live",
                          random_state=0)  # fmt: skip
    b = compare_over_time("label", ["live", "cand"], "q", "ts", data=df,
                          freq="5min", baseline="live", random_state=0)  # fmt: skip
    pd.testing.assert_frame_equal(a, b)


def test_bad_input():
    y, scores, qid, time, _ = _shadow(n_windows=1)
    with pytest.raises(ValueError, match=r"baseline='old' is not one of the models"):
        compare_over_time(y, scores, qid, time, freq="5min", baseline="old")
    with pytest.raises(ValueError, match=r"at least two models"):
        compare_over_time(y, {"live": scores["live"]}, qid, time, freq="5min",
                          baseline="live")  # fmt: skip
    with pytest.raises(ValueError, match=r"freq='MS' is not a fixed window"):
        compare_over_time(y, scores, qid, time, freq="MS", baseline="live")
    with pytest.raises(ValueError, match=r"scores\['x'\] must name one of its"):
        tiny = pd.DataFrame({"a": [1], "q": [1], "t": [0]})
        compare_over_time("a", {"x": "nope"}, "q", "t", freq="5min", baseline="x",
                          data=tiny)  # fmt: skip
    with pytest.raises(ValueError, match=r"time must hold one value per row"):
        compare_over_time(y, scores, qid, time[:3], freq="5min", baseline="live")
    # "y_score has 899 rows but y_true has 900" did not say which model.
    short = {**scores, "cand": scores["cand"][:-1]}
    with pytest.raises(
        ValueError, match=r"^model 'cand': y_score has 899 rows but y_true has 900;"
    ):
        compare_over_time(y, short, qid, time, freq="5min", baseline="live")
    nan = {**scores, "live": np.where(np.arange(qid.size) == 4, np.nan, y)}
    with pytest.raises(ValueError, match=r"^model 'live': y_score contains 1 NaN"):
        compare_over_time(y, nan, qid, time, freq="5min", baseline="live")


def test_numeric_and_formatted_times_are_read_as_the_errors_advise():
    # The time errors advise time_unit= and time_format=, which
    # compare_over_time did not take.
    y, scores, qid, time, _ = _shadow(n_windows=3)
    want = compare_over_time(y, scores, qid, time, freq="5min", baseline="live",
                             test="t", random_state=0)  # fmt: skip
    seconds = (time - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy()
    with pytest.raises(ValueError, match="pass time_unit='s'"):
        compare_over_time(y, scores, qid, seconds, freq="5min", baseline="live")
    got = compare_over_time(y, scores, qid, seconds, freq="5min", baseline="live",
                            test="t", random_state=0, time_unit="s")  # fmt: skip
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    text = time.dt.strftime("%d/%m/%Y %H:%M:%S.%f")
    got = compare_over_time(y, scores, qid, text, freq="5min", baseline="live",
                            test="t", random_state=0,
                            time_format="%d/%m/%Y %H:%M:%S.%f")  # fmt: skip
    pd.testing.assert_frame_equal(got, want, check_dtype=False)  # (resolution)
    with pytest.raises(ValueError, match=r"time_unit must be one of \['s', 'ms'"):
        compare_over_time(y, scores, qid, seconds, freq="5min", baseline="live",
                          time_unit="sec")  # fmt: skip
