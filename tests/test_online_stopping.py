"""sustained_lift: hand-built series of looks, results of ab_test, errors."""

import numpy as np
import pandas as pd
import pytest

from skndcg.online import ab_test, sustained_lift


def _looks(values, metric="ndcg@10", arm="B", column="low", start="2024-06-01"):
    return pd.DataFrame(
        {
            "time": pd.date_range(start, periods=len(values), freq="D"),
            "metric": metric,
            "arm": arm,
            column: values,
        }
    )


def test_hand_series_streaks_reset_and_duration():
    looks = _looks([0.04, 0.05, 0.01, 0.05, 0.06, 0.07])
    out = sustained_lift(looks, threshold=0.03, duration="2D")
    assert out["met"].tolist() == [True, True, False, True, True, True]
    assert out["held"].dt.days.fillna(-1).tolist() == [0, 1, -1, 0, 1, 2]
    assert out["stop"].tolist() == [False] * 5 + [True]
    assert out.loc[1, "since"] == pd.Timestamp("2024-06-01")
    # On the estimate instead of the lower end, numeric times and durations.
    num = looks.rename(columns={"low": "lift"}).assign(time=np.arange(6) * 24)
    got = sustained_lift(num, threshold=0.03, duration=24, on="lift")
    assert got["stop"].tolist() == [False, True, False, False, True, True]


def test_every_metric_must_meet_its_threshold():
    ndcg = _looks([0.04, 0.04, 0.04], column="relative_low")
    ctr = _looks([0.02, 0.005, 0.02], metric="ctr", column="relative_low")
    both = pd.concat([ndcg, ctr])
    out = sustained_lift(both, threshold={"ndcg@10": 0.03, "ctr": 0.01},
                         duration="1D", relative=True)  # fmt: skip
    assert out["met"].tolist() == [True, False, True]
    assert not out["stop"].any()
    only = sustained_lift(both, threshold={"ndcg@10": 0.03}, duration="1D",
                          relative=True)  # fmt: skip
    assert only["stop"].tolist() == [False, True, True]


def test_results_of_ab_test_as_history():
    rng = np.random.default_rng(0)
    user = np.arange(6000)
    arm = np.where(user % 2, "B", "A")
    value = rng.normal(0.5, 0.2, user.size) + 0.05 * (arm == "B")
    history = {}
    for day in range(1, 6):
        sel = user < 1200 * day
        history[pd.Timestamp("2024-06-01") + pd.Timedelta(days=day)] = ab_test(
            value[sel], arm[sel], user[sel], sequential=True
        )
    out = sustained_lift(history, threshold=0.0, duration="2D")
    lows = [r.low for r in history.values()]
    assert out["met"].tolist() == [low >= 0 for low in lows]
    assert out["stop"].iloc[-1]


def test_bad_history():
    with pytest.raises(ValueError, match=r"'time' column"):
        sustained_lift(pd.DataFrame({"low": [1.0]}), threshold=0, duration=1)
    with pytest.raises(ValueError, match=r"ABTestResult"):
        sustained_lift({1: 0.5}, threshold=0, duration=1)
    with pytest.raises(ValueError, match=r"threshold names metric\(s\) \['ctr'\]"):
        sustained_lift(_looks([0.1]), threshold={"ctr": 0.0}, duration="1D")
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['relative_low'\]"):
        sustained_lift(_looks([0.1]), threshold=0.0, duration="1D", relative=True)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"threshold": float("nan")}, "threshold must be a finite number, got nan."),
        ({"threshold": {"ndcg@10": "a"}},
         "threshold['ndcg@10'] must be a finite number, got 'a'."),
        ({"threshold": {}}, "threshold is an empty mapping; name at least one metric."),
        ({"duration": "-1D"}, "duration must be a non-negative pandas.Timedelta or "
         "a string such as '24h' (the look times are dates), got '-1D'."),
        ({"duration": 1}, "duration must be a non-negative pandas.Timedelta or "
         "a string such as '24h' (the look times are dates), got 1."),
        ({"history": _looks([0.1]).assign(time=[0]), "duration": "1D"},
         "duration must be a non-negative number (the look times are numbers), "
         "got '1D'."),
        ({"history": _looks([0.1, 0.2]).assign(time=[0, np.nan])},
         "history's time is missing at row 1; every look needs one."),
        ({"history": _looks([])}, "history holds no look."),
    ],
)  # fmt: skip
def test_bad_threshold_duration_and_times_are_named(kwargs, message):
    """A NaN threshold or a negative duration was a silent answer (never met,
    stopped at once), a look without a time a lost row, others pandas' errors."""
    args = {"history": _looks([0.04, 0.05]), "threshold": 0.03, "duration": "1D"}
    with pytest.raises(ValueError) as info:
        sustained_lift(**{**args, **kwargs})
    assert str(info.value) == message
