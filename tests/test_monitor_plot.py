"""plot_metric_over_time draws the value, its band, the baseline and the alerts."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection

from skndcg.evaluation import metric_over_time
from skndcg.plotting import plot_metric_over_time


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    n = 6000
    qid = np.repeat(np.arange(n), 3)
    y = rng.integers(0, 2, qid.size)
    s = y + rng.normal(0, 1, qid.size)
    start = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(n) // 1000, "h")
    # The last hour's scores are noise: a large drop that alerts.
    late = np.repeat(np.arange(n) >= 5000, 3)
    s = np.where(late, rng.normal(size=qid.size), s)
    return metric_over_time(
        y, s, qid, start[qid], freq="1h", metrics=["mrr", "ndcg@3"], baseline_windows=2
    )


def test_draws_value_band_baseline_and_alerts(result):
    try:
        ax = plot_metric_over_time(result, metric="mrr")
        rows = result[result["metric"] == "mrr"]
        labels = [line.get_label() for line in ax.get_lines()]
        assert labels == ["mrr", "baseline", "alert"]
        value = ax.get_lines()[0]
        np.testing.assert_allclose(value.get_ydata(), rows["value"])
        alert = ax.get_lines()[2]
        assert rows["alert"].sum() == 1 == len(alert.get_ydata())
        np.testing.assert_allclose(alert.get_ydata(), rows["value"].iloc[-1:])
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bands) == 1
        assert ax.get_ylabel() == "mrr"
    finally:
        plt.close("all")


def test_errors(result):
    with pytest.raises(ValueError, match=r"several measures.*metric="):
        plot_metric_over_time(result)
    with pytest.raises(ValueError, match=r"metric='p@1' is not in the result"):
        plot_metric_over_time(result, metric="p@1")
    with pytest.raises(TypeError, match=r"missing columns"):
        plot_metric_over_time(pd.DataFrame({"a": [1]}))
