"""compare(..., by=...): one row per segment and model, corrected together."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.evaluation import (
    SegmentedComparison,
    SmallSampleWarning,
    cold_item_segments,
    compare,
    compare_scores,
    frequency_segments,
    history_segments,
)
from skndcg.metrics import ranking_report


def _scores(n=90, seed=0, lift=0.05):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return pd.DataFrame(
        {
            "model": ["base"] * n + ["new"] * n + ["other"] * n,
            "qid": np.tile(np.arange(n), 3),
            "m": np.r_[base, base + lift + rng.normal(0, 0.1, n), rng.random(n)],
        }
    )


def _holm(p):
    p = np.asarray(p)
    order = np.argsort(p)
    m = p.size
    adj = np.maximum.accumulate(np.minimum(1, p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adj
    return out


def test_rows_per_segment_and_model_match_the_subsets():
    scores = _scores()
    seg = {q: ("cold" if q % 3 == 0 else "warm") for q in range(90)}
    kw = dict(baseline="base", test="t", n_resamples=300, random_state=0)
    cmp = compare(scores, by=seg, **kw)
    assert isinstance(cmp, SegmentedComparison)
    assert cmp.segments == ["cold", "warm"]
    frame = cmp.to_frame()
    assert frame[["segment", "model"]].values.tolist() == [
        [s, m] for s in ("cold", "warm") for m in ("base", "new", "other")
    ]
    for name in ("cold", "warm"):
        keep = [q for q, s in seg.items() if s == name]
        sub = compare(scores[scores["qid"].isin(keep)], correction=None, **kw)
        want = sub.to_frame().set_index("model")
        got = frame[frame["segment"] == name].set_index("model")
        assert got["n_queries"].tolist() == [len(keep)] * 3
        assert np.allclose(got["mean"], want["mean"], rtol=1e-12)
        assert np.allclose(
            got["p_value"].dropna(), want["p_value"].dropna(), rtol=1e-10
        )
    # Holm over every (segment, comparison, metric): 2 x 2 x 1 = 4 p-values.
    pairs = cmp.to_frame(pairs=True)
    assert len(pairs) == 4
    assert np.allclose(pairs["p_adjusted"], _holm(pairs["p_value"]))
    # Their corrected intervals are at 1 - 0.05 / 4.
    assert cmp.confidence_adjusted == pytest.approx(1 - 0.05 / 4)


def test_segment_given_as_column_array_mapping_or_rule():
    scores = _scores()
    labels = np.where(np.arange(90) < 30, "a", "b")
    scores["segment"] = np.tile(labels, 3)
    kw = dict(baseline="base", test="t", n_resamples=200, random_state=0)
    by_column = compare(scores, by="segment", **kw).to_frame()
    assert "segment" not in set(by_column["metric"])  # not taken as a metric
    by_array = compare(scores.drop(columns="segment"), by=labels, **kw).to_frame()
    by_map = compare(
        scores.drop(columns="segment"),
        by=dict(zip(range(90), labels, strict=True)),
        **kw,
    ).to_frame()
    by_rule = compare(
        scores.drop(columns="segment"),
        by=lambda q: np.where(np.asarray(q) < 30, "a", "b"),
        **kw,
    ).to_frame()
    for other in (by_array, by_map, by_rule):
        pd.testing.assert_frame_equal(by_column, other)


def test_small_segment_warns_and_refuses_its_intervals():
    scores = _scores()
    seg = {q: ("tiny" if q < 4 else "rest") for q in range(90)}
    with pytest.warns(SmallSampleWarning, match="segments 'tiny' \\(4\\)"):
        frame = compare(scores, baseline="base", by=seg, random_state=0).to_frame(
            pairs=True
        )
    tiny = frame[frame["segment"] == "tiny"]
    rest = frame[frame["segment"] == "rest"]
    assert tiny["diff_low"].isna().all() and tiny["diff_low_adjusted"].isna().all()
    assert rest["diff_low"].notna().all()
    assert (tiny["p_value"] >= 2 / 16).all()  # exact sign-flip test on 4 queries


def test_missing_segment_label_is_an_error():
    with pytest.raises(ValueError, match="by gives no value for the queries 89"):
        compare(_scores(), by={q: "x" for q in range(89)})
    with pytest.raises(ValueError, match="missing label"):
        compare(_scores(), by=[None] * 45 + ["x"] * 45)
    with pytest.raises(ValueError, match="returned shape"):
        compare(_scores(), by=lambda q: ["x"])


def test_ranking_report_and_compare_scores_by_segment():
    rng = np.random.default_rng(4)
    qid = np.repeat(np.arange(60), 6)
    y = rng.integers(0, 3, qid.size)
    good, bad = y + rng.normal(0, 1, qid.size), rng.random(qid.size)
    rule = history_segments(np.repeat(np.arange(20), 5), bins=(1, 5))
    report = ranking_report(y, good, qid, by=rule)
    assert report["segment"].value_counts().to_dict() == {"no past": 40, ">= 5": 20}
    per_row = np.where(qid < 20, "old", "new")
    report = ranking_report(y, good, qid, by=per_row)
    assert (report["segment"] == np.where(np.arange(60) < 20, "old", "new")).all()
    with pytest.raises(ValueError, match="by varies within the queries \\[0\\]"):
        ranking_report(y, good, qid, by=np.r_[["x", "y"], ["x"] * (qid.size - 2)])
    kw = dict(baseline="bad", n_resamples=300, random_state=0)
    cmp = compare_scores(y, {"good": good, "bad": bad}, qid, by=per_row, **kw)
    reports = {
        n: ranking_report(y, s, qid, by=per_row)
        for n, s in (("good", good), ("bad", bad))
    }
    again = compare(reports, by="segment", metrics=["ndcg@10"], **kw)
    pd.testing.assert_frame_equal(cmp.to_frame(), again.to_frame())
    assert "**new**" in cmp.to_markdown() and "**old**" in cmp.to_markdown()


def test_history_rule_by_hand():
    rule = history_segments(["u1"] * 6 + ["u2"] * 2, bins=(1, 3, 6))
    assert rule(["u1", "u2", "u3"]).tolist() == [">= 6", "1-2", "no past"]
    assert history_segments([1, 2], bins=(2,))([1, 3]).tolist() == ["< 2", "< 2"]
    with pytest.raises(ValueError, match="bins must be increasing integers"):
        history_segments([1], bins=(3, 2))
    # A single number was a TypeError from inside ("'int' object is not iterable").
    with pytest.raises(ValueError, match=r"bins must be a sequence of .*got 2\."):
        history_segments([1], bins=2)


def test_frequency_rule_by_hand():
    # Traffic 50, 20, 15, 10, 5 (of 100): head until 50%, torso until 80%.
    log = {"a": 50, "b": 20, "c": 15, "d": 10, "e": 5}
    rule = frequency_segments(log)
    assert rule(list("abcdef")).tolist() == [
        "head",
        "torso",
        "torso",
        "tail",
        "tail",
        "tail",
    ]
    rule = frequency_segments(np.repeat(list("abcde"), [50, 20, 15, 10, 5]))
    assert rule(list("abcde")).tolist() == ["head", "torso", "torso", "tail", "tail"]
    with pytest.raises(ValueError, match=r"head=0\.9 must not exceed torso=0\.8"):
        frequency_segments(log, head=0.9)


def test_cold_item_rule_by_hand():
    rule = cold_item_segments(
        [1, 1, 2, 2, 3],
        ["a", "new", "a", "new", "b"],
        [1, 1, 1, 0, 1],
        train_item_id=["a", "b"],
    )
    assert rule([1, 2, 3]).tolist() == ["cold items", "warm items", "warm items"]
    with pytest.raises(ValueError, match="no evaluation rows for the queries \\[9\\]"):
        rule([9])


def test_no_warning_without_small_segments():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare(
            _scores(),
            by={q: q % 2 for q in range(90)},
            baseline="base",
            n_resamples=200,
            random_state=0,
        )


def test_forest_plot_draws_every_segment_and_model():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skndcg.plotting import plot_forest

    seg = {q: ("cold" if q < 30 else "warm") for q in range(90)}
    cmp = compare(_scores(), baseline="base", by=seg, n_resamples=300, random_state=0)
    ax = plot_forest(cmp)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [
        "cold | new (n=30)",
        "cold | other (n=30)",
        "warm | new (n=60)",
        "warm | other (n=60)",
    ]
    rows = cmp.to_frame(pairs=True)
    # One interval bar per row, at the corrected bounds, bottom row last.
    bars = [line for line in ax.get_lines() if len(line.get_xdata()) == 2]
    bars = [b for b in bars if b.get_ydata()[0] == b.get_ydata()[1]]
    got = sorted(tuple(np.round(b.get_xdata(), 12)) for b in bars)
    want = sorted(
        tuple(np.round([r.diff_low_adjusted, r.diff_high_adjusted], 12))
        for r in rows.itertuples()
    )
    assert got == want
    assert "difference from base" in ax.get_xlabel()
    plt.close("all")
    with pytest.raises(ValueError, match="baseline"):
        plot_forest(compare(_scores(), by=seg, n_resamples=250, random_state=0))
    with pytest.raises(TypeError, match="plot_forest takes"):
        plot_forest(rows)


def test_json_and_html_hold_every_segment():
    import json

    seg = {q: ("a" if q < 45 else "b") for q in range(90)}
    cmp = compare(_scores(), baseline="base", by=seg, n_resamples=200, random_state=0)
    doc = json.loads(cmp.to_json())
    assert [s["segment"] for s in doc["segments"]] == ["a", "b"]
    first = doc["segments"][0]["comparison"]["pair_rows"][0]
    row = cmp.to_frame(pairs=True).iloc[0]
    assert first["p_adjusted"] == pytest.approx(row["p_adjusted"])
    assert cmp._repr_html_().count("<table>") == 2


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_row_order_does_not_change_a_segmented_comparison(seed):
    scores = _scores(n=40, seed=seed % 100)
    seg = {q: q % 3 for q in range(40)}
    kw = dict(baseline="base", by=seg, n_resamples=250, random_state=seed)
    # Rows in any order (models keep their first-seen order, which names them).
    shuffled = scores.sample(frac=1, random_state=seed % 1000)
    rank = {"base": 0, "new": 1, "other": 2}
    shuffled = shuffled.sort_values("model", key=lambda m: m.map(rank), kind="stable")
    a = compare(scores, **kw).to_frame(pairs=True)
    b = compare(shuffled, **kw).to_frame(pairs=True)
    pd.testing.assert_frame_equal(a, b)
