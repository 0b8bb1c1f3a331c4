"""Every metric and option against the brute-force reference, on generated data."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import grouped_metric

from skndcg.metrics import (
    grouped_dcg_score,
    grouped_hit_rate_score,
    grouped_map_score,
    grouped_mrr_score,
    grouped_ndcg_score,
    grouped_precision_score,
    grouped_ranking_scores,
    grouped_recall_score,
)


@st.composite
def ranking_data(draw, max_groups=4, max_size=7, float_labels=False):
    sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_groups))
    n = sum(sizes)
    qid = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    if float_labels:
        labels = st.sampled_from([0.0, 0.5, 1.0, 1.5, 3.25])
    else:
        labels = st.integers(0, 4)
    y = np.array(draw(st.lists(labels, min_size=n, max_size=n)))
    tie_heavy = draw(st.booleans())
    if tie_heavy:
        s = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    else:
        s = draw(
            st.lists(
                st.floats(-5, 5, allow_nan=False, width=32), min_size=n, max_size=n
            )
        )
    s = np.array(s, dtype=np.float64)
    perm = np.array(draw(st.permutations(range(n))))
    return y[perm], s[perm], qid[perm]


K_VALUES = st.sampled_from([1, 2, 3, 5, None])
TIES = st.sampled_from(["average", "stable", "reverse"])
EMPTY = st.sampled_from(["skip", "zero", "one"])


def _close(a, b):
    if np.isnan(b):
        return np.isnan(a)
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def _call(fn, *args, **kwargs):
    import warnings

    from sklearn.exceptions import UndefinedMetricWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


@given(
    ranking_data(), K_VALUES, TIES, EMPTY, st.sampled_from(["linear", "exponential"])
)
def test_ndcg_dcg_match_reference(data, k, ties, empty, gain):
    y, s, q = data
    for fn, metric in [(grouped_ndcg_score, "ndcg"), (grouped_dcg_score, "dcg")]:
        got = _call(fn, y, s, q, k=k, ties=ties, empty=empty, gain=gain)
        want = grouped_metric(y, s, q, metric, k, ties=ties, empty=empty, gain=gain)
        assert _close(got, want), (metric, got, want)


@given(ranking_data(float_labels=True), K_VALUES, TIES)
def test_ndcg_float_labels_and_custom_discount(data, k, ties):
    y, s, q = data
    disc = np.linspace(1.0, 0.2, 7)
    got = _call(grouped_ndcg_score, y, s, q, k=k, ties=ties, discount=disc)
    want = grouped_metric(y, s, q, "ndcg", k, ties=ties, discount=list(disc))
    assert _close(got, want)
    got = _call(
        grouped_ndcg_score,
        y,
        s,
        q,
        k=k,
        ties=ties,
        discount=lambda r: 1.0 / r,
        gain=np.sqrt,
    )
    want = grouped_metric(
        y,
        s,
        q,
        "ndcg",
        k,
        ties=ties,
        gain=np.sqrt,
        discount=[1.0 / r for r in range(1, 8)],
    )
    assert _close(got, want)


@given(
    ranking_data(),
    K_VALUES,
    TIES,
    EMPTY,
    st.sampled_from(["relevant", "min_k_relevant", "hits"]),
    st.sampled_from([None, 2]),
)
def test_map_matches_reference(data, k, ties, empty, den, rel):
    y, s, q = data
    got = _call(
        grouped_map_score,
        y,
        s,
        q,
        k=k,
        ties=ties,
        empty=empty,
        denominator=den,
        rel_threshold=rel,
    )
    want = grouped_metric(
        y, s, q, "map", k, ties=ties, empty=empty, ap_den=den, rel=rel
    )
    assert _close(got, want), (got, want)


@given(ranking_data(), K_VALUES, TIES, EMPTY, st.sampled_from([None, 3]))
def test_binary_metrics_match_reference(data, k, ties, empty, rel):
    y, s, q = data
    cases = [
        (grouped_mrr_score, "mrr", {}),
        (grouped_precision_score, "p", {}),
        (grouped_recall_score, "r", {}),
        (grouped_hit_rate_score, "hit", {}),
    ]
    for fn, metric, extra in cases:
        got = _call(fn, y, s, q, k=k, ties=ties, empty=empty, rel_threshold=rel)
        want = grouped_metric(
            y, s, q, metric, k, ties=ties, empty=empty, rel=rel, **extra
        )
        assert _close(got, want), (metric, got, want)
    got = _call(
        grouped_precision_score,
        y,
        s,
        q,
        k=k,
        ties=ties,
        empty=empty,
        denominator="min_k_items",
    )
    want = grouped_metric(y, s, q, "p", k, ties=ties, empty=empty, p_den="min_k_items")
    assert _close(got, want)


@given(ranking_data(max_groups=5), TIES)
def test_one_pass_equals_separate_calls(data, ties):
    y, s, q = data
    names = ["ndcg@3", "ndcg@5", "map@5", "mrr", "p@3", "r@3", "hit@2", "dcg"]
    together = _call(grouped_ranking_scores, y, s, q, names, ties=ties, empty="zero")
    separate = {
        "ndcg@3": grouped_ndcg_score(y, s, q, k=3, ties=ties, empty="zero"),
        "ndcg@5": grouped_ndcg_score(y, s, q, k=5, ties=ties, empty="zero"),
        "map@5": grouped_map_score(y, s, q, k=5, ties=ties, empty="zero"),
        "mrr": grouped_mrr_score(y, s, q, ties=ties, empty="zero"),
        "p@3": grouped_precision_score(y, s, q, k=3, ties=ties, empty="zero"),
        "r@3": grouped_recall_score(y, s, q, k=3, ties=ties, empty="zero"),
        "hit@2": grouped_hit_rate_score(y, s, q, k=2, ties=ties, empty="zero"),
        "dcg": grouped_dcg_score(y, s, q, k=None, ties=ties, empty="zero"),
    }
    for name in names:
        assert together[name] == pytest.approx(separate[name], rel=1e-14, abs=1e-15)


@given(ranking_data(), st.sampled_from(["ndcg", "map", "mrr"]))
def test_sample_weight_matches_reference(data, metric):
    y, s, q = data
    keys = np.unique(q)
    weights = {key: float(i % 3 + 1) for i, key in enumerate(keys)}
    fn = {
        "ndcg": grouped_ndcg_score,
        "map": grouped_map_score,
        "mrr": grouped_mrr_score,
    }[metric]
    k = None if metric == "mrr" else 3
    got = _call(fn, y, s, q, k=k, empty="zero", sample_weight=weights)
    want = grouped_metric(y, s, q, metric, k, empty="zero", weights=weights)
    assert _close(got, want)
    # The same weights given per row.
    rows = np.array([weights[v] for v in q])
    assert _call(fn, y, s, q, k=k, empty="zero", sample_weight=rows) == got


def test_large_queries_top_k_path_matches_full_sort():
    # Queries far larger than k take the selection-buffer path; k=None sorts them.
    rng = np.random.default_rng(0)
    sizes = [1, 30, 200, 1000]
    q = np.repeat(np.arange(4), sizes)
    y = rng.integers(0, 4, q.size)
    s = rng.integers(0, 8, q.size).astype(float)  # many ties
    for k in [1, 5, 10, 25]:
        names = [f"ndcg@{k}", f"map@{k}", f"mrr@{k}", f"p@{k}", f"hit@{k}"]
        fast = grouped_ranking_scores(y, s, q, names, empty="zero")
        # Same cut-off reached through the full-sort path: ask for k=None too.
        slow = grouped_ranking_scores(y, s, q, [*names, "dcg"], empty="zero")
        for name in names:
            assert fast[name] == pytest.approx(slow[name], rel=1e-13)


@st.composite
def large_queries(draw):
    # Queries well above the cut-off take the selection path: its lane threshold,
    # candidate ranking and, when too many rows tie at the threshold, the
    # insertion buffer. Score styles from all-distinct to all-equal.
    sizes = draw(st.lists(st.integers(25, 300), min_size=1, max_size=3))
    n = sum(sizes)
    seed = draw(st.integers(0, 2**32 - 1))
    style = draw(st.sampled_from(["distinct", "rounded", "few", "equal"]))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, size=n) * rng.integers(0, 2, size=n)
    if style == "distinct":
        s = rng.standard_normal(n)
    elif style == "rounded":
        s = np.round(rng.standard_normal(n), 1)
    elif style == "few":
        s = rng.integers(0, 3, size=n).astype(float)
    else:
        s = np.full(n, 0.5)
    qid = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    return y, s, qid


@given(large_queries(), st.sampled_from([1, 2, 5, 10, 16, 17, 40, 70]), TIES)
def test_large_queries_match_the_full_ranking(data, k, ties):
    y, s, q = data
    names = [f"ndcg@{k}", f"dcg@{k}", f"map@{k}", f"mrr@{k}", f"p@{k}", f"r@{k}"]
    fast = grouped_ranking_scores(y, s, q, names, ties=ties, empty="zero")
    # Asking for the whole list too ranks every query by a full sort.
    slow = grouped_ranking_scores(y, s, q, [*names, "dcg"], ties=ties, empty="zero")
    for name in names:
        assert fast[name] == pytest.approx(slow[name], rel=1e-12, abs=1e-15), name
    if ties != "average":
        # One ordering per query: the brute-force reference is cheap here.
        for metric in ["ndcg", "map", "mrr"]:
            got = fast[f"{metric}@{k}"]
            want = grouped_metric(y, s, q, metric, k, ties=ties, empty="zero")
            assert _close(got, want), (metric, got, want)
