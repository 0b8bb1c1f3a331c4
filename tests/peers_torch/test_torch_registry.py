"""Every registered measure, under every convention, on tensors and in the engine.

The measure list is read from the registry when the tests are collected: a
measure added to :mod:`skndcg.metrics` without a tensor implementation fails
here. Collected only with ``pytest --peers-torch`` (``make test-peers``).
"""

import warnings

import numpy as np
import pytest
import torch
from sklearn.exceptions import UndefinedMetricWarning

from skndcg.metrics import registry
from skndcg.metrics._conventions import PRESETS
from skndcg.metrics._core._engine import evaluate
from skndcg.torch import ranking_scores
from skndcg.torch._metric import per_query
from skndcg.torch._names import tensor
from skndcg.torch._options import resolve

pytestmark = pytest.mark.peers_torch


# A value other than the default for each parameter ("iprec(recall=0.0)" is
# "iprec" under another name).
OTHER_VALUE = {"p": 0.55, "g_max": 4, "recall": 0.3, "mult": 0.5, "beta": 0.5,
               "rel_ret": 2.0, "nonrel_ret": -2.0, "rel_missed": 1.0,
               "nonrel_missed": 0.0, "n_docs": 1000.0}  # fmt: skip


def forms(measure):
    """Names that exercise a measure: bare, with a cut-off, with parameters."""
    out = [measure.name]
    if measure.cutoff:
        out += [f"{measure.name}@1", f"{measure.name}@3"]
    for p in measure.params:
        value = OTHER_VALUE.get(p.name, p.default)
        if value is not None and value != p.default:
            out.append(f"{measure.name}({p.name}={value})")
            if measure.cutoff:
                out.append(f"{measure.name}({p.name}={value})@2")
    return out


REGISTERED = list(registry.names())
# Fewer than 16 rows per query: ranx's quicksort order is then numba's
# insertion sort; longer lists are tested below.
N_MAX = 90


def batch(seed, *, n_max=N_MAX, nan_labels=True, labels_low=0):
    """Integer scores (many ties), zero labels (empty queries), unretrieved rows
    (NaN scores), unjudged rows (NaN labels) and unique document ids."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, n_max))
    q = rng.integers(0, 9, n) * 7 - 3
    y = rng.integers(labels_low, 4, n).astype(float) * (rng.random(n) < 0.6)
    s = rng.integers(0, 4, n).astype(float) + (seed % 3 == 0) * 0.1 * rng.random(n)
    s[rng.random(n) < 0.15] = np.nan
    if nan_labels and seed % 2:
        y[rng.random(n) < 0.15] = np.nan
    doc = rng.permutation(n * 3)[:n]
    return y, s, q, doc


def default_options(seed):
    return dict(
        queries=("retrieved", "judged")[seed % 2],
        empty=("skip", "zero", "one")[seed % 3],
        ties=("average", "stable", "reverse", "pessimistic", "average", "docid")[
            seed % 6
        ],
        gain=("linear", "exponential")[seed % 2],
        ap_denominator=("relevant", "min_k_relevant", "hits")[seed % 3],
        p_denominator="min_k_items" if seed % 4 == 0 else "k",
        rel_threshold=2 if seed % 7 == 0 else None,
    )


CASES = [("skndcg", seed) for seed in range(12)] + [
    (name, seed) for name in sorted(PRESETS) if name != "skndcg" for seed in range(4)
]


def engine_and_tensor(names, y, s, q, doc, opts):
    """Per-query values, empty flags and means, from both, queries in id order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ev = evaluate(y, s, q, names, doc_id=doc, nan_score="unretrieved",
                      nan_label="unjudged", **opts)  # fmt: skip
        means = ev.means()
        t = dict(doc_id=torch.tensor(doc))
        got = ranking_scores(torch.tensor(s), torch.tensor(y), torch.tensor(q),
                             names, nan_score="unretrieved", nan_label="unjudged",
                             **t, **opts)  # fmt: skip
    order = np.argsort(np.asarray(ev.grouping.keys))
    o = resolve(nan_score="unretrieved", nan_label="unjudged", **opts)
    rows = per_query(torch.tensor(s), torch.tensor(y), torch.tensor(q), names,
                     torch.tensor(doc), o)  # fmt: skip
    out = []
    for j, (name, _, values, empty, _) in enumerate(rows):
        if values is None:  # computed by the engine on a CPU copy
            values, empty = ev.raw[order, j], ev.empty[order, j]
        else:
            values, empty = values.numpy(), empty.numpy()
        out.append(
            (name, values, empty, ev.raw[order, j], ev.empty[order, j],
             float(got[name]), means[j])
        )  # fmt: skip
    return out


@pytest.mark.parametrize("measure", REGISTERED)
def test_every_measure_declares_a_kernel_that_loads_or_goes_to_the_cpu(measure):
    m = registry.describe(measure)
    if m.tensor is not None:
        assert callable(tensor(m))


