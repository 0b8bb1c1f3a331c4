"""compare / compare_scores with y_model=: prediction-powered comparisons."""

import warnings

import numpy as np
import pandas as pd
import pytest
from ppi_sim import simulate

from skndcg.evaluation import (
    PredictionPoweredComparison,
    compare,
    compare_scores,
    prediction_powered_report,
)
from skndcg.evaluation._stats._significance import adjust_p_values

METRICS = ["ndcg@10", "p@10"]


@pytest.fixture(scope="module")
def sim():
    return simulate(400, np.random.default_rng(3), judged_share=0.15)


def _cmp(s, **kw):
    runs = {"a": s["score_a"], "b": s["score_b"]}
    kw.setdefault("metrics", METRICS)
    kw.setdefault("test", "t")
    return compare_scores(s["y_true"], runs, s["qid"], y_model=s["y_model"], **kw)


def test_means_are_the_report_estimates(sim):
    cmp = _cmp(sim, baseline="b")
    assert isinstance(cmp, PredictionPoweredComparison)
    frame = cmp.to_frame().set_index(["model", "metric"])
    for system in ("a", "b"):
        rep = prediction_powered_report(
            sim["y_true"], sim["y_model"], sim[f"score_{system}"], sim["qid"],
            metrics=METRICS,
        ).set_index("metric")  # fmt: skip
        for m in METRICS:
            row = frame.loc[(system, m)]
            assert row["mean"] == pytest.approx(rep.loc[m, "estimate"])
            assert row["low"] == pytest.approx(rep.loc[m, "low"])
            assert row["model_only"] == pytest.approx(rep.loc[m, "model_only"])


def test_difference_is_the_estimate_of_per_query_differences(sim):
    """The paired difference is the PPI++ mean of per-query differences: by
    hand with lambda = cov / var on the judged queries (no query skipped
    for P@10 once every query has a relevant row)."""
    from skndcg.metrics import ranking_report

    sim = dict(sim)
    first = np.r_[True, sim["qid"][1:] != sim["qid"][:-1]]
    for key in ("y", "y_model"):
        sim[key] = np.where(first, np.maximum(sim[key], 1), sim[key])
    sim["y_true"] = np.where(sim["judged"], sim["y"], np.nan)
    cmp = _cmp(sim, baseline="b", metrics=["p@10"])
    row = cmp.to_frame(pairs=True).iloc[0]
    qid, judged = sim["qid"], sim["judged"]

    def values(labels, score, rows):
        rep = ranking_report(labels[rows], score[rows], qid[rows], metrics="p@10")
        return rep["p@10"].to_numpy()

    every = np.ones(qid.size, bool)
    f = values(sim["y_model"], sim["score_a"], every) - values(
        sim["y_model"], sim["score_b"], every
    )
    h = values(sim["y"], sim["score_a"], judged) - values(
        sim["y"], sim["score_b"], judged
    )
    fj = f[np.unique(qid[judged])]
    lam = np.cov(h, fj)[0, 1] / np.var(fj, ddof=1)
    assert row["diff"] == pytest.approx(lam * f.mean() + np.mean(h - lam * fj))
    n, N = h.size, f.size
    se = np.sqrt(np.var(h, ddof=1) / N + (1 - n / N) * np.var(h - lam * fj, ddof=1) / n)
    from scipy import stats

    p = 2 * stats.t.sf(abs(row["diff"]) / se, n - 1)
    assert row["p_value"] == pytest.approx(p)
    assert row["wins"] + row["ties"] + row["losses"] == n


def test_corrections_are_the_usual_ones(sim):
    cmp = _cmp(sim, correction="holm")
    pairs = cmp.to_frame(pairs=True)
    np.testing.assert_allclose(
        pairs["p_adjusted"], adjust_p_values(pairs["p_value"].to_numpy(), "holm")
    )
    assert cmp.confidence_adjusted == pytest.approx(1 - 0.05 / len(pairs))
    width = pairs["diff_high"] - pairs["diff_low"]
    assert (pairs["diff_high_adjusted"] - pairs["diff_low_adjusted"] > width).all()


def test_bootstrap_test(sim):
    cmp = _cmp(sim, baseline="b", test="paired_bootstrap", n_resamples=400,
               random_state=0)  # fmt: skip
    t = _cmp(sim, baseline="b")
    a, b = cmp.to_frame(pairs=True), t.to_frame(pairs=True)
    np.testing.assert_allclose(a["diff"], b["diff"])
    assert cmp.interval == "percentile" and t.interval == "clt"
    assert (
        (a["diff_low"] - b["diff_low"]).abs() < 0.5 * (b["diff_high"] - b["diff_low"])
    ).all()
    assert "bootstrap" in cmp.to_markdown() and "t interval" in t.to_markdown()


def test_order_flip_is_reported(sim):
    """A judge that favours system b's ranking: its labels alone put b first,
    the human sample corrects the order, and a warning says so."""
    s = dict(sim)
    rank = pd.Series(-s["score_b"]).groupby(s["qid"]).rank(method="first")
    s["y_model"] = np.where(rank.to_numpy() <= 5, 3.0, 0.0)  # b's top 5 relevant
    with pytest.warns(
        UserWarning, match="the model's labels alone rank the systems b > a"
    ):
        cmp = _cmp(s, baseline="b", metrics=["ndcg@10"])
    frame = cmp.to_frame().set_index("model")
    assert cmp.order_flips == ["ndcg@10"]
    assert frame.loc["b", "rank_model_only"] == 1 and frame.loc["a", "rank"] == 1
    assert "order the systems differently on ndcg@10" in cmp.to_markdown()


def test_no_flip_no_warning(sim):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cmp = _cmp(sim, baseline="b", metrics=["ndcg@10"])
    assert cmp.order_flips == []
    assert repr(cmp).startswith("<PredictionPoweredComparison of 2 models")


def test_compare_takes_per_query_frames(sim):
    """compare(human_frames, y_model=model_frames) gives the same numbers."""
    from skndcg.evaluation._ppi._comparison import reports_two_sources

    runs = {"a": sim["score_a"], "b": sim["score_b"]}
    human, model = reports_two_sources(
        sim["y_true"], runs, sim["qid"], sim["y_model"], METRICS, None, False
    )
    direct = compare(human, y_model=model, baseline="b", test="t", metrics=METRICS)
    np.testing.assert_allclose(
        direct.to_frame()["mean"], _cmp(sim, baseline="b").to_frame()["mean"]
    )


def test_bad_input(sim):
    from skndcg.evaluation._ppi._comparison import reports_two_sources

    runs = {"a": sim["score_a"], "b": sim["score_b"]}
    human, model = reports_two_sources(
        sim["y_true"], runs, sim["qid"], sim["y_model"], METRICS, None, False
    )
    with pytest.raises(ValueError, match="test='wilcoxon' has no prediction-powered"):
        compare(human, y_model=model, test="wilcoxon")
    with pytest.raises(ValueError, match="sample_weight is not supported with y_model"):
        compare(human, y_model=model, sample_weight="n_items")
    with pytest.raises(ValueError, match="interval='bca' is not supported"):
        compare(human, y_model=model, interval="bca")
    few = {k: v[v["qid"] > 5] for k, v in model.items()}
    with pytest.raises(ValueError, match="have no values under the model's labels"):
        compare(human, y_model=few)
    with pytest.raises(ValueError, match="holds the models"):
        compare(human, y_model={"a": model["a"], "c": model["b"]})
    with pytest.raises(ValueError, match="pass expected_labels=True"):
        compare_scores(sim["y_true"], runs, sim["qid"], y_model=sim["y_model"] * 0.9)
