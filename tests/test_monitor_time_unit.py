"""metric_over_time reads numeric time stamps only in the unit it is given,
and day/month dates only when the order of the two is known."""

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.evaluation import metric_over_time


def _log(times):
    n = len(times)
    return pd.DataFrame({
        "qid": np.repeat(np.arange(n), 2),
        "label": np.tile([1, 0], n),
        "score": np.tile([0.2, 0.9], n),
        "t": np.repeat(times, 2),
    })  # fmt: skip


def test_numbers_without_a_unit_are_refused():
    log = _log(np.array([0.5, 1.5, 2.5]))
    with pytest.raises(ValueError, match=r"time column 't' holds numbers \(float64\)"):
        metric_over_time("label", "score", "qid", "t", data=log, freq="1h")
    with pytest.raises(ValueError, match="pass time_unit='s'"):
        metric_over_time(log.label, log.score, log.qid, log.t.to_numpy(), freq="1h")


@pytest.mark.parametrize(
    "unit, per_second", [("s", 1), ("ms", 10**3), ("us", 10**6), ("ns", 10**9)]
)
def test_a_unit_reads_numbers_as_time_since_the_epoch(unit, per_second):
    seconds = 1_700_000_000 + 600 * np.arange(4)
    dates = _log(pd.to_datetime(seconds, unit="s"))
    numbers = _log(seconds.astype(np.int64) * per_second)
    expected = metric_over_time("label", "score", "qid", "t", data=dates,
                                freq="10min", metrics="mrr")  # fmt: skip
    got = metric_over_time("label", "score", "qid", "t", data=numbers,
                           freq="10min", metrics="mrr", time_unit=unit)  # fmt: skip
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    assert got["window"].iloc[0] == pd.Timestamp("2023-11-14 22:10")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 4e9), min_size=1, max_size=5))
def test_float_seconds_land_where_their_datetimes_do(seconds):
    times = np.array(seconds)
    got = metric_over_time(*_cols(_log(times)), freq="1D", metrics="mrr",
                           time_unit="s", empty_windows="keep")  # fmt: skip
    first = pd.to_datetime(times.min(), unit="s").floor("1D")
    assert got["window"].iloc[0] == first


def _cols(log):
    return log.label, log.score, log.qid, log.t.to_numpy()


def test_an_unknown_unit_is_refused():
    log = _log(np.array([1, 2]))
    with pytest.raises(ValueError, match="time_unit"):
        metric_over_time(*_cols(log), freq="1h", time_unit="h")


def test_strings_with_two_utc_offsets_are_read_as_instants():
    # A log written in Europe/Paris across the change to summer time: two
    # offsets in one column (pandas refuses to mix them without utc=True).
    local = ["2024-03-31 00:30+01:00", "2024-03-31 01:50+01:00",
             "2024-03-31 03:10+02:00", "2024-03-31 04:30+02:00"]  # fmt: skip
    utc = ["2024-03-30 23:30", "2024-03-31 00:50", "2024-03-31 01:10",
           "2024-03-31 02:30"]  # fmt: skip
    got, expected = (
        metric_over_time("label", "score", "qid", "t", data=log, freq="1h")
        for log in (_log(np.array(local)), _log(np.array(utc)))
    )
    pd.testing.assert_frame_equal(got, expected)
    assert got["n_queries"].tolist() == [1, 1, 1, 1]


# The second day of each month of 2024, written day first.
DAY_FIRST = [f"02/{m:02d}/2024 10:00" for m in range(1, 13)]


@pytest.mark.parametrize("sep", ["/", ".", "-"])
def test_dates_whose_day_and_month_cannot_be_told_apart_are_refused(sep):
    # pandas read 02/01/2024 ... 02/12/2024 month first: 1 to 12 February,
    # twelve daily windows for a year of monthly ones.
    log = _log(np.array([d.replace("/", sep) for d in DAY_FIRST]))
    example = re.escape(f"'02{sep}01{sep}2024 10:00'")
    with pytest.raises(ValueError, match=r"(?s)time column 't' holds dates whose "
                       rf"day and month cannot be told apart, such as {example}"
                       r".*time_format=.*ISO 8601"):  # fmt: skip
        metric_over_time("label", "score", "qid", "t", data=log, freq="1D")


def test_time_format_says_which_and_evidence_in_the_column_is_read():
    want = pd.to_datetime(DAY_FIRST, format="%d/%m/%Y %H:%M").floor("1D")
    kw = dict(freq="1D", metrics="mrr", empty_windows="keep")
    got = metric_over_time(*_cols(_log(np.array(DAY_FIRST))),
                           time_format="%d/%m/%Y %H:%M", **kw)  # fmt: skip
    assert got["window"].iloc[[0, -1]].tolist() == [want[0], want[-1]]
    # A day above 12 tells them apart, wherever it is in the column (pandas
    # guessed from the first value, and refused the 13th).
    told = np.array([*DAY_FIRST, "13/12/2024 10:00"])
    got = metric_over_time(*_cols(_log(told)), **kw)
    assert got["window"].iloc[[0, -1]].tolist() == [
        want[0], pd.Timestamp("2024-12-13")]  # fmt: skip
    # A month above 12 as well: two orders in one column.
    mixed = np.array([*told, "12/13/2024 10:00"])
    with pytest.raises(ValueError, match=r"mixes day-first and month-first"):
        metric_over_time(*_cols(_log(mixed)), **kw)


@pytest.mark.parametrize(
    "times, first, last",
    [
        (["2024-01-02 10:00", "2024-02-01 10:00"], "2024-01-02", "2024-02-01"),
        (["2024-01-02T10:00Z", "2024-02-01T23:30-01:00"], "2024-01-02", "2024-02-02"),
        (["2024/01/02 10:00", "2024/02/01 10:00"], "2024-01-02", "2024-02-01"),
        # A day above 12 tells the order: read as pandas read it.
        (["13/01/2024 10:00", "01/02/2024 10:00"], "2024-01-13", "2024-02-01"),
    ],
)
def test_unambiguous_times_read_as_before(times, first, last):
    got = metric_over_time(*_cols(_log(np.array(times))), freq="1D", metrics="mrr",
                           empty_windows="keep")  # fmt: skip
    assert got["window"].iloc[[0, -1]].tolist() == [pd.Timestamp(first),
                                                   pd.Timestamp(last)]  # fmt: skip


def test_a_unit_for_strings_and_a_format_for_numbers_are_refused():
    # time_unit was ignored when the column held strings.
    log = _log(np.array(["2024-01-02 10:00", "2024-01-03 10:00"]))
    with pytest.raises(ValueError, match=r"time_unit='s' reads numbers, but time "
                       r"column 't' holds '2024-01-02 10:00'"):  # fmt: skip
        metric_over_time("label", "score", "qid", "t", data=log, freq="1D",
                         time_unit="s")  # fmt: skip
    log = _log(np.array([1_700_000_000, 1_700_000_600]))
    with pytest.raises(ValueError, match=r"time_format= reads strings, but time "
                       r"column 't' holds numbers"):  # fmt: skip
        metric_over_time("label", "score", "qid", "t", data=log, freq="1D",
                         time_unit="s", time_format="%Y")  # fmt: skip
