"""ties="average" for the per-query measures: the exact expectation over the
orders of tied rows, against hand values, brute force over every order, and
properties; and the refusal when the orders are too many."""

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skndcg.metrics  # noqa: F401  (registers the measures)
from skndcg.metrics import (
    define_measure,
    grouped_ranking_scores,
    registry,
    undefine_measure,
)
from skndcg.metrics._conventions import PRESETS
from skndcg.metrics._core import _tie_orders as T
from skndcg.metrics._core._engine import evaluate

PER_QUERY = [m for m in registry.measures() if m.per_query is not None and m.builtin]
TREC = replace(PRESETS["trec_eval"], ties="average", doc_ties=False)


def _names(measures, k=2):
    out = []
    for m in measures:
        out.append(m.name)
        if m.cutoff:
            out.append(f"{m.name}@{k}")
    return out


def _raw(y, s, q, names, **options):
    return evaluate(y, s, q, names, **options).raw


def _brute(y, s, names, **options):
    """Mean over every order of the tied rows, each scored with ties="stable"."""
    y, s = np.asarray(y, float), np.asarray(s, float)
    kept = [i for i in range(len(s)) if not np.isnan(s[i])]
    dropped = [i for i in range(len(s)) if np.isnan(s[i])]
    kept.sort(key=lambda i: -s[i])
    blocks = [list(g) for _, g in itertools.groupby(kept, key=lambda i: s[i])]
    orders = [
        [i for block in combo for i in block] + dropped
        for combo in itertools.product(*(itertools.permutations(b) for b in blocks))
    ]
    rows = np.concatenate(orders)
    qid = np.repeat(np.arange(len(orders)), len(s))
    conv = options.pop("convention", None)
    if conv is not None:
        options["convention"] = replace(conv, ties="stable")
    else:
        options["ties"] = "stable"
    return _raw(y[rows], s[rows], qid, names, **options).mean(axis=0)


def _average(y, s, names, **options):
    if "convention" not in options:
        options["ties"] = "average"
    return _raw(y, s, np.zeros(len(y), int), names, **options)[0]


# Hand-computed cases.


def test_top_tie_scores_half_the_gain_for_every_measure():
    tied = dict(y_true=[1, 0], y_score=[0.5, 0.5], qid=["q", "q"])
    got = grouped_ranking_scores(**tied, metrics=["dcg@1", "err@1", "rbp(p=0.5)@1"])
    # ERR's stop probability of label 1 (the largest) is 1/2; RBP's weight 1 - p.
    assert got == pytest.approx({"dcg@1": 0.5, "err@1": 0.25, "rbp(p=0.5)@1": 0.25})
    worst = grouped_ranking_scores(**tied, metrics=["err@1"], ties="pessimistic")
    assert worst == {"err@1": 0.0}


def test_ap_like_and_r_precision():
    tied = dict(y_true=[1, 0], y_score=[0.5, 0.5], qid=["q", "q"])
    got = grouped_ranking_scores(**tied, metrics=["gm_map", "rprec", "bin_g"])
    # AP: 1 when the relevant row is first, 1/2 when second.
    assert got["gm_map"] == pytest.approx(0.75)
    assert got["rprec"] == pytest.approx(0.5)
    assert got["bin_g"] == pytest.approx(0.5 * (1 + 1 / math.log2(3)))


def test_set_measure_with_a_tie_across_the_cutoff():
    # Rank 1 relevant; ranks 2-4 tied, one of three relevant: set_p@2 is
    # (1 + 1/3) / 2 in expectation, judged@2 stays 1.
    y, s = [1, 0, 1, 0], [3, 2, 2, 2]
    got = grouped_ranking_scores(
        y, s, ["q"] * 4, metrics=["set_p@2", "set_recall@2", "relative_p@2"]
    )
    assert got == pytest.approx(
        {"set_p@2": 2 / 3, "set_recall@2": 2 / 3, "relative_p@2": 2 / 3}
    )


