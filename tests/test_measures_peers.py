"""R-precision and bpref against trec_eval (pytrec_eval), RBP against ranx and
judged@k against ir_measures' Judged@k."""

import numpy as np
import pytest

from skndcg.metrics import grouped_ranking_scores

pytestmark = pytest.mark.peers


def collection(seed, n_queries=25):
    """Queries with distinct scores, unjudged rows (NaN labels) and judged rows
    the run did not retrieve (NaN scores)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 15, n_queries)
    q = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, 4, q.size).astype(float)
    first = np.r_[0, np.cumsum(sizes)[:-1]]
    unjudged = rng.random(q.size) < 0.25
    unjudged[first] = False  # trec_eval only sees queries with a judgement
    y[unjudged] = np.nan
    s = rng.permutation(q.size).astype(float)  # distinct: no tie rule involved
    unretrieved = (rng.random(q.size) < 0.15) & ~np.isnan(y)
    s[unretrieved] = np.nan
    return y, s, q


def as_trec(y, s, q):
    qrels, run = {}, {}
    for i, (lab, score, key) in enumerate(zip(y, s, q, strict=True)):
        doc = f"d{i}"
        if not np.isnan(lab):
            qrels.setdefault(f"q{key}", {})[doc] = int(lab)
        if not np.isnan(score):
            run.setdefault(f"q{key}", {})[doc] = float(score)
    return qrels, run


def ours(y, s, q, name, **options):
    return grouped_ranking_scores(
        y, s, q, [name], nan_label="unjudged", nan_score="unretrieved", **options
    )[name]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("measure, name", [("Rprec", "rprec"), ("bpref", "bpref")])
def test_trec_eval(seed, measure, name):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, s, q = collection(seed)
    qrels, run = as_trec(y, s, q)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    want = np.mean([v[measure] for v in per_query.values()])
    got = ours(y, s, q, name, convention="trec_eval", empty="zero")
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_ranx_rbp(seed, p):
    ranx = pytest.importorskip("ranx")
    y, s, q = collection(seed)
    y = np.nan_to_num(y)  # ranx has no unjudged rows
    keep = ~np.isnan(s)
    y, s, q = y[keep], s[keep], q[keep]
    qrels, run = as_trec(y, s, q)
    want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), f"rbp.{str(p)[2:]}")
    got = grouped_ranking_scores(y, s, q, [f"rbp(p={p})"], convention="ranx")
    assert got[f"rbp(p={p})"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 5, 10, 30, None])
def test_ir_measures_judged(seed, k):
    ir_measures = pytest.importorskip("ir_measures")
    y, s, q = collection(seed)
    qrels, run = as_trec(y, s, q)
    measure = ir_measures.Judged if k is None else ir_measures.Judged @ k
    values = {m.query_id: m.value for m in measure.iter_calc(qrels, run)}
    # ir_measures scores the queries that have judgements and a run.
    want = np.mean(list(values.values()))
    name = "judged" if k is None else f"judged@{k}"
    assert len(values) == len(set(q))
    assert ours(y, s, q, name) == pytest.approx(want, abs=1e-12)
