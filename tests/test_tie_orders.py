"""The tie rules as row reorderings: the compiled per-query sort used on large
inputs gives exactly the permutation of the numpy one used on small inputs."""

import numpy as np
import pytest

from skndcg.metrics._core import _reorder
from skndcg.metrics._core._group import group_rows


@pytest.mark.parametrize("rule", ["reverse", "docid", "pessimistic", "quicksort", None])
@pytest.mark.parametrize("with_unretrieved", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_compiled_orders_equal_lexsort(monkeypatch, rule, with_unretrieved, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 2000))
    q = rng.integers(0, int(rng.integers(1, 60)), n)
    g = group_rows(q, n)
    s = g.take(rng.integers(0, 3, n).astype(np.float64))
    unretrieved = g.take(rng.random(n) < 0.3) if with_unretrieved else None
    doc_rank = g.take(rng.permutation(n).astype(np.int64))
    labels = g.take(rng.integers(0, 3, n).astype(np.int64 if seed % 2 else float))
    kwargs = dict(rule=rule, doc_rank=doc_rank, unretrieved=unretrieved, labels=labels)
    small = _reorder.order_within_queries(g, s, **kwargs)
    monkeypatch.setattr(_reorder, "PARALLEL_ROWS", 0)
    monkeypatch.setenv("SKNDCG_NUM_THREADS", "3")
    large = _reorder.order_within_queries(g, s, **kwargs)
    if rule is None and unretrieved is None:
        assert small is None and large is None
        return
    if large is None:  # the rows were already in order
        large = np.arange(n)
    np.testing.assert_array_equal(small, large)
    # a permutation that keeps every query in its own span
    assert sorted(large.tolist()) == list(range(n))
    owner = np.repeat(np.arange(g.n_groups), g.sizes)
    np.testing.assert_array_equal(owner[large], owner)


def test_rows_already_in_order_move_nothing(monkeypatch):
    monkeypatch.setattr(_reorder, "PARALLEL_ROWS", 0)
    q = np.repeat([0, 1, 2], 4)
    g = group_rows(q, len(q))
    s = np.zeros(len(q))
    doc_rank = np.array([9, 7, 3, 1, 5, 4, 2, 0, 8, 6, 3, 2])  # descending per query
    unretrieved = np.array([0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0], dtype=bool)
    kwargs = dict(rule="docid", doc_rank=doc_rank)
    assert (
        _reorder.order_within_queries(g, s, **kwargs, unretrieved=unretrieved) is None
    )
    # an unretrieved row before a retrieved one, or one key out of order: moved
    early = unretrieved.copy()
    early[[5, 7]] = early[[7, 5]]
    assert _reorder.order_within_queries(g, s, **kwargs, unretrieved=early) is not None
    swapped = doc_rank.copy()
    swapped[[8, 9]] = swapped[[9, 8]]
    perm = _reorder.order_within_queries(g, s, rule="docid", doc_rank=swapped)
    assert perm.tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 9, 8, 10, 11]
