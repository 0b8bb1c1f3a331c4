"""compare(): inputs, outputs, tables and errors."""

import json

import numpy as np
import pandas as pd
import pytest

from skndcg.evaluation import (
    Comparison,
    bootstrap_ci,
    choose_queries_to_judge,
    compare,
    compare_scores,
    paired_bootstrap,
)
from skndcg.metrics import grouped_map_score, grouped_ndcg_score, ranking_report


def _data(n_queries=60, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries) * 3 + 1, 8)
    y = rng.integers(0, 4, qid.size) * (rng.random(qid.size) < 0.6)
    y[qid < 15] = 0  # five queries without a relevant item
    good = y + rng.normal(0, 1.0, qid.size)
    worse = y + rng.normal(0, 2.5, qid.size)
    noise = rng.random(qid.size)
    return y, qid, {"noise": noise, "worse": worse, "good": good}


def _reports(metrics=("ndcg@5", "map@5"), **kw):
    y, qid, scores = _data()
    return {
        n: ranking_report(y, s, qid, metrics=metrics, **kw) for n, s in scores.items()
    }


def test_mapping_and_long_frame_agree():
    reports = _reports()
    cmp = compare(reports, baseline="noise", n_resamples=500, random_state=0)
    assert isinstance(cmp, Comparison)
    assert cmp.metrics == ["ndcg@5", "map@5"]  # dcg/idcg and bookkeeping left out
    long = pd.concat([r.assign(model=n) for n, r in reports.items()], ignore_index=True)
    cmp2 = compare(long, baseline="noise", n_resamples=500, random_state=0)
    pd.testing.assert_frame_equal(cmp.to_frame(), cmp2.to_frame())
    # Row order does not matter: queries are resampled in sorted order.
    shuffled = {n: r.sample(frac=1, random_state=1) for n, r in reports.items()}
    cmp3 = compare(shuffled, baseline="noise", n_resamples=500, random_state=0)
    pd.testing.assert_frame_equal(cmp.to_frame(), cmp3.to_frame())


def test_frame_columns_and_values():
    y, qid, scores = _data()
    reports = _reports()
    cmp = compare(reports, baseline="noise", n_resamples=500, random_state=0)
    frame = cmp.to_frame()
    for col in (
        "model",
        "metric",
        "mean",
        "low",
        "high",
        "diff",
        "diff_low",
        "diff_high",
        "p_value",
        "p_adjusted",
        "wins",
        "ties",
        "losses",
        "lift",
        "lift_low",
        "lift_high",
        "significant",
        "baseline",
    ):
        assert col in frame.columns
    assert len(frame) == 3 * 2
    idx = frame.set_index(["model", "metric"])
    for name, s in scores.items():
        assert idx.loc[(name, "ndcg@5"), "mean"] == pytest.approx(
            grouped_ndcg_score(y, s, qid, k=5)
        )
        assert idx.loc[(name, "map@5"), "mean"] == pytest.approx(
            grouped_map_score(y, s, qid, k=5)
        )
    good = idx.loc[("good", "ndcg@5")]
    base = idx.loc[("noise", "ndcg@5")]
    assert good["diff"] == pytest.approx(good["mean"] - base["mean"])
    assert good["lift"] == pytest.approx(good["diff"] / base["mean"])
    assert good["low"] < good["mean"] < good["high"]
    assert good["diff_low"] < good["diff"] < good["diff_high"]
    assert good["diff_low_adjusted"] <= good["diff_low"]
    assert good["significant"] and good["p_adjusted"] >= good["p_value"]
    assert np.isnan(base["diff"]) and not base["significant"]
    # Win / tie / loss counts by hand, on the queries the metric keeps.
    a = reports["good"]["ndcg@5"].to_numpy()
    b = reports["noise"]["ndcg@5"].to_numpy()
    ok = ~np.isnan(a)
    assert (good["wins"], good["ties"], good["losses"]) == (
        np.sum(a[ok] > b[ok]),
        np.sum(a[ok] == b[ok]),
        np.sum(a[ok] < b[ok]),
    )
    assert good["n_queries"] == ok.sum()


def test_all_pairs_without_baseline():
    cmp = compare(_reports(), n_resamples=300, random_state=0)
    pairs = cmp.to_frame(pairs=True)
    assert cmp.pairs == [("noise", "worse"), ("noise", "good"), ("worse", "good")]
    assert len(pairs) == 3 * 2
    assert "diff" not in cmp.to_frame().columns
    text = cmp.to_markdown()
    assert "(a) noise" in text and ">" in text and "holm correction over 6" in text