def test_unjudged_rows_tied_with_judged_ones():
    # bpref: the relevant row scores 1 when the judged non-relevant row is
    # below it (half of the orders); the unjudged row is ignored.
    y = [1.0, np.nan, 0.0]
    got = grouped_ranking_scores(
        y, [1, 1, 1], ["q"] * 3, metrics=["bpref", "judged@1", "unj@1"],
        nan_label="unjudged",
    )  # fmt: skip
    assert got == pytest.approx({"bpref": 0.5, "judged@1": 2 / 3, "unj@1": 1 / 3})


def test_pool_mark_tied_with_a_relevant_row():
    # infAP: 1 with the relevant row first; with the pooled, unjudged row
    # first, 1/2 + 1/2 * 1 * (e / 2e).
    got = grouped_ranking_scores(
        [1, -1], [0.5, 0.5], ["q", "q"], metrics=["infap"], convention=TREC
    )
    assert got["infap"] == pytest.approx((1 + 0.75) / 2)


def test_labels_a_binary_measure_cannot_tell_apart_are_not_a_tie():
    # Labels 1 and 2 are both relevant for AP: one call, no orders to average.
    y, s = np.array([2, 1] * 30, float), np.zeros(60)
    got = grouped_ranking_scores(y, s, np.zeros(60), metrics=["gm_map", "bpref"])
    assert got == pytest.approx({"gm_map": 1.0, "bpref": 1.0})


def test_without_ties_every_value_is_the_single_call():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 4, 400).astype(float)
    y[rng.random(400) < 0.1] = np.nan
    s, q = rng.random(400), np.repeat(np.arange(40), 10)
    names = _names(PER_QUERY, k=3)
    opts = dict(nan_label="unjudged")
    avg = _raw(y, s, q, names, ties="average", **opts)
    assert np.array_equal(avg, _raw(y, s, q, names, ties="stable", **opts))


# Every built-in per-query measure against brute force.


def _random_query(rng, n, unjudged):
    y = rng.integers(0, 3, n).astype(float)
    if unjudged:
        y[rng.random(n) < 0.3] = np.nan
    s = rng.integers(0, 3, n).astype(float)
    return y, s


@pytest.mark.parametrize("seed", range(6))
def test_every_measure_equals_the_mean_over_every_order(seed):
    rng = np.random.default_rng(seed)
    names = _names(PER_QUERY, k=2) + _names(PER_QUERY, k=4)
    names = list(dict.fromkeys(names))
    for unjudged in (False, True):
        y, s = _random_query(rng, int(rng.integers(2, 7)), unjudged)
        if unjudged:
            y[0] = np.nan  # some row unjudged at least
        opts = {"nan_label": "unjudged"} if unjudged else {}
        want = _brute(y, s, names, **opts)
        got = _average(y, s, names, **opts)
        for name, a, b in zip(names, got, want, strict=True):
            assert a == pytest.approx(b, abs=1e-12), (name, y, s)


@pytest.mark.parametrize("seed", range(4))
def test_unretrieved_rows_and_trec_labels_against_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    names = _names(PER_QUERY, k=3)
    n = int(rng.integers(3, 7))
    y = rng.integers(-1, 3, n).astype(float)  # -1: in the pool, not judged
    y[rng.random(n) < 0.2] = np.nan
    s = rng.integers(0, 2, n).astype(float)
    s[rng.random(n) < 0.2] = np.nan
    opts = dict(convention=TREC, nan_label="unjudged", nan_score="unretrieved")
    want = _brute(y, s, names, **opts)
    got = _average(y, s, names, **opts)
    for name, a, b in zip(names, got, want, strict=True):
        assert a == pytest.approx(b, abs=1e-12), (name, y, s)


def test_several_queries_and_blocks_in_one_call():
    rng = np.random.default_rng(7)
    names = _names(PER_QUERY, k=3)
    ys, ss = zip(*(_random_query(rng, 5, False) for _ in range(4)), strict=True)
    y, s = np.concatenate(ys), np.concatenate(ss)
    got = _raw(y, s, np.repeat(np.arange(4), 5), names, ties="average")
    for g in range(4):
        want = _brute(ys[g], ss[g], names)
        np.testing.assert_allclose(got[g], want, rtol=0, atol=1e-12)


