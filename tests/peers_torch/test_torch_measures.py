"""skndcg.torch: hand-computed values of the registry's newer measures, user
measures, callable gains, document-id ties, long lists and the Metric's doc_id.

Collected only with ``pytest --peers-torch`` (``make test-peers``).
"""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from skndcg.metrics import define_measure, grouped_ranking_scores, undefine_measure
from skndcg.metrics._core._engine import evaluate
from skndcg.torch import RankingMetric, ranking_scores
from skndcg.torch._metric import per_query
from skndcg.torch._options import resolve

pytestmark = pytest.mark.peers_torch

NAN = float("nan")


def t(*values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype)


def one_query(preds, target, metrics, **options):
    n = len(preds)
    got = ranking_scores(t(*preds), t(*target), torch.zeros(n, dtype=torch.int64),
                         metrics, **options)  # fmt: skip
    return {name: float(v) for name, v in got.items()}


def test_hand_computed_values():
    # Ranked labels 2, 0, 1 (relevant: label > 0), one unjudged row last.
    got = one_query(
        [0.9, 0.8, 0.7, 0.6], [2, 0, 1, NAN],
        ["rbp(p=0.5)", "rbp_resid(p=0.5)", "rprec", "judged@4", "judged@2",
         "bpref", "err", "nerr", "err@1"],
        nan_label="unjudged",
    )  # fmt: skip
    assert got["rbp(p=0.5)"] == 0.5 * (2 + 1 * 0.25)
    # The unjudged 4th rank weighs 0.5 * 0.5**3; below the list, 0.5**4.
    assert got["rbp_resid(p=0.5)"] == 0.5 * 0.125 + 0.0625
    assert got["rprec"] == 0.5  # top R = 2 holds one relevant row
    assert got["judged@4"] == 0.75 and got["judged@2"] == 1.0
    # bpref: R = 2, N = 1, m = 1; the first relevant row has no judged
    # non-relevant row above it (1), the second has one (1 - 1/1 = 0).
    assert got["bpref"] == 0.5
    # ERR with g_max = 2: stop chances 3/4, 0, 1/4.
    err = 0.75 + 0.25 * 1.0 * 0.25 / 3
    assert got["err"] == pytest.approx(err, rel=1e-15)
    assert got["err@1"] == 0.75
    ideal = 0.75 + 0.25 * 0.25 / 2
    assert got["nerr"] == pytest.approx(err / ideal, rel=1e-15)


def test_unjudged_rows_are_not_relevant_to_other_measures():
    a = one_query([0.9, 0.8], [NAN, 1], ["ndcg", "mrr", "p@2"], nan_label="unjudged")
    b = one_query([0.9, 0.8], [0, 1], ["ndcg", "mrr", "p@2"])
    assert a == b


def test_user_measure_is_refused_by_name_or_run_on_the_cpu():
    define_measure("top_label_t", lambda labels, k: float(labels[0]))
    try:
        p, y, q = t(0.1, 0.9, 0.5, 0.3), t(3, 2, 0, 1), torch.tensor([1, 1, 1, 2])
        with pytest.raises(ValueError, match=r"'top_label_t'.*no tensor.*cpu_fallback"):
            ranking_scores(p, y, q, ["ndcg", "top_label_t@2"])
        with pytest.raises(ValueError, match=r"'top_label_t'.*plain Python"):
            RankingMetric("top_label_t")
        got = ranking_scores(p, y, q, ["ndcg", "top_label_t@2"], cpu_fallback=True)
        assert float(got["top_label_t@2"]) == (2 + 1) / 2
        assert got["top_label_t@2"].dtype == torch.float64
        want = grouped_ranking_scores(y.numpy(), p.numpy(), q.numpy(), ["ndcg"])
        assert float(got["ndcg"]) == want["ndcg"]
        metric = RankingMetric(["top_label_t", "mrr"], cpu_fallback=True)
        metric.update(p, y, q)
        assert float(metric.compute()["top_label_t"]) == 1.5
    finally:
        undefine_measure("top_label_t")


def _engine_vs_tensor(y, s, q, names, doc=None, rtol=0.0, **opts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ev = evaluate(y, s, q, names, doc_id=doc, **opts)
    order = np.argsort(np.asarray(ev.grouping.keys))
    d = None if doc is None else torch.tensor(doc)
    rows = per_query(torch.tensor(s), torch.tensor(y), torch.tensor(q), names, d,
                     resolve(**opts))  # fmt: skip
    for j, (name, _, values, _, _) in enumerate(rows):
        got, want = values.numpy(), ev.raw[order, j]
        if rtol:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=0, err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)