def test_weighted_means_equal_grouped_scores():
    y, qid, scores = _data()
    rng = np.random.default_rng(1)
    wq = {q: float(rng.integers(1, 5)) for q in np.unique(qid)}
    w_rows = np.array([wq[q] for q in qid])
    cmp = compare_scores(
        y,
        scores,
        qid,
        metrics=["ndcg@5"],
        sample_weight=w_rows,
        baseline="noise",
        n_resamples=200,
        random_state=0,
    )
    means = cmp.to_frame().set_index("model")["mean"]
    for name, s in scores.items():
        ref = grouped_ndcg_score(y, s, qid, k=5, sample_weight=w_rows)
        assert means[name] == pytest.approx(ref, rel=1e-12)
        unweighted = grouped_ndcg_score(y, s, qid, k=5)
        assert means[name] != pytest.approx(unweighted, rel=1e-6)
    # The same through reports with a weight column, and through a mapping.
    reports = _reports(metrics=("ndcg@5",), sample_weight=w_rows)
    for weights in ("weight", wq):
        cmp2 = compare(
            reports,
            sample_weight=weights,
            baseline="noise",
            n_resamples=200,
            random_state=0,
        )
        pd.testing.assert_series_equal(
            cmp2.to_frame().set_index("model")["mean"], means
        )


def test_bootstrap_ci_honours_weights():
    rng = np.random.default_rng(0)
    v = rng.random(50)
    w = rng.integers(1, 4, 50).astype(float)
    ci = bootstrap_ci(v, sample_weight=w, n_resamples=300, random_state=3)
    assert ci.estimate == pytest.approx(np.average(v, weights=w))
    rs = np.random.RandomState(3)
    idx = rs.randint(0, 50, size=(300, 50))
    means = (w[idx] * v[idx]).sum(1) / w[idx].sum(1)
    assert (ci.low, ci.high) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])))
    # Integer weights: the estimate equals that of repeated queries.
    rep = np.repeat(v, w.astype(int))
    assert ci.estimate == pytest.approx(bootstrap_ci(rep, n_resamples=250).estimate)
    # Unit weights change nothing (backwards compatible).
    assert bootstrap_ci(v, sample_weight=np.ones(50), random_state=1) == pytest.approx(
        bootstrap_ci(v, random_state=1)
    )
    res = paired_bootstrap(v, v * 0.5, sample_weight=w, random_state=0)
    assert res.difference == pytest.approx(np.average(v * 0.5, weights=w))
    with pytest.raises(ValueError, match="sample_weight must hold one weight"):
        bootstrap_ci(v, sample_weight=w[:3])


def test_nan_policy():
    reports = _reports(metrics=("ndcg@5",))
    n_nan = reports["good"]["ndcg@5"].isna().sum()
    assert n_nan > 0  # queries without a relevant item
    cmp = compare(reports, baseline="noise", n_resamples=100, random_state=0)
    assert cmp.to_frame()["n_queries"].iloc[0] == len(reports["good"]) - n_nan
    with pytest.raises(ValueError, match=r"metric 'ndcg@5' of model 'noise' is NaN"):
        compare(reports, nan_policy="raise")
    with pytest.raises(ValueError, match="nan_policy must be"):
        compare(reports, nan_policy="drop")


def test_clear_errors():
    reports = _reports(metrics=("ndcg@5",))
    short = dict(reports)
    short["good"] = reports["good"].iloc[3:]
    with pytest.raises(ValueError, match=r"model 'good' lacks the queries 1, 4, 7"):
        compare(short)
    with pytest.raises(ValueError, match="at least two models, got 1"):
        compare({"good": reports["good"]})
    with pytest.raises(ValueError, match=r"test must be one of .*'ttest'"):
        compare(reports, test="ttest")
    with pytest.raises(ValueError, match=r"correction must be one of .*'by'"):
        compare(reports, correction="by")
    with pytest.raises(ValueError, match="baseline='bm25' is not one of the models"):
        compare(reports, baseline="bm25")
    with pytest.raises(ValueError, match="metrics \\['mrr'\\] are not columns"):
        compare(reports, metrics="mrr")
    with pytest.raises(ValueError, match="wilcoxon' has no weighted form"):
        compare(reports, test="wilcoxon", sample_weight=np.ones(60))
    with pytest.raises(ValueError, match="confidence must be"):
        compare(reports, confidence=95)
    with pytest.raises(ValueError, match="n_resamples must be"):
        compare(reports, n_resamples=0)
    with pytest.raises(ValueError, match="interval must be"):
        compare(reports, interval="basic")
    dup = dict(reports)
    dup["good"] = pd.concat([reports["good"], reports["good"].iloc[:2]])
    with pytest.raises(ValueError, match="several rows for the queries 1, 4"):
        compare(dup)
    with pytest.raises(ValueError, match="sample_weight must hold one value per query"):
        compare(reports, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="sample_weight must be finite and >= 0"):
        compare(reports, sample_weight=-np.ones(60))
    with pytest.raises(ValueError, match="cluster='user' is not a column"):
        compare(reports, cluster="user")
    with pytest.raises(TypeError, match="scores must be a mapping"):
        compare([1, 2, 3])
    with pytest.raises(ValueError, match="column 'model' is missing"):
        compare(pd.DataFrame({"qid": [1], "m": [0.1]}))
    bad = dict(reports)
    bad["good"] = reports["good"].assign(**{"ndcg@5": np.inf})
    with pytest.raises(ValueError, match="infinite for the queries"):
        compare(bad)
    y, qid, scores = _data()
    with pytest.raises(ValueError, match="cluster varies within the queries"):
        compare_scores(y, scores, qid, cluster=np.arange(qid.size))
    with pytest.raises(
        ValueError, match=r"mapping \{model name: y_score\} of at least two"
    ):
        compare_scores(y, {"a": scores["good"]}, qid)
    # A model's bad scores were refused without naming the model.
    short = {**scores, "bad": scores["good"][:-1]}
    with pytest.raises(ValueError, match=r"^model 'bad': y_score has \d+ rows but"):
        compare_scores(y, short, qid)
    # Inputs are not modified.
    before = reports["good"].copy()
    compare(reports, n_resamples=250, random_state=0)
    pd.testing.assert_frame_equal(reports["good"], before)


