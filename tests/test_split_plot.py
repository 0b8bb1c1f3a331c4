"""plot_group_time_splits and the gallery example that uses it."""

import runpy
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection
from matplotlib.colors import to_hex

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.plotting import plot_group_time_splits
from skndcg.plotting._splits import STATUS_COLORS

EXAMPLE = (
    Path(__file__).resolve().parents[1] / "examples" / "plot_group_time_series_split.py"
)
GROUPS = np.array(["a", "b", "a", "c", "b", "d", "c", "e", "d", "e", "f", "f"])
TIME = pd.Timestamp("2024-01-01") + pd.to_timedelta(
    [0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9], unit="D"
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def colour_counts(collection):
    hexes = [to_hex(c) for c in collection.get_colors()]
    return {name: hexes.count(to_hex(c)) for name, c in STATUS_COLORS.items()}


def test_one_row_per_fold_coloured_by_role():
    cv = GroupTimeSeriesSplit(2, gap=1)
    X = np.zeros((12, 1))
    ax = plot_group_time_splits(cv, X, groups=GROUPS, time=TIME)
    info = cv.split_info(X, groups=GROUPS, time=TIME)
    collections = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(collections) == 2
    assert [t.get_text() for t in ax.get_yticklabels()] == ["fold 0", "fold 1"]
    for collection, (_, row) in zip(collections, info.iterrows(), strict=True):
        counts = colour_counts(collection)
        assert counts["train"] == row["n_train_groups"]
        assert counts["test"] == row["n_test_groups"]
        assert counts["gap"] == row["n_gap_groups"]
        assert counts["purged"] == row["n_purged_groups"]
        assert sum(counts.values()) == 6
    # x axis is time: the data limits span the dates, not row positions
    left, right = ax.get_xlim()
    assert left <= matplotlib.dates.date2num(
        TIME.min()
    ) and right >= matplotlib.dates.date2num(TIME.max())
    assert ax.get_xlabel() == "time"


def test_draws_on_given_axes_with_numeric_and_zoned_time():
    _, ax = plt.subplots()
    out = plot_group_time_splits(
        GroupTimeSeriesSplit(3), np.zeros((12, 1)), groups=GROUPS, ax=ax
    )
    assert out is ax and ax.get_xlim()[1] >= 11
    zoned = plot_group_time_splits(
        GroupTimeSeriesSplit(2, test_size="2D"),
        np.zeros((12, 1)),
        groups=GROUPS,
        time=TIME.tz_localize("Asia/Tokyo"),
    )
    assert zoned.get_xlabel() == "time (Asia/Tokyo)"


def test_errors_come_from_the_splitter():
    with pytest.raises(ValueError, match="GroupTimeSeriesSplit requires groups"):
        plot_group_time_splits(GroupTimeSeriesSplit(2), np.zeros((12, 1)))


@pytest.mark.parametrize("cv", [None, "GroupTimeSeriesSplit"])
def test_only_a_group_time_series_split_is_drawn(cv):
    # failed with "'NoneType' object has no attribute '_plan'"
    with pytest.raises(TypeError, match="draws a GroupTimeSeriesSplit, got"):
        plot_group_time_splits(cv, np.zeros((12, 1)), GROUPS, TIME)


def test_example_runs():
    namespace = runpy.run_path(str(EXAMPLE), run_name="__main__")
    assert len(plt.get_fignums()) == 3
    assert namespace["info"]["n_test_groups"].min() > 0