ALL = ["ndcg@5", "ndcg", "dcg@3", "idcg", "map@5", "map", "mrr", "p@5", "r@5",
       "hit@3", "err@5", "nerr", "rbp", "rbp_resid@5", "rprec", "bpref",
       "judged@5"]  # fmt: skip


@pytest.mark.parametrize("convention", ["ranx", "trec_eval", "catboost", None])
def test_long_queries_with_ties(convention):
    # 40-row queries with few score values: ranx's order is numba's quicksort
    # (not stable above 15 rows); trec_eval breaks ties by document id.
    rng = np.random.default_rng(7)
    n = 400
    q = np.repeat(np.arange(10), 40)
    y = rng.integers(0, 4, n).astype(float)
    s = rng.integers(0, 5, n).astype(float)
    doc = rng.permutation(n)
    names = ALL
    if convention is None:
        # ties="average": whole-list nERR and bpref over 40 rows of five score
        # values have more tie orders than the engine averages; cut them at 5.
        names = [{"nerr": "nerr@5", "bpref": "bpref@5"}.get(m, m) for m in ALL]
    _engine_vs_tensor(y, s, q, names, doc, convention=convention)


def test_callable_gain_and_discount():
    rng = np.random.default_rng(3)
    n = 300
    q, y = rng.integers(0, 20, n), rng.integers(0, 5, n).astype(float)
    s = rng.integers(0, 6, n).astype(float)

    def gain(labels):
        return labels**2 + 0.5 * labels

    def discount(ranks):
        return 1.0 / ranks

    for ties in ("average", "stable"):
        _engine_vs_tensor(y, s, q, ["ndcg@5", "dcg", "idcg@3", "map"], gain=gain,
                          discount=discount, ties=ties)  # fmt: skip


def test_metric_with_doc_id_follows_trec_eval():
    y = np.array([1, 0, 1, 0, 2, 0], dtype=float)
    s = np.array([1.0, 1.0, 1.0, 0.5, 0.5, 0.5])
    q = np.array([0, 0, 0, 1, 1, 1])
    doc = np.array([5, 9, 1, 3, 2, 8])
    want = grouped_ranking_scores(y, s, q, ["map", "ndcg"], doc_id=doc,
                                  convention="trec_eval")  # fmt: skip
    metric = RankingMetric(["map", "ndcg"], convention="trec_eval")
    for part in (slice(0, 4), slice(4, 6)):
        rows = [torch.tensor(a[part]) for a in (s, y, q, doc)]
        metric.update(*rows[:3], doc_id=rows[3])
    got = metric.compute()
    for name in want:
        assert float(got[name]) == pytest.approx(want[name], rel=1e-15)
    # trec_eval ranks doc 9 first in query 0: map there is (1/2 + 2/3) / 2.
    assert want["map"] != grouped_ranking_scores(y, s, q, ["map"])["map"]
    with pytest.raises(ValueError, match=r"doc_id must be given with every batch"):
        metric.update(torch.tensor(s), torch.tensor(y), torch.tensor(q))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_new_measures_invariant_to_row_order(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    q = rng.integers(0, 6, n)
    y = rng.integers(0, 4, n).astype(float)
    s = rng.integers(0, 3, n).astype(float)  # ties: average is order-free
    perm = rng.permutation(n)
    names = ["err@3", "nerr@5", "rbp(p=0.7)", "rprec", "bpref@5", "judged@3", "idcg"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        a = ranking_scores(torch.tensor(s), torch.tensor(y), torch.tensor(q), names)
        b = ranking_scores(torch.tensor(s[perm]), torch.tensor(y[perm]),
                           torch.tensor(q[perm] + 5), names)  # fmt: skip
    for name in names:
        torch.testing.assert_close(a[name], b[name], rtol=1e-14, atol=0,
                                   equal_nan=True)  # fmt: skip


def test_num_threads_is_scoped_and_checked():
    before = torch.get_num_threads()
    p, y, q = t(0.3, 0.2, 0.9), t(1, 0, 2), torch.tensor([0, 0, 1])
    a = ranking_scores(p, y, q, ["ndcg", "err"], num_threads=1)
    assert torch.get_num_threads() == before
    b = ranking_scores(p, y, q, ["ndcg", "err"])
    assert a == b
    with pytest.raises(ValueError, match=r"num_threads must be a positive integer"):
        ranking_scores(p, y, q, ["ndcg"], num_threads=0)
    metric = RankingMetric("ndcg", num_threads=1)
    metric.update(p, y, q)
    assert float(metric.compute()) == float(b["ndcg"])
    assert torch.get_num_threads() == before


def test_flags_and_metric_names_are_checked_as_in_memory():
    p, y, q = t(0.3, 0.2, 0.9), t(1, 0, 2), torch.tensor([0, 0, 1])
    # "no" was refused with a ValueError; every yes/no argument raises TypeError.
    with pytest.raises(TypeError, match=r"^cpu_fallback must be True or False, got"):
        ranking_scores(p, y, q, ["ndcg"], cpu_fallback="no")
    with pytest.raises(TypeError, match=r"^cpu_fallback must be True or False, got"):
        RankingMetric("ndcg", cpu_fallback=1)
    assert ranking_scores(p, y, q, "mrr", cpu_fallback=np.False_)["mrr"] == 1.0
    # metrics=None failed inside list(); RankingMetric([]) waited for compute().
    with pytest.raises(TypeError, match=r"^metrics must be a metric name .*None"):
        ranking_scores(p, y, q, None)
    for empty in ([], (), ""):
        with pytest.raises(ValueError, match=r"^metrics must name at least one"):
            ranking_scores(p, y, q, empty)
        with pytest.raises(ValueError, match=r"^metrics must name at least one"):
            RankingMetric(empty)


def test_auto_threads_use_one_thread_for_small_batches_only():
    from skndcg.torch._metric import AUTO_ONE_THREAD_ROWS, intra_op_threads

    cpu = torch.device("cpu")
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        with intra_op_threads("auto", cpu, AUTO_ONE_THREAD_ROWS - 1):
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with intra_op_threads("auto", cpu, AUTO_ONE_THREAD_ROWS):
            assert torch.get_num_threads() == 2
        with intra_op_threads(None, cpu, 10):
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    p, y, q = t(0.3, 0.2, 0.9), t(1, 0, 2), torch.tensor([0, 0, 1])
    assert ranking_scores(p, y, q, ["ndcg"], num_threads=None) == ranking_scores(
        p, y, q, ["ndcg"], num_threads="auto"
    )
    with pytest.raises(ValueError, match=r"'auto' or None, got 'fast'"):
        ranking_scores(p, y, q, ["ndcg"], num_threads="fast")


@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval", "catboost",
                                        "torchmetrics", "ranx"])  # fmt: skip