@pytest.mark.parametrize("seed", ["abc", -1, 2**32, 1.5, [1, 2]])
def test_bad_random_state_is_named(seed):
    # It gave the seeding library's message, without the argument's name
    # ("Seed must be between 0 and 2**32 - 1" for -1).
    reports = _reports(metrics=("ndcg@5",))
    y, qid, scores = _data()
    must = r"random_state must be None, an integer in \[0, 2\*\*32 - 1\], a numpy "
    with pytest.raises(ValueError, match=must + r"RandomState or a numpy Generator"):
        compare(reports, n_resamples=250, random_state=seed)
    with pytest.raises(ValueError, match=must):
        compare_scores(y, scores, qid, n_resamples=250, random_state=seed)
    with pytest.raises(ValueError, match=must):
        choose_queries_to_judge(range(10), 3, random_state=seed)
    # The seeds it takes give the numbers they gave.
    a = compare(reports, n_resamples=250, random_state=np.int64(3)).to_frame()
    b = compare(reports, n_resamples=250, random_state=3).to_frame()
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_a_bool_random_state_is_refused_at_every_door():
    # True is an int to Python: it was read as the seed 1.
    from skndcg.datasets import make_movielens_like, make_ranking_task
    from skndcg.evaluation import bootstrap_ci, estimate_position_bias
    from skndcg.online import interleave, simulate_clicks

    reports = _reports(metrics=("ndcg@5",))
    must = r"random_state must be None, an integer in \[0, 2\*\*32 - 1\], a numpy "
    ratings = make_movielens_like(20, 50, 400, random_state=0)
    rng = np.random.default_rng(0)
    qid, doc = np.tile(np.repeat(np.arange(10), 3), 20), np.tile([0, 1, 2], 200)
    position = np.concatenate([rng.permutation(3) + 1 for _ in range(200)])
    calls = {
        "compare": lambda rs: compare(reports, n_resamples=250, random_state=rs),
        "choose_queries_to_judge": lambda rs: choose_queries_to_judge(
            range(10), 3, random_state=rs
        ),
        "simulate_clicks": lambda rs: simulate_clicks(
            [1, 1, 2], [1, 2, 1], [1, 0, 1], random_state=rs
        ),
        "interleave": lambda rs: interleave(
            [1, 1], ["a", "b"], [1.0, 0.0], [0.0, 1.0], random_state=rs
        ),
        "bootstrap_ci": lambda rs: bootstrap_ci([0.2, 0.4, 0.6], random_state=rs),
        "estimate_position_bias": lambda rs: estimate_position_bias(
            position,
            rng.random(600) < 0.6 / position,
            qid=qid,
            doc=doc,
            n_resamples=25,
            random_state=rs,
        ),
        "make_movielens_like": lambda rs: make_movielens_like(
            20, 50, 400, random_state=rs
        ),
        "make_ranking_task": lambda rs: make_ranking_task(
            ratings, n_negatives=5, random_state=rs
        ),
    }
    for name, call in calls.items():
        call(1)  # the seed it would have been read as is taken
        with pytest.raises(ValueError, match=must + r".*got True\.$"):
            call(True)
            pytest.fail(f"{name} took random_state=True")
    with pytest.raises(ValueError, match=r"or a numpy Generator, got False\.$"):
        bootstrap_ci([0.2, 0.4, 0.6], random_state=False)


