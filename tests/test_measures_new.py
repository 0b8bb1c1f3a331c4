"""ERR, nERR, RBP and its residual, R-precision, bpref and judged@k: by hand,
against the brute-force reference, under trec_eval's convention and in
``skndcg score``."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import per_query_measure
from test_metrics_reference import ranking_data

from skndcg.cli import main
from skndcg.metrics import grouped_ranking_scores, ranking_report

# Query a ranks labels 2, 0, 3 (scores .9 .5 .1); query b ranks 1, unjudged, 0.
Y = np.array([3, 2, 0, 1, np.nan, 0])
S = np.array([0.1, 0.9, 0.5, 0.9, 0.5, 0.1])
Q = np.array(["a", "a", "a", "b", "b", "b"])


def per_query(metric, **options):
    report = ranking_report(Y, S, Q, metrics=[metric], nan_label="unjudged", **options)
    return dict(zip(report["qid"], report[metric], strict=True))


def test_err_by_hand():
    # g_max = 3 (largest label): stop probabilities 3/8, 0, 7/8 for a; 1/8 for b.
    a = 3 / 8 + (5 / 8) * (7 / 8) / 3
    assert per_query("err") == pytest.approx({"a": a, "b": 1 / 8}, abs=1e-15)
    assert per_query("err@1") == pytest.approx({"a": 3 / 8, "b": 1 / 8}, abs=1e-15)
    # g_max given: 2**4.
    a4 = 3 / 16 + (13 / 16) * (7 / 16) / 3
    assert per_query("err(g_max=4)")["a"] == pytest.approx(a4, abs=1e-15)


def test_nerr_by_hand():
    ideal_a = 7 / 8 + (1 / 8) * (3 / 8) / 2
    got = per_query("nerr")
    assert got["a"] == pytest.approx((3 / 8 + (5 / 8) * (7 / 8) / 3) / ideal_a)
    assert got["b"] == pytest.approx(1.0)


def test_rbp_and_residual_by_hand():
    # a: relevant labels 2 (rank 1) and 3 (rank 3); b: 1 at rank 1.
    got = per_query("rbp(p=0.5)")
    assert got == pytest.approx({"a": 0.5 * (2 + 3 * 0.25), "b": 0.5}, abs=1e-15)
    # Residual: unjudged rank 2 of b, plus the weight below the depth.
    res = per_query("rbp_resid(p=0.5)")
    assert res == pytest.approx({"a": 0.125, "b": 0.5 * 0.5 + 0.125}, abs=1e-15)
    res2 = per_query("rbp_resid(p=0.5)@2")
    assert res2 == pytest.approx({"a": 0.25, "b": 0.25 + 0.25}, abs=1e-15)


def test_rprec_bpref_judged_by_hand():
    # a: R = 2, top 2 holds one relevant row; b: R = 1, top 1 relevant.
    assert per_query("rprec") == pytest.approx({"a": 0.5, "b": 1.0})
    # a: relevant at rank 1 (nothing above) and rank 3 (one judged non-relevant
    # above, min(R, N) = min(2, 1) = 1): (1 + 0) / 2. b: 1, unjudged ignored.
    assert per_query("bpref") == pytest.approx({"a": 0.5, "b": 1.0})
    assert per_query("judged@2") == pytest.approx({"a": 1.0, "b": 0.5})
    assert per_query("judged") == pytest.approx({"a": 1.0, "b": 2 / 3})
    assert per_query("judged@10") == pytest.approx({"a": 1.0, "b": 2 / 3})


def test_unjudged_rows_are_not_relevant_elsewhere():
    # nan_label="unjudged" leaves every other measure as with a label 0.
    with_nan = grouped_ranking_scores(
        Y, S, Q, ["ndcg@3", "map", "err", "rprec"], nan_label="unjudged"
    )
    zero = grouped_ranking_scores(
        np.nan_to_num(Y), S, Q, ["ndcg@3", "map", "err", "rprec"]
    )
    assert with_nan == pytest.approx(zero, abs=1e-15)


METRICS = ["err", "nerr", "rbp", "rbp_resid", "rprec", "bpref", "judged"]


@settings(max_examples=40, deadline=None)
@given(
    ranking_data(),
    st.sampled_from(METRICS),
    st.sampled_from([1, 2, 5, None]),
    st.sampled_from(["average", "stable"]),
    st.data(),
)
def test_against_reference(data, metric, k, ties, draw):
    y, s, q = data
    y = y.astype(np.float64)
    unjudged = np.array(draw.draw(st.lists(st.booleans(), min_size=y.size,
                                           max_size=y.size)))  # fmt: skip
    y[unjudged] = np.nan
    if metric == "rprec":
        k = None
    name = metric if k is None else f"{metric}@{k}"
    report = ranking_report(y, s, q, metrics=[name], ties=ties, empty="zero",
                            nan_label="unjudged")  # fmt: skip
    label_max = float(np.nanmax(y)) if (~np.isnan(y)).any() else 0.0
    for key, got in zip(report["qid"], report[name], strict=True):
        rows = q == key
        want, empty = per_query_measure(
            list(y[rows]), list(s[rows]), metric, k, label_max=label_max, ties=ties
        )
        assert got == pytest.approx(0.0 if empty else want, abs=1e-12), key


@settings(max_examples=25, deadline=None)
@given(ranking_data(), st.sampled_from(METRICS), st.randoms(use_true_random=False))
def test_row_order_invariance(data, metric, rnd):
    y, s, q = data
    perm = np.arange(y.size)
    rnd.shuffle(perm)
    a = grouped_ranking_scores(y, s, q, [metric], empty="zero")
    b = grouped_ranking_scores(y[perm], s[perm], q[perm], [metric], empty="zero")
    assert a[metric] == pytest.approx(b[metric], abs=1e-13)


def test_bounds_and_monotone_in_k():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 300).astype(float)
    s = rng.random(300)
    q = np.repeat(np.arange(30), 10)
    for m in ["err", "nerr", "rbp", "rprec", "bpref", "judged"]:
        v = grouped_ranking_scores(y, s, q, [m])[m]
        assert 0.0 <= v <= (1.0 if m != "rbp" else 3.0), m
    err = [grouped_ranking_scores(y, s, q, [f"err@{k}"])[f"err@{k}"] for k in (1, 3, 9)]
    assert err[0] <= err[1] <= err[2]


@pytest.mark.parametrize("metric", METRICS)
def test_trec_eval_convention(metric):
    got = grouped_ranking_scores(
        Y, S, Q, [metric], convention="trec_eval", nan_label="unjudged"
    )[metric]
    # trec_eval: relevant means label >= 1; scores are distinct within queries.
    values = []
    for key in ("a", "b"):
        rows = key == Q
        values.append(
            per_query_measure(
                list(Y[rows]), list(S[rows]), metric, None, rel=1, label_max=3.0
            )
        )
    want = np.mean([0.0 if e else v for v, e in values])
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(
    "name, match",
    [
        (
            "rbp(p=1)",
            r"rbp: parameter p=1 is out of range; expected a number in \(0, 1\)",
        ),
        ("rbp(p=0)", r"parameter p=0 is out of range"),
        ("rbp(q=0.5)", r"rbp has no parameter 'q'; valid parameters are \['p'\]"),
        ("rbp(p=x)", r"parameter p='x' must be a number"),
        ("err@0", r"cut-off 0; it must be >= 1"),
        ("judged@-2", r"cut-off -2; it must be >= 1"),
        ("rprec@5", r"rprec takes no cut-off"),
        ("ndcg(p=1)", r"ndcg has no parameter 'p'; it takes none"),
    ],
)
def test_bad_names(name, match):
    with pytest.raises(ValueError, match=match):
        grouped_ranking_scores([1, 0], [0.5, 0.2], [1, 1], [name])


def test_nan_labels_need_the_option():
    with pytest.raises(
        ValueError, match=r"y_true contains 1 NaN.*nan_label='unjudged'"
    ):
        grouped_ranking_scores(Y, S, Q, ["bpref"])


def test_skndcg_score(tmp_path, capsys):
    path = tmp_path / "pred.csv"
    path.write_text("q,l,s\na,3,0.1\na,2,0.9\na,0,0.5\nb,1,0.9\nb,0,0.1\n")
    names = ["err@3", "rbp(p=0.5)", "rprec", "bpref", "judged@2", "nerr"]
    code = main(["score", str(path), "--qid", "q", "--label", "l", "--score", "s",
                 "--metrics", *names, "--format", "json"])  # fmt: skip
    out, _ = capsys.readouterr()
    assert code == 0
    got = json.loads(out)["mean"]
    y = np.array([3, 2, 0, 1, 0])
    s = np.array([0.1, 0.9, 0.5, 0.9, 0.1])
    q = np.array(list("aaabb"))
    assert got == pytest.approx(grouped_ranking_scores(y, s, q, names), abs=1e-12)


def test_trec_join_marks_unjudged_rows():
    import pandas as pd

    from skndcg.io import join_run_qrels

    run = pd.DataFrame({"qid": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
                        "score": [4.0, 3.0, 2.0, 1.0]})  # fmt: skip
    qrels = pd.DataFrame({"qid": ["q1"] * 4, "doc_id": ["a", "c", "d", "e"],
                          "relevance": [0, 1, -1, 2]})  # fmt: skip
    data = join_run_qrels(run, qrels, unjudged="nan")
    # b was never judged and d has a negative judgment: both unjudged.
    np.testing.assert_array_equal(data.y_true, [0, np.nan, 1, np.nan, 2])
    assert join_run_qrels(run, qrels).y_true.tolist() == [0, 0, 1, 0, 2]
    got = grouped_ranking_scores(
        data.y_true, data.y_score, data.qid, ["bpref", "judged@4", "judged@2"],
        nan_label="unjudged", nan_score="unretrieved", convention="trec_eval",
    )  # fmt: skip
    # R = 2 (c, e), N = 1 (a): c has a above it, m = min(2, 1) = 1: 0 / 2.
    assert got == pytest.approx({"bpref": 0.0, "judged@4": 0.5, "judged@2": 0.5})
    with pytest.raises(ValueError, match="unjudged='maybe' is not valid"):
        join_run_qrels(run, qrels, unjudged="maybe")
