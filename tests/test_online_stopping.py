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


def _two_metrics(drop=None):
    looks = pd.concat([_looks([0.05] * 3), _looks([0.05] * 3, metric="ctr")],
                      ignore_index=True)  # fmt: skip
    return looks if drop is None else looks.drop(index=drop)


@pytest.mark.parametrize(
    "history, threshold, message",
    [
        # A look without one of the rule's metrics was "not met": never a stop.
        (_two_metrics(drop=4), 0.0, r"no row for metric 'ctr' of arm 'B' at time "
         r"2024-06-02 00:00:00; every look at an arm needs each metric the "
         r"threshold names \(\['ctr', 'ndcg@10'\]\)"),
        (_two_metrics(drop=1), {"ndcg@10": 0.0}, r"no row for metric 'ndcg@10' "
         r"of arm 'B' at time 2024-06-02"),
        # Two rows for one arm, metric and look were read as one (all of them).
        (pd.concat([_looks([0.05] * 3), _looks([-1.0], start="2024-06-02")]), 0.0,
         r"2 rows for arm 'B', metric 'ndcg@10' at time 2024-06-02 00:00:00; "
         r"expected one row per look, arm and metric"),
        # A control that changes mixed two comparisons into one series.
        (_looks([0.05] * 3).assign(control=["A", "A", "C"]), 0.0,
         r"control changes along the looks \('A' from time 2024-06-01 00:00:00, "
         r"'C' from time 2024-06-03 00:00:00\); a series of looks must compare"),
        # A look without an arm was left out; text times failed inside pandas.
        (_looks([0.05] * 2).assign(arm=["B", None]), 0.0,
         r"history's arm is missing at row 1"),
        (_looks([0.05] * 2).assign(time=["mon", "tue"]), 0.0,
         r"times must be all numbers or all dates, got \['str'\]"),
    ],
)  # fmt: skip
def test_incomplete_duplicated_or_mixed_histories_are_refused(
    history, threshold, message
):
    with pytest.raises(ValueError, match=message):
        sustained_lift(history, threshold=threshold, duration="1D")


def test_metrics_outside_the_rule_and_nan_values():
    """A metric the rule does not read may be missing; a NaN is not met."""
    out = sustained_lift(_two_metrics(drop=4), threshold={"ndcg@10": 0.0},
                         duration="1D")  # fmt: skip
    assert out["stop"].tolist() == [False, True, True]
    out = sustained_lift(_looks([0.05, np.nan, 0.05]), threshold=0.0, duration="1D")
    assert out["met"].tolist() == [True, False, True]


def test_changed_control_in_results_of_ab_test():
    rng = np.random.default_rng(1)
    arm = np.tile(["A", "B", "C"], 100)
    value, unit = rng.normal(size=arm.size), np.arange(arm.size)
    history = {1: ab_test(value, arm, unit, control="A"),
               2: ab_test(value, arm, unit, control="B")}  # fmt: skip
    with pytest.raises(ValueError, match=r"'A' from time 1, 'B' from time 2"):
        sustained_lift(history, threshold=0.0, duration=1)
