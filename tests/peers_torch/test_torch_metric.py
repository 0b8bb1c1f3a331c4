"""skndcg.torch against skndcg.metrics: per-query values, means, the Metric.

Collected only with ``pytest --peers-torch`` (``make test-peers``).
"""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from skndcg.metrics import grouped_ranking_scores, ranking_report
from skndcg.torch import RankingMetric, ranking_scores
from skndcg.torch._metric import per_query as tensor_per_query
from skndcg.torch._options import resolve

pytestmark = pytest.mark.peers_torch

METRICS = [
    "ndcg@3", "ndcg", "dcg@2", "dcg", "map", "map@3", "mrr", "mrr@2",
    "p@3", "p", "r@2", "r", "hit@2", "hit@1", "hit",
]  # fmt: skip


def batch(seed, n_max=60, n_queries=8, unretrieved=0.15):
    """Integer scores (many ties), some labels zero (empty queries), NaNs."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, n_max))
    q = rng.integers(0, n_queries, n)
    y = rng.integers(0, 4, n).astype(float) * (rng.random(n) < 0.6)
    s = rng.integers(0, 4, n).astype(float)
    s[rng.random(n) < unretrieved] = np.nan
    return y, s, q


def options(seed):
    return dict(
        nan_score="unretrieved",
        queries=("retrieved", "judged")[seed % 2],
        empty=("skip", "zero", "one")[seed % 3],
        ties="stable" if seed % 5 == 0 else "average",
        gain=("linear", "exponential")[seed % 2],
        ap_denominator="min_k_relevant" if seed % 4 == 0 else "relevant",
        p_denominator="min_k_items" if seed % 3 == 0 else "k",
        rel_threshold=2 if seed % 7 == 0 else None,
    )


def per_query(y, s, q, metric, opts, dtype=torch.float64):
    full = resolve(**opts)
    rows = tensor_per_query(
        torch.tensor(s, dtype=dtype), torch.tensor(y), torch.tensor(q), [metric],
        None, full,
    )  # fmt: skip
    ((_, _, values, empty, _),) = rows
    return values.numpy(), empty.numpy()


@pytest.mark.parametrize("seed", range(60))
def test_per_query_values_equal_the_engine_bit_for_bit(seed):
    y, s, q = batch(seed)
    opts = options(seed)
    report = ranking_report(y, s, q, metrics=METRICS, **dict(opts, empty="zero"))
    for metric in METRICS:
        values, empty = per_query(y, s, q, metric, opts)
        values = np.where(empty, 0.0, values)
        want = report[metric].to_numpy()
        mask = report["skipped"].to_numpy() != "nothing retrieved"
        # Exactly equal: same operations in the same order as the kernels.
        np.testing.assert_array_equal(values[mask], want[mask], err_msg=metric)


@pytest.mark.parametrize("seed", range(60))
def test_means_equal_grouped_ranking_scores(seed):
    y, s, q = batch(seed)
    opts = options(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        want = grouped_ranking_scores(y, s, q, METRICS, **opts)
        got = ranking_scores(
            torch.tensor(s), torch.tensor(y), torch.tensor(q), METRICS, **opts
        )
    for metric in METRICS:
        assert got[metric].dtype == torch.float64
        # The mean's last rounding: torch and numpy sum in different orders.
        np.testing.assert_allclose(
            float(got[metric]), want[metric], rtol=4e-16 * 8, atol=0, err_msg=metric
        )


@pytest.mark.parametrize("seed", range(20))
def test_float32_within_1e6(seed):
    rng = np.random.default_rng(seed)
    n = 2000
    q = rng.integers(0, 100, n)
    y = rng.integers(0, 5, n).astype(np.float32)
    s = np.round(rng.normal(size=n), 2).astype(np.float32)  # ties
    got = ranking_scores(
        torch.tensor(s), torch.tensor(y), torch.tensor(q), METRICS,
        gain="exponential",
    )  # fmt: skip
    want = grouped_ranking_scores(
        y.astype(np.float64), s.astype(np.float64), q, METRICS, gain="exponential"
    )
    for metric in METRICS:
        assert got[metric].dtype == torch.float32
        assert float(got[metric]) == pytest.approx(want[metric], rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.bool])
def test_integer_and_bool_scores_are_read_as_the_engine_reads_them(dtype):
    y, q = [1, 0, 2, 0, 1, 1, 3], [1, 1, 1, 2, 2, 2, 2]
    s = np.array([9, 8, 7, 6, 6, 4, 0]) % (2 if dtype == torch.bool else 10)
    preds = torch.tensor(s).to(dtype)
    want = grouped_ranking_scores(y, preds.numpy(), q, METRICS)
    got = ranking_scores(preds, torch.tensor(y), torch.tensor(q), METRICS)
    metric = RankingMetric(METRICS)
    metric.update(preds, torch.tensor(y), torch.tensor(q))
    for scores in (got, metric.compute()):
        for name in METRICS:
            assert scores[name].dtype == torch.float64
            assert float(scores[name]) == pytest.approx(want[name], abs=1e-15)
    with pytest.raises(ValueError, match=r"preds must be real, got torch.complex64"):
        ranking_scores(
            preds.to(torch.complex64), torch.tensor(y), torch.tensor(q), "ndcg"
        )


def test_hand_case_and_discount_array():
    preds = torch.tensor([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], dtype=torch.float64)
    target = torch.tensor([1, 0, 2, 0, 1, 1])
    idx = torch.tensor([1, 1, 1, 2, 2, 2])
    got = ranking_scores(preds, target, idx, ["ndcg@2", "mrr", "p@2"])
    assert float(got["mrr"]) == 0.75 and float(got["p@2"]) == 0.5
    # Query 1: DCG@2 = 1, IDCG@2 = 2 + 1/log2(3); query 2: 1/log2(3) / (1 + 1/log2(3)).
    w = 1 / np.log2(3)
    assert float(got["ndcg@2"]) == pytest.approx((1 / (2 + w) + w / (1 + w)) / 2)
    disc = [1.0, 0.5, 0.25]
    got = ranking_scores(preds, target, idx, ["dcg@3"], discount=disc)
    assert float(got["dcg@3"]) == pytest.approx(((1 + 0.5) + (0.5 + 0.25)) / 2)


def test_judged_but_not_retrieved_counts_in_the_ideal():
    preds = torch.tensor([1.0, float("nan")], dtype=torch.float64)
    target = torch.tensor([0, 3])
    idx = torch.tensor([0, 0])
    got = ranking_scores(preds, target, idx, ["ndcg", "r", "map"],
                         nan_score="unretrieved")  # fmt: skip
    assert [float(v) for v in got.values()] == [0.0, 0.0, 0.0]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_invariant_to_row_order_and_query_relabelling(seed):
    y, s, q = batch(seed, unretrieved=0.0)
    perm = np.random.default_rng(seed).permutation(len(y))
    warnings.simplefilter("ignore", UndefinedMetricWarning)  # all queries empty
    a = ranking_scores(torch.tensor(s), torch.tensor(y), torch.tensor(q), METRICS)
    b = ranking_scores(
        torch.tensor(s[perm]), torch.tensor(y[perm]), torch.tensor(q[perm] * 13 - 7),
        METRICS,
    )  # fmt: skip
    for metric in METRICS:
        torch.testing.assert_close(a[metric], b[metric], rtol=1e-14, atol=0,
                                   equal_nan=True)  # fmt: skip


def test_metric_protocol_batches_split_queries_and_reset():
    y, s, q = batch(3, n_max=200, unretrieved=0.0)
    metric = RankingMetric(["ndcg@3", "mrr"])
    for part in np.array_split(np.arange(len(y)), 4):  # queries span batches
        metric.update(torch.tensor(s[part]), torch.tensor(y[part]),
                      torch.tensor(q[part]))  # fmt: skip
    got = metric.compute()
    want = grouped_ranking_scores(y, s, q, ["ndcg@3", "mrr"])
    for name in want:
        assert float(got[name]) == pytest.approx(want[name], rel=1e-14)
    metric.reset()
    metric.update(torch.tensor([1.0, 0.0]), torch.tensor([0, 1]), torch.tensor([0, 0]))
    assert float(metric.compute()["mrr"]) == 0.5
    single = RankingMetric("p@1", ties="stable")
    single.update(torch.tensor([[1.0, 1.0]]), torch.tensor([[0, 1]]),
                  torch.tensor([[5, 5]]))  # fmt: skip
    assert float(single.compute()) == 0.0


def test_metric_is_a_torchmetrics_metric_with_cat_states():
    import torchmetrics

    metric = RankingMetric("ndcg@10")
    assert isinstance(metric, torchmetrics.Metric)
    assert metric._reductions["preds"].__name__ == "dim_zero_cat"


def test_all_skipped_warns_and_is_nan():
    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        got = ranking_scores(torch.tensor([1.0, 0.5]), torch.tensor([0, 0]),
                             torch.tensor([0, 0]), ["ndcg@2"])  # fmt: skip
    assert torch.isnan(got["ndcg@2"])


def test_errors():
    p, t, i = torch.tensor([1.0, 0.5]), torch.tensor([1, 0]), torch.tensor([0, 0])
    with pytest.raises(ValueError, match=r"unknown metric 'nope@5'"):
        RankingMetric("nope@5")
    with pytest.raises(ValueError, match=r"convention='nope' is not a known preset"):
        ranking_scores(p, t, i, ["ndcg"], convention="nope")
    with pytest.raises(ValueError, match=r"ties='random' is not valid"):
        ranking_scores(p, t, i, ["ndcg"], ties="random")
    with pytest.raises(ValueError, match=r"gain='exponential' conflicts"):
        ranking_scores(p, t, i, ["ndcg"], convention="sklearn", gain="exponential")
    with pytest.raises(ValueError, match=r"NaN.*nan_score='unretrieved'"):
        ranking_scores(torch.tensor([1.0, float("nan")]), t, i, ["ndcg"])
    with pytest.raises(ValueError, match=r"NaN.*nan_label='unjudged'"):
        ranking_scores(p, torch.tensor([1.0, float("nan")]), i, ["ndcg"])
    with pytest.raises(ValueError, match=r"same shape"):
        ranking_scores(p, t[:1], i, ["ndcg"])
    with pytest.raises(ValueError, match=r"same shape"):
        ranking_scores(p, t, i, ["ndcg"], doc_id=torch.tensor([1]))
    with pytest.raises(ValueError, match=r"negative labels"):
        ranking_scores(p, torch.tensor([-1, 0]), i, ["ndcg"])
    with pytest.raises(ValueError, match=r"integer labels with convention='trec_eval'"):
        ranking_scores(p, torch.tensor([0.5, 1.0]), i, ["ndcg"], convention="trec_eval")
    with pytest.raises(ValueError, match=r"integers in \[0, 30\]"):
        ranking_scores(p, torch.tensor([31, 0]), i, ["ndcg"], convention="lightgbm")
    with pytest.raises(ValueError, match=r"indexes must hold integer"):
        ranking_scores(p, t, i.float(), ["ndcg"])
    with pytest.raises(ValueError, match=r"discount has 2 weights but ndcg@3"):
        three = torch.tensor([1.0, 0.5, 0.2]), torch.tensor([1, 0, 1])
        ranking_scores(*three, torch.tensor([0, 0, 0]), ["ndcg@3"], discount=[1, 0.5])
    with pytest.raises(ValueError, match=r"empty='error'"):
        ranking_scores(p, torch.tensor([0, 0]), i, ["ndcg"], empty="error")
    with pytest.raises(ValueError, match=r"ties='docid'.*pass doc_id"):
        ranking_scores(p, t, i, ["ndcg"], ties="docid")
    with pytest.raises(ValueError, match=r"rbp: parameter p=1.5 is out of range"):
        ranking_scores(p, t, i, ["rbp(p=1.5)"])
    with pytest.raises(ValueError, match=r"rprec.*takes no cut-off"):
        ranking_scores(p, t, i, ["rprec@5"])
    with pytest.raises(TypeError, match=r"unexpected option sample_weight"):
        ranking_scores(p, t, i, ["ndcg"], sample_weight=[1.0])
    with pytest.raises(ValueError, match=r"duplicates"):
        ranking_scores(p, t, i, ["map@5", "ap@5"])


def test_not_a_tensor_and_compute_before_update_are_named():
    """A list of scores failed with "'list' object has no attribute 'flatten'",
    compute() with no batch with an IndexError."""
    t, i = torch.tensor([1, 0]), torch.tensor([0, 0])
    with pytest.raises(TypeError) as info:
        ranking_scores([1.0, 0.5], t, i, ["ndcg"])
    assert str(info.value) == "preds must be a torch.Tensor, got list."
    metric = RankingMetric("ndcg")
    with pytest.raises(ValueError) as info:
        metric.compute()
    assert str(info.value) == (
        "RankingMetric has no rows to score: call update() with a batch before "
        "compute() (since the last reset())."
    )


def test_cuda_equals_cpu():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device on this machine: the CUDA run is not tested here")
    y, s, q = batch(1, n_max=500)
    cpu = ranking_scores(torch.tensor(s), torch.tensor(y), torch.tensor(q), METRICS,
                         nan_score="unretrieved")  # fmt: skip
    dev = ranking_scores(
        torch.tensor(s).cuda(), torch.tensor(y).cuda(), torch.tensor(q).cuda(),
        METRICS, nan_score="unretrieved",
    )  # fmt: skip
    for metric in METRICS:
        assert dev[metric].device.type == "cuda"
        torch.testing.assert_close(dev[metric].cpu(), cpu[metric], rtol=1e-12, atol=0,
                                   equal_nan=True)  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_long_lists_and_fractional_labels_equal_the_engine(seed):
    # Lists longer than 64 and fractional or many-valued labels take the sorted
    # ideal instead of the label histogram.
    rng = np.random.default_rng(seed)
    n = 3000
    q = rng.integers(0, 20, n)
    if seed % 2:
        y = rng.integers(0, 100, n).astype(float)
    else:
        y = rng.random(n) * 3 * (rng.random(n) < 0.5)
    s = np.round(rng.normal(size=n), 1)
    metrics = ["ndcg", "ndcg@100", "dcg@70"]
    report = ranking_report(y, s, q, metrics=metrics, empty="zero")
    for metric in metrics:
        values, empty = per_query(y, s, q, metric, {})
        got, want = np.where(empty, 0.0, values), report[metric].to_numpy()
        if seed % 2:  # integer labels: bit for bit
            np.testing.assert_array_equal(got, want, err_msg=metric)
        else:  # fractional gains of tied rows are added in another order
            np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=metric)


@pytest.mark.parametrize("seed", range(30))
def test_cut_off_measures_only(seed):
    # Only cut-offs: the ranking keeps just the blocks that start above the
    # deepest k (the shortcut the benchmark takes).
    metrics = ["ndcg@3", "dcg@2", "map@3", "mrr@2", "p@3", "r@2", "hit@2", "hit@1"]
    y, s, q = batch(seed, n_max=120)
    opts = options(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        want = grouped_ranking_scores(y, s, q, metrics, **opts)
        got = ranking_scores(
            torch.tensor(s), torch.tensor(y), torch.tensor(q), metrics, **opts
        )
    for metric in metrics:
        np.testing.assert_allclose(
            float(got[metric]), want[metric], rtol=4e-16 * 8, atol=0, err_msg=metric
        )
