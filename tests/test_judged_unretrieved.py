"""Judged rows the system did not return (``nan_score="unretrieved"``), query
coverage (``queries=``) and ties broken by document id."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skndcg.metrics import (
    grouped_map_score,
    grouped_ndcg_score,
    grouped_ranking_scores,
    ranking_report,
)

NAN = float("nan")
NAMES = ["ndcg@3", "ndcg", "map", "map@2", "r@2", "p@2", "mrr", "hit@1"]


def test_hand_computed_query_with_an_unreturned_relevant_document():
    # Query a returns d1 (label 2), d2 (0), d3 (1); d4 (label 3) was judged but
    # never returned. Query b was judged (d5, label 1) and returned nothing.
    y = [2, 0, 1, 3, 1]
    s = [0.9, 0.8, 0.7, NAN, NAN]
    q = ["a", "a", "a", "a", "b"]
    r = ranking_report(y, s, q, metrics=NAMES, nan_score="unretrieved")
    a = r.iloc[0]
    assert (a["n_items"], a["n_relevant"], a["n_retrieved"]) == (4, 3, 3)
    assert a["n_relevant_retrieved"] == 2
    ideal3 = 3 + 2 / math.log2(3) + 1 / 2  # d4, d1, d3 in the ideal order
    assert a["dcg@3"] == pytest.approx(2 + 1 / 2, abs=1e-15)
    assert a["idcg@3"] == pytest.approx(ideal3, abs=1e-15)
    assert a["ndcg@3"] == pytest.approx(2.5 / ideal3, abs=1e-15)
    assert a["ndcg"] == pytest.approx(2.5 / ideal3, abs=1e-15)  # 4th judged: gain 0
    assert a["map"] == pytest.approx((1 + 2 / 3) / 3, abs=1e-15)  # 3 relevant
    assert a["map@2"] == pytest.approx(1 / 3, abs=1e-15)
    assert a["r@2"] == pytest.approx(1 / 3, abs=1e-15)
    assert a["p@2"] == 0.5
    assert a["mrr"] == 1.0
    b = r.iloc[1]
    assert (b["n_retrieved"], b["n_relevant_retrieved"], b["skipped"]) == (
        0,
        0,
        "nothing retrieved",
    )
    assert np.isnan(b[NAMES].to_numpy(float)).all()
    # Every judged query (trec_eval -c): b counts, as 0 on every metric.
    judged = grouped_ranking_scores(
        y, s, q, NAMES, nan_score="unretrieved", queries="judged"
    )
    retrieved = grouped_ranking_scores(y, s, q, NAMES, nan_score="unretrieved")
    for name in NAMES:
        assert judged[name] == pytest.approx(a[name] / 2, abs=1e-15)
        assert retrieved[name] == pytest.approx(a[name], abs=1e-15)


def test_nan_scores_are_refused_unless_asked_for():
    with pytest.raises(ValueError, match="y_score contains 1 NaN"):
        grouped_ndcg_score([1, 0], [NAN, 0.5], [1, 1])
    with pytest.raises(ValueError, match="nan_score='maybe' is not valid"):
        grouped_ndcg_score([1, 0], [NAN, 0.5], [1, 1], nan_score="maybe")
    with pytest.raises(ValueError, match="queries='all' is not valid"):
        grouped_ndcg_score([1, 0], [1.0, 0.5], [1, 1], queries="all")
    # Infinity is never a missing score.
    with pytest.raises(ValueError, match="y_score contains 1 NaN or infinite"):
        grouped_ndcg_score([1, 0], [np.inf, NAN], [1, 1], nan_score="unretrieved")


def test_without_missing_rows_the_options_change_nothing():
    rng = np.random.default_rng(3)
    q = rng.integers(0, 30, 400)
    y = rng.integers(0, 4, q.size)
    s = np.round(rng.random(q.size), 1)
    plain = grouped_ranking_scores(y, s, q, NAMES)
    marked = grouped_ranking_scores(
        y, s, q, NAMES, nan_score="unretrieved", queries="judged"
    )
    assert plain == marked


# ------------------------------------------------------------- brute force
def _orders(scores, ties):
    idx = list(range(len(scores)))
    if ties == "stable":
        return [sorted(idx, key=lambda i: (-scores[i], i))]
    levels = sorted(set(scores), reverse=True)
    blocks = [[i for i in idx if scores[i] == v] for v in levels]
    return [
        [i for b in combo for i in b]
        for combo in itertools.product(*[itertools.permutations(b) for b in blocks])
    ]


def _brute(labels, scores, name, ties):
    """One query: retrieved rows are those with a score; every row is judged."""
    kind, _, k = name.partition("@")
    k = int(k) if k else None
    ret = [i for i, v in enumerate(scores) if not math.isnan(v)]
    n_rel = sum(x > 0 for x in labels)
    kk_ideal = len(labels) if k is None else min(k, len(labels))
    disc = [1 / math.log2(r + 2) for r in range(len(labels))]
    ideal = sum(
        g * disc[r] for r, g in enumerate(sorted(labels, reverse=True)[:kk_ideal])
    )
    vals = []
    for order in _orders([scores[i] for i in ret], ties):
        ranked = [ret[i] for i in order]
        top = ranked if k is None else ranked[:k]
        if kind == "ndcg":
            dcg = sum(labels[i] * disc[r] for r, i in enumerate(top))
            vals.append(dcg / ideal if ideal > 0 else 0.0)
            continue
        hits = [labels[i] > 0 for i in top]
        if kind == "map":
            acc = sum(sum(hits[: r + 1]) / (r + 1) for r, h in enumerate(hits) if h)
            vals.append(acc / n_rel if n_rel else 0.0)
        elif kind == "r":
            vals.append(sum(hits) / n_rel if n_rel else 0.0)
        elif kind == "p":
            vals.append(sum(hits) / (k if k else max(len(ranked), 1)))
        elif kind == "mrr":
            vals.append(next((1 / (r + 1) for r, h in enumerate(hits) if h), 0.0))
        elif kind == "hit":
            vals.append(float(any(hits)))
    value = sum(vals) / len(vals) if ret else 0.0
    empty = ideal <= 0 if kind == "ndcg" else n_rel == 0
    return value, empty


@st.composite
def _cases(draw):
    n_q = draw(st.integers(1, 4))
    rows = []
    for g in range(n_q):
        size = draw(st.integers(1, 6))
        for _ in range(size):
            label = draw(st.integers(0, 3))
            missing = draw(st.booleans()) and draw(st.booleans())
            score = NAN if missing else draw(st.sampled_from([0.1, 0.2, 0.5, 0.9]))
            rows.append((g, label, score))
    order = draw(st.permutations(range(len(rows))))
    rows = [rows[i] for i in order]
    q, y, s = (np.array(c) for c in zip(*rows, strict=True))
    return y, s, q


@pytest.mark.parametrize("ties", ["stable", "average"])
@given(case=_cases())
def test_every_metric_matches_a_brute_force_reference(ties, case):
    y, s, q = case
    report = ranking_report(
        y, s, q, metrics=NAMES, nan_score="unretrieved", ties=ties, empty="zero"
    )
    for _, row in report.iterrows():
        rows = np.flatnonzero(q == row["qid"])
        for name in NAMES:
            want, _ = _brute(list(y[rows]), list(s[rows]), name, ties)
            if row["n_retrieved"] == 0:
                assert np.isnan(row[name])
            else:
                assert row[name] == pytest.approx(want, abs=1e-12), name


@given(case=_cases(), seed=st.integers(0, 2**16))
def test_row_order_and_query_labels_do_not_matter(case, seed):
    y, s, q = case
    perm = np.random.default_rng(seed).permutation(y.size)
    kw = {"nan_score": "unretrieved", "queries": "judged", "empty": "zero"}
    a = grouped_ranking_scores(y, s, q, NAMES, **kw)
    b = grouped_ranking_scores(y[perm], s[perm], q[perm] * 7 + 1, NAMES, **kw)
    assert a == pytest.approx(b, abs=1e-12)


# ------------------------------------------------------------ document ids
def test_ties_by_document_id_descending_in_any_row_order():
    # Three tied rows; trec_eval ranks "d3" > "d2" > "d10" (strcmp, descending).
    y = np.array([1, 0, 0])
    s = np.array([0.5, 0.5, 0.5])
    doc = np.array(["d10", "d2", "d3"])
    q = np.array([1, 1, 1])
    for perm in itertools.permutations(range(3)):
        p = list(perm)
        got = grouped_ndcg_score(
            y[p], s[p], q[p], k=None, doc_id=doc[p], convention="trec_eval"
        )
        assert got == pytest.approx(1 / math.log2(4), abs=1e-15)
        rr = grouped_ranking_scores(
            y[p], s[p], q[p], ["mrr"], doc_id=doc[p], ties="docid"
        )["mrr"]
        assert rr == pytest.approx(1 / 3, abs=1e-15)
    with pytest.raises(ValueError, match="pass doc_id"):
        grouped_ndcg_score(y, s, q, ties="docid")


def test_score_precision_presets_differ_only_where_float32_ties():
    # 1 and 1 + 1e-9 are distinct doubles (trec_eval 10.0) but one float32
    # (pytrec_eval): there the tie goes to the larger document id, "b".
    y, s, q, doc = [1, 0], [1.0 + 1e-9, 1.0], [1, 1], ["a", "b"]
    assert grouped_map_score(y, s, q, k=None, doc_id=doc, convention="trec_eval") == 1
    assert grouped_map_score(
        y, s, q, k=None, doc_id=doc, convention="pytrec_eval"
    ) == pytest.approx(0.5)


@pytest.mark.peers
@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_pytrec_eval_on_runs_missing_relevant_documents(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for qi in range(rng.integers(2, 7)):
        docs = [f"d{j}" for j in rng.permutation(40)[: rng.integers(3, 25)]]
        judged = docs[: rng.integers(1, len(docs) + 1)]
        qrels[f"q{qi}"] = {d: int(rng.integers(0, 4)) for d in judged}
        if rng.random() < 0.8:  # some judged queries return nothing
            returned = rng.permutation(docs)[: rng.integers(1, len(docs) + 1)]
            run[f"q{qi}"] = {d: float(np.round(rng.random(), 1)) for d in returned}
    if not run:
        run["q0"] = {"d999": 0.5}
    measures = {
        "ndcg_cut_3": "ndcg@3",
        "ndcg_cut_10": "ndcg@10",
        "ndcg": "ndcg",
        "map": "map",
        "recall_5": "r@5",
        "P_5": "p@5",
        "recip_rank": "mrr",
    }
    request = {"ndcg_cut.3,10", "ndcg", "map", "recall.5", "P.5", "recip_rank"}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, request).evaluate(run)
    # Flat arrays: judged rows (returned or not) and returned unjudged rows.
    rows = []
    for qn, judged in qrels.items():
        returned = run.get(qn, {})
        for d in set(judged) | set(returned):
            rows.append((qn, d, judged.get(d, 0), returned.get(d, NAN)))
    q, doc, y, s = (np.array(c) for c in zip(*rows, strict=True))
    y, s = y.astype(int), s.astype(float)
    got = grouped_ranking_scores(
        y, s, q, list(measures.values()), doc_id=doc, nan_score="unretrieved",
        convention="pytrec_eval",
    )  # fmt: skip
    got_all = grouped_ranking_scores(
        y, s, q, list(measures.values()), doc_id=doc, nan_score="unretrieved",
        convention="pytrec_eval", queries="judged",
    )  # fmt: skip
    for measure, name in measures.items():
        values = [v[measure] for v in per_query.values()]
        assert got[name] == pytest.approx(np.mean(values), abs=1e-12), name
        # trec_eval -c: queries judged but absent from the run count as 0.
        assert got_all[name] == pytest.approx(np.sum(values) / len(qrels), abs=1e-12), (
            name
        )
