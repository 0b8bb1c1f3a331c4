"""Plots of a comparison: what is drawn (artists, labels, data), not pixels."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from skndcg.evaluation import compare_scores
from skndcg.plotting import plot_comparison, plot_metric_at_k, plot_paired

KS = range(1, 6)


@pytest.fixture(scope="module")
def cmp():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(50), 10)
    y = rng.integers(0, 3, 500)
    scores = {
        "random": rng.random(500),
        "good": y + rng.normal(0, 0.7, 500),
        "fair": y + rng.normal(0, 2.0, 500),
    }
    metrics = [*(f"ndcg@{k}" for k in KS), "mrr"]
    return compare_scores(
        y,
        scores,
        qid,
        metrics=metrics,
        baseline="random",
        n_resamples=500,
        random_state=0,
    )


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_metric_at_k_lines_bands_and_labels(cmp):
    ax = plot_metric_at_k(cmp)
    frame = cmp.to_frame().set_index(["model", "metric"])
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == cmp.models
    for ln, model in zip(lines, cmp.models, strict=True):
        assert list(ln.get_xdata()) == list(KS)
        expected = [frame.loc[(model, f"ndcg@{k}"), "mean"] for k in KS]
        assert np.allclose(ln.get_ydata(), expected)
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 3
    verts = bands[1].get_paths()[0].vertices
    low = [frame.loc[("good", f"ndcg@{k}"), "low"] for k in KS]
    high = [frame.loc[("good", f"ndcg@{k}"), "high"] for k in KS]
    assert np.allclose(verts[:, 1].min(), min(low))
    assert np.allclose(verts[:, 1].max(), max(high))
    assert ax.get_xlabel() == "k (cut-off)"
    assert "ndcg@k" in ax.get_ylabel() and "95% interval" in ax.get_ylabel()
    n = int(frame.loc[("good", "ndcg@1"), "n_queries"])
    assert f"over {n} queries" in ax.get_title()
    with pytest.raises(ValueError, match="no 'p@k' metric"):
        plot_metric_at_k(cmp, "p")
    with pytest.raises(TypeError, match="takes the Comparison"):
        plot_metric_at_k({"a": 1})


def test_comparison_forest_plot(cmp):
    ax = plot_comparison(cmp, metric="ndcg@5")
    pairs = cmp.to_frame(pairs=True)
    pairs = pairs[pairs["metric"] == "ndcg@5"]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["good - random", "fair - random"]
    # The error bars span the corrected intervals.
    segs = next(c for c in ax.collections if c.__class__.__name__ == "LineCollection")
    spans = [s[:, 0] for s in segs.get_segments()]
    for span, row in zip(spans, pairs.itertuples(), strict=True):
        assert np.allclose(
            sorted(span), [row.diff_low_adjusted, row.diff_high_adjusted]
        )
    assert cmp.confidence_adjusted < 1
    zero = [ln for ln in ax.get_lines() if np.allclose(ln.get_xdata(), 0)]
    assert zero, "a vertical line at zero"
    assert "holm" in ax.get_title() and "queries" in ax.get_title()
    assert ax.get_xlabel() == "difference in mean ndcg@5"
    filled = ax.collections[-2].get_offsets()
    assert len(filled) == int(pairs["significant"].sum())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    sig = pairs["significant"].to_numpy()
    expected = [
        k for k, n in (("significant", sig), ("not significant", ~sig)) if n.any()
    ]
    assert legend == expected
    raw = plot_comparison(cmp, metric="ndcg@5", corrected=False, ax=plt.figure().gca())
    assert "uncorrected" in raw.get_title()
    every = plot_comparison(cmp)
    assert len(every.get_yticklabels()) == 2 * len(cmp.metrics)
    assert "(mrr)" in every.get_yticklabels()[-1].get_text()


def test_paired_scatter_and_hist(cmp):
    ax = plot_paired(cmp, "good", metric="mrr")
    j = cmp.metrics.index("mrr")
    a = cmp.values[cmp.models.index("good"), :, j]
    b = cmp.values[cmp.models.index("random"), :, j]
    ok = ~np.isnan(a)
    offsets = ax.collections[0].get_offsets()
    assert np.allclose(offsets[:, 0], b[ok]) and np.allclose(offsets[:, 1], a[ok])
    assert ax.get_xlabel() == "mrr of random" and ax.get_ylabel() == "mrr of good"
    d = a[ok] - b[ok]
    assert ax.get_title() == (
        f"{ok.sum()} queries: {np.sum(d > 0)} wins, {np.sum(d == 0)} ties, "
        f"{np.sum(d < 0)} losses"
    )
    hist = plot_paired(cmp, "good", "fair", metric="mrr", kind="hist")
    heights = [p.get_height() for p in hist.patches]
    assert sum(heights) == ok.sum()
    assert hist.get_ylabel() == "queries" and "good - fair" in hist.get_xlabel()
    with pytest.raises(ValueError, match="several metrics"):
        plot_paired(cmp, "good")
    with pytest.raises(ValueError, match="'bm25' is not one of the models"):
        plot_paired(cmp, "bm25", metric="mrr")
    with pytest.raises(ValueError, match="kind must be"):
        plot_paired(cmp, "good", metric="mrr", kind="box")


def test_metric_at_k_needs_a_metric_name(cmp):
    with pytest.raises(TypeError, match="metric must be a str, got None"):
        plot_metric_at_k(cmp, None)  # failed with "'NoneType' ... 'lower'"