# Properties.

_queries = st.integers(2, 6).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
        st.permutations(range(n)),
    )
)
_NAMES = _names(PER_QUERY, k=3)


@settings(max_examples=40, deadline=None)
@given(_queries)
def test_the_row_order_never_changes_a_value(q):
    y, s, perm = (np.asarray(v, float) for v in q)
    perm = perm.astype(int)
    a = _average(y, s, _NAMES)
    b = _average(y[perm], s[perm], _NAMES)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


# Measures that can gain when a relevant row moves up past a non-relevant one
# (binary labels, no unjudged rows): pessimistic <= average <= optimistic.
_MONOTONE = [
    m for m in PER_QUERY if m.higher_is_better and m.name not in ("judged", "iprec")
]


@settings(max_examples=40, deadline=None)
@given(_queries)
def test_average_lies_between_the_worst_and_best_tie_orders(q):
    y, s, _ = (np.asarray(v, float) for v in q)
    y = np.minimum(y, 1.0)
    names = _names(_MONOTONE, k=3)
    q0 = np.zeros(len(y), int)
    avg = _average(y, s, names)
    worst = _raw(y, s, q0, names, ties="pessimistic")[0]
    best_first = np.lexsort((-y, -s))  # most relevant first among ties
    best = _raw(y[best_first], s[best_first], q0, names, ties="stable")[0]
    for name, lo, mid, hi in zip(names, worst, avg, best, strict=True):
        assert lo - 1e-12 <= mid <= hi + 1e-12, (name, y, s)


def _top_two(ranked_labels, k):
    return float(ranked_labels[0] + 2 * ranked_labels[min(1, len(ranked_labels) - 1)])


def test_user_measures_get_the_expectation_python_and_numba():
    import numba

    define_measure("tie_top_two", _top_two)
    define_measure("tie_top_two_nb", numba.njit(_top_two))
    try:
        y, s = [2.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0]
        names = ["tie_top_two", "tie_top_two_nb"]
        want = _brute(y, s, names)
        got = _average(y, s, names)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        assert got[0] == pytest.approx(3.0)  # E[first] = 1, E[second] = 1
    finally:
        undefine_measure("tie_top_two")
        undefine_measure("tie_top_two_nb")


# The refusal.


def test_too_many_orders_are_refused_with_the_rules_to_use():
    y = np.array([1.0, 0.0] * 20)
    s = np.zeros(40)
    with pytest.raises(ValueError) as err:
        grouped_ranking_scores(y, s, ["q7"] * 40, metrics=["gm_map"])
    msg = str(err.value)
    for word in ("gm_map", "'q7'", f"{T.MAX_CALLS:,}", "'stable'", "'pessimistic'"):
        assert word in msg
    with pytest.raises(ValueError, match="convention='sklearn' fixes"):
        grouped_ranking_scores(
            y, s, ["q7"] * 40, metrics=["gm_map"], convention="sklearn"
        )
    # The same tie is fine for a measure that reads a sum of ranks or a set,
    # and under a rule.
    got = grouped_ranking_scores(y, s, ["q7"] * 40, metrics=["rprec", "set_p@10"])
    assert got == pytest.approx({"rprec": 0.5, "set_p@10": 0.5})
    worst = grouped_ranking_scores(
        y, s, ["q7"] * 40, metrics=["gm_map"], ties="pessimistic"
    )
    assert 0.0 < worst["gm_map"] < 0.5


def test_python_measures_are_refused_too():
    define_measure("tie_first", lambda labels, k: float(labels[0]))
    try:
        with pytest.raises(ValueError, match=r"tie_first .*'q'"):
            grouped_ranking_scores(
                [1.0, 0.0] * 20, np.zeros(40), ["q"] * 40, metrics=["tie_first"]
            )
    finally:
        undefine_measure("tie_first")