def test_tables_and_json():
    cmp = compare(
        _reports(metrics=("ndcg@5",)),
        baseline="noise",
        correction="bonferroni",
        n_resamples=300,
        random_state=0,
    )
    md = cmp.to_markdown()
    lines = md.splitlines()
    assert lines[0] == "| model | ndcg@5 |"
    assert lines[3].startswith("| worse |") and lines[4].startswith("| good |")
    good = cmp.to_frame().set_index("model").loc["good"]
    assert f"{good['mean']:.3f} [{good['low']:.3f}, {good['high']:.3f}]*" in md
    assert (
        "bonferroni correction over 2 comparisons" in md and "differs from noise" in md
    )
    tex = cmp.to_latex()
    assert "\\toprule" in tex and "$^{*}$" in tex and "95\\%" in tex
    doc = json.loads(cmp.to_json())
    assert doc["correction"] == "bonferroni" and doc["baseline"] == "noise"
    rows = {(r["model"], r["metric"]): r for r in doc["pair_rows"]}
    assert rows["good", "ndcg@5"]["p_adjusted"] == pytest.approx(good["p_adjusted"])
    assert doc["model_rows"][0]["mean"] == pytest.approx(cmp.to_frame()["mean"][0])
    html = cmp._repr_html_()
    assert html.startswith("<table>") and "good" in html
    assert "Comparison of 3 models" in repr(cmp)
    reports = _reports(metrics=("ndcg@5",))
    odd = {"model_1": reports["good"], "b&c": reports["noise"]}
    tex = compare(odd, n_resamples=250, random_state=0).to_latex()
    assert "model\\_1" in tex and "b\\&c" in tex


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_cluster_from_rows_and_reports():
    y, qid, scores = _data()
    user = qid % 7
    cmp = compare_scores(
        y,
        scores,
        qid,
        metrics="ndcg@5",
        cluster=user,
        baseline="noise",
        n_resamples=200,
        random_state=0,
    )
    reports = _reports(metrics=("ndcg@5",))
    for r in reports.values():
        r["user"] = r["qid"] % 7
    cmp2 = compare(
        reports, cluster="user", baseline="noise", n_resamples=200, random_state=0
    )
    pd.testing.assert_frame_equal(cmp.to_frame(), cmp2.to_frame())
    assert cmp.clustered and "over clusters" in cmp.to_markdown()


def test_a_named_column_must_agree_between_models():
    # Only the first model's column was read: another model's weights, cluster
    # ids or segments were silently ignored.
    reports = _reports()
    frames = {n: r.assign(weight=1.0, user=r["qid"] // 9) for n, r in reports.items()}
    frames["good"] = frames["good"].assign(weight=np.arange(len(frames["good"])))
    frames["worse"] = frames["worse"].assign(user=0)
    with pytest.raises(ValueError, match=r"sample_weight='weight' differs between"):
        compare(frames, sample_weight="weight", n_resamples=250)
    with pytest.raises(ValueError, match=r"cluster='user' differs .* 'worse'"):
        compare(frames, cluster="user", n_resamples=250)
    with pytest.raises(ValueError, match=r"by='user' differs between the models"):
        compare(frames, metrics="ndcg@5", by="user", n_resamples=250, min_queries=0)
    # The same column in every model, in any row order, is accepted.
    same = {n: f.assign(weight=1.0, user=f["qid"]).sample(frac=1, random_state=1)
            for n, f in frames.items()}  # fmt: skip
    compare(same, sample_weight="weight", cluster="user", n_resamples=250)


def test_a_missing_model_or_qid_is_refused_with_its_row():
    # pandas' groupby left out a row whose model is NaN, and a NaN qid was
    # counted as a query.
    values = np.linspace(0, 1, 12)
    long = pd.DataFrame(
        {"model": ["a"] * 12 + ["b"] * 12, "qid": np.tile(np.arange(12.0), 2),
         "m": np.r_[values, values[::-1]]}
    )  # fmt: skip
    compare(long, n_resamples=250, random_state=0)
    no_model = long.astype({"model": object})
    no_model.loc[13, "model"] = np.nan
    with pytest.raises(
        ValueError,
        match=r"column 'model' of scores has 1 missing "
        r"value\(s\) \(first at row 13\); every row needs a model",
    ):
        compare(no_model, n_resamples=250)  # fmt: skip
    no_qid = long.copy()
    no_qid.loc[[5, 17], "qid"] = np.nan
    with pytest.raises(
        ValueError,
        match=r"column 'qid' of scores has 2 missing "
        r"value\(s\) \(first at row 5\); every row needs a query id",
    ):
        compare(no_qid, n_resamples=250)  # fmt: skip
    reports = {"a": long[:12], "b": no_qid[12:].reset_index(drop=True)}
    with pytest.raises(
        ValueError,
        match=r"column 'qid' of scores\['b'\] has 1 "
        r"missing value\(s\) \(first at row 5\)",
    ):
        compare(reports, n_resamples=250)  # fmt: skip
