"""The no-compile backend gives the compiled engine's numbers to the last bit.

Under ``no_compile`` the engine runs the kernels' Python functions, and the
block measures' numpy twin (``skndcg/metrics/_core/_numpy_blocks.py``) for the tie
rules that rank rows one by one. Random inputs: ties, graded, negative and
fractional labels, unretrieved rows, every block measure with and without a
cut-off, both gains and every denominator.
"""

import numpy as np
import pytest

from skndcg._native._jit import no_compile
from skndcg.metrics._core import _numpy_blocks
from skndcg.metrics._core._engine import evaluate

BLOCK = ["ndcg", "ndcg@3", "dcg@5", "map", "map@4", "p@1", "p@7", "r@2", "r",
         "mrr", "mrr@3", "hit@2", "hit_rate@5"]  # fmt: skip
PER_QUERY = ["err@5", "rprec", "bpref", "iprec(recall=0.3)", "rbp(p=0.8)"]


def _data(seed, fractional):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, 25)
    qid = np.repeat(np.arange(sizes.size), sizes)
    rng.shuffle(qid)
    n = qid.size
    y = rng.integers(0, 4, n).astype(np.float64)
    if fractional:
        y = y + rng.choice([0.0, 0.25, 0.5], n)
    s = np.round(rng.normal(size=n), 1)  # many ties
    return y, s, qid


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ties": "stable"},
        {"ties": "average"},
        {"ties": "reverse", "gain": "exponential", "fractional": False},
        {"convention": "trec_eval"},
        {"ties": "stable", "ap_denominator": "min_k_relevant"},
        {"ties": "stable", "ap_denominator": "hits", "p_denominator": "min_k_items"},
        {"ties": "stable", "rel_threshold": 2.0, "empty": "zero"},
        {"ties": "stable", "nan_score": "unretrieved"},
        {"ties": "stable", "gain": np.negative},  # negative gains
    ],
    ids=str,
)
def test_no_compile_equals_compiled(seed, options, monkeypatch):
    calls = []
    twin = _numpy_blocks.evaluate_groups
    monkeypatch.setattr(
        _numpy_blocks,
        "evaluate_groups",
        lambda *a, **k: calls.append(1) or twin(*a, **k),
    )
    options = dict(options)
    y, s, qid = _data(seed, options.pop("fractional", True))
    if options.get("gain") == "exponential" or "convention" in options:
        y = np.abs(np.round(y))
    if options.get("nan_score"):
        s = np.where(np.random.default_rng(seed).random(s.size) < 0.2, np.nan, s)
    metrics = BLOCK + (PER_QUERY if "convention" in options else [])
    with no_compile():
        plain = evaluate(y, s, qid, metrics, **options)
    if options.get("ties") not in (None, "average"):
        assert calls  # the twin ran
    compiled = evaluate(y, s, qid, metrics, **options)
    for name in ("values", "raw", "aux", "n_relevant", "n_relevant_retrieved"):
        a, b = getattr(plain, name), getattr(compiled, name)
        assert np.array_equal(a, b, equal_nan=True), name