@pytest.mark.parametrize("measure", REGISTERED)
@pytest.mark.parametrize(("convention", "seed"), CASES)
def test_every_measure_equals_the_engine(measure, convention, seed):
    y, s, q, doc = batch(seed * 31 + len(measure))
    if convention == "skndcg":
        opts = default_options(seed)
    else:
        opts = dict(convention=convention)
        if convention == "torchmetrics":
            opts["ap_denominator"] = "hits"
    m = registry.describe(measure)
    for name, got, empty, want, want_empty, mean, want_mean in engine_and_tensor(
        forms(m), y, s, q, doc, opts
    ):
        np.testing.assert_array_equal(empty, want_empty, err_msg=name)
        # Bit for bit: the engine's operations, in the engine's order.
        np.testing.assert_array_equal(got, want, err_msg=name)
        # The means: torch and numpy add the per-query values in other orders.
        np.testing.assert_allclose(mean, want_mean, rtol=1e-14, atol=1e-15,
                                   err_msg=name)  # fmt: skip


@pytest.mark.parametrize("convention", [None, "trec_eval", "xgboost", "torchmetrics"])
@pytest.mark.parametrize("measure", REGISTERED)
def test_every_measure_in_float32_within_1e6(measure, convention):
    rng = np.random.default_rng(len(measure))
    n = 3000
    q = rng.integers(0, 120, n)
    y = rng.integers(0, 5, n).astype(np.float32)
    s = np.round(rng.normal(size=n), 2).astype(np.float32)  # ties
    names = forms(registry.describe(measure))
    got = ranking_scores(torch.tensor(s), torch.tensor(y), torch.tensor(q), names,
                         convention=convention)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        want = evaluate(y.astype(np.float64), s.astype(np.float64), q, names,
                        convention=convention).means()  # fmt: skip
    for name, w in zip(names, want, strict=True):
        assert got[name].dtype == torch.float32
        assert float(got[name]) == pytest.approx(w, rel=1e-6, abs=1e-6), name


@pytest.mark.parametrize("convention", [None, "trec_eval", "torchmetrics"])
def test_every_measure_on_cuda_equals_cpu(convention):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device on this machine: the CUDA run is not tested here")
    y, s, q, doc = batch(5, n_max=600)
    names = [
        name for measure in REGISTERED for name in forms(registry.describe(measure))
    ]
    opts = dict(nan_score="unretrieved", nan_label="unjudged", convention=convention)
    rows = [torch.tensor(a) for a in (s, y, q, doc)]
    cpu = ranking_scores(*rows[:3], names, doc_id=rows[3], **opts)
    dev = ranking_scores(*[r.cuda() for r in rows[:3]], names,
                         doc_id=rows[3].cuda(), **opts)  # fmt: skip
    for name in names:
        assert dev[name].device.type == "cuda"
        torch.testing.assert_close(dev[name].cpu(), cpu[name], rtol=1e-12, atol=0,
                                   equal_nan=True)  # fmt: skip


PER_QUERY = [m.name for m in registry.measures() if m.block_kind is None]


@pytest.mark.parametrize("measure", PER_QUERY)
def test_per_query_measures_equal_the_engine_on_tied_rows(measure):
    # ties="average" with rows of other labels (and judgments) tied: whatever
    # the engine's rule for such ties, torch gives its numbers. Queries of
    # about seven rows keep every tie within the engine's budget of orders.
    rng = np.random.default_rng(len(measure))
    n = 400
    q = rng.integers(0, 60, n)
    y = rng.integers(0, 4, n).astype(float)
    y[rng.random(n) < 0.1] = np.nan
    s = rng.integers(0, 4, n).astype(float)
    s[rng.random(n) < 0.05] = np.nan
    doc = rng.permutation(n)
    names = forms(registry.describe(measure))
    for name, got, empty, want, want_empty, mean, want_mean in engine_and_tensor(
        names, y, s, q, doc, dict(ties="average")
    ):
        np.testing.assert_array_equal(empty, want_empty, err_msg=name)
        np.testing.assert_array_equal(got, want, err_msg=name)
        np.testing.assert_allclose(mean, want_mean, rtol=1e-14, atol=1e-15,
                                   err_msg=name)  # fmt: skip


def test_only_queries_with_such_ties_leave_the_tensors(monkeypatch):
    import skndcg.torch._metric as M

    def engine(*args, **kwargs):
        raise AssertionError("the engine was called")

    monkeypatch.setattr(M, "evaluate", engine)
    q = torch.tensor([1, 1, 1, 2, 2, 2])
    y = torch.tensor([1.0, 1.0, 0.0, 2.0, 0.0, 0.0])
    s = torch.tensor([0.5, 0.5, 0.1, 0.9, 0.3, 0.3], dtype=torch.float64)
    names = ["err", "bpref", "rbp", "ndcg"]
    assert set(ranking_scores(s, y, q, names)) == set(names)  # equal labels tie
    with pytest.raises(AssertionError, match="engine was called"):
        ranking_scores(s, torch.tensor([1.0, 0.0, 0.0, 2.0, 0.0, 0.0]), q, ["err"])
    ranking_scores(s, torch.tensor([1.0, 0.0, 0.0, 2.0, 0.0, 0.0]), q, ["ndcg"])
    ranking_scores(s, torch.tensor([1.0, 0.0, 0.0, 2.0, 0.0, 0.0]), q, ["err"],
                   ties="pessimistic")  # fmt: skip
