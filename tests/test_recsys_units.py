"""Bad interaction logs: milliseconds for seconds, duplicates, too many negatives."""

import re

import numpy as np
import pandas as pd
import pytest

from skndcg.datasets import make_movielens_like, make_ranking_task
from skndcg.model_selection import GlobalTimeSplit, GroupTimeSeriesSplit

RATINGS = make_movielens_like(60, 120, 2000, random_state=0)


def test_ranking_task_refuses_milliseconds():
    ms = RATINGS.assign(timestamp=RATINGS["timestamp"] * 1000)
    with pytest.raises(ValueError, match=r"ratings\['timestamp'\] holds Unix "):
        make_ranking_task(ms, n_negatives=5, random_state=0)
    # The same data in seconds is accepted and left unmodified.
    before = RATINGS.copy()
    make_ranking_task(RATINGS, n_negatives=5, random_state=0)
    pd.testing.assert_frame_equal(before, RATINGS)


def test_ranking_task_refuses_duplicate_rows():
    dup = pd.concat([RATINGS, RATINGS.iloc[[3]]], ignore_index=True)
    row = RATINGS.iloc[3]
    triple = [int(row["user_id"]), int(row["item_id"]), int(row["timestamp"])]
    with pytest.raises(ValueError, match=re.escape(f"for example {triple}")):
        make_ranking_task(dup, n_negatives=5, random_state=0)


def test_ranking_task_refuses_more_negatives_than_items():
    with pytest.raises(
        ValueError, match="n_negatives=500 is larger than the 119 items any query"
    ):
        make_ranking_task(RATINGS, n_negatives=500, random_state=0)


def test_group_time_split_names_the_unit_of_numeric_time():
    X = pd.DataFrame({"qid": np.arange(6), "t": 1_700_000_000_000 + np.arange(6)})
    with pytest.raises(TypeError, match=re.escape("pd.to_datetime(ts, unit='ms')")):
        next(GroupTimeSeriesSplit(2, gap="1D", time_col="t").split(X))
    X["t"] = 1_700_000_000 + np.arange(6)
    with pytest.raises(TypeError, match=re.escape("pd.to_datetime(ts, unit='s')")):
        next(GroupTimeSeriesSplit(2, gap="1D", time_col="t").split(X))


@pytest.mark.parametrize("scale", [1, 1000])
def test_seconds_read_as_nanoseconds_are_refused(scale):
    # pd.to_datetime on integers assumes nanoseconds: everything lands in 1970.
    stamps = pd.to_datetime(scale * (1_700_000_000 + 86_400 * np.arange(6)))
    X = pd.DataFrame({"qid": np.arange(6), "user_id": 1, "t": stamps})
    with pytest.raises(ValueError, match="first day of 1970"):
        next(GroupTimeSeriesSplit(2, time_col="t").split(X))
    with pytest.raises(ValueError, match="first day of 1970"):
        next(GlobalTimeSplit("1970-01-01", time_col="t").split(X))
    # Read with the right unit, the same data splits.
    X["t"] = pd.to_datetime(
        scale * (1_700_000_000 + 86_400 * np.arange(6)),
        unit="s" if scale == 1 else "ms",
    )
    assert len(list(GroupTimeSeriesSplit(2, time_col="t").split(X))) == 2