def test_negative_and_fractional_labels_follow_the_label_rules(convention):
    # trec_eval reads a negative judgement as 0 (as unjudged for bpref), ranx
    # truncates labels and drops those below 1; catboost and torchmetrics take
    # them as they are.
    rng = np.random.default_rng(11)
    n = 200
    q = rng.integers(0, 12, n)
    y = rng.integers(-1, 4, n).astype(float)
    if convention in ("ranx", "catboost", "torchmetrics"):
        y = y + np.round(rng.random(n), 1)
    s = rng.integers(0, 5, n).astype(float)
    doc = rng.permutation(n)
    names = ["ndcg@5", "dcg", "map", "p@3", "err@3", "rbp", "rprec", "bpref"]
    if convention in ("catboost", "torchmetrics"):
        names = ["ndcg@5", "dcg", "map", "p@3", "rbp", "rprec", "bpref"]
    # Fractional gains of tied rows (average ties) are added in another order
    # than the engine's: within 1e-15 (the user guide says so).
    rtol = 1e-15 if convention == "torchmetrics" else 0.0
    _engine_vs_tensor(y, s, q, names, doc, rtol=rtol, convention=convention)


@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval"])
@pytest.mark.parametrize("seed", range(4))
def test_pooled_and_unjudged_rows_under_trec_eval(convention, seed):
    # Negative judgments ("in the pool, not judged") and NaN labels (nobody
    # judged them) in one batch: infAP tells them apart, bpref, unj and
    # nonrel_judged read both as unjudged, the set measures as not relevant.
    rng = np.random.default_rng(seed)
    n = 300
    q = rng.integers(0, 15, n)
    y = rng.integers(-2, 4, n).astype(float)
    y[rng.random(n) < 0.2] = np.nan
    s = rng.integers(0, 6, n).astype(float)
    doc = rng.permutation(n)
    names = ["infap", "bpref", "gm_bpref", "unj@5", "nonrel_judged", "set_f",
             "iprec(recall=0.3)", "bin_g", "gm_map", "utility"]  # fmt: skip
    _engine_vs_tensor(y, s, q, names, doc, convention=convention,
                      nan_label="unjudged")  # fmt: skip
