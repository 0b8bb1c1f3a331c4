"""Catalogue coverage@k and intra-list diversity@k."""

import itertools
import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from skndcg.metrics import catalog_coverage_score, intra_list_diversity_score

cov = catalog_coverage_score
ild = intra_list_diversity_score


# ----------------------------------------------------------------- hand-computed cases
def test_coverage_hand_computed():
    item = ["a", "b", "c", "a", "b", "d"]
    score = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
    qid = [1, 1, 1, 2, 2, 2]
    assert cov(item, score, qid, k=1) == pytest.approx(1 / 4)
    assert cov(item, score, qid, k=2) == pytest.approx(2 / 4)
    assert cov(item, score, qid, k=3) == pytest.approx(4 / 4)
    assert cov(item, score, qid, k=None) == 1.0
    assert cov(item, score, qid, k=2, catalog=8) == pytest.approx(2 / 8)
    catalog = ["a", "b", "c", "d", "e", "e"]  # duplicates count once
    assert cov(item, score, qid, k=2, catalog=catalog) == pytest.approx(2 / 5)
    np.testing.assert_allclose(cov(item, score, qid, k=[1, 2, 3]), [0.25, 0.5, 1])


def test_coverage_ties_at_the_cutoff():
    # Query 1: a, b, c all tied, one slot; query 2: a alone.
    item = ["a", "b", "c", "a"]
    score = [1, 1, 1, 5]
    qid = [1, 1, 1, 2]
    assert cov(item, score, qid, k=1, ties="stable") == pytest.approx(1 / 3)
    assert cov(item, score, qid, k=1, ties="reverse") == pytest.approx(2 / 3)
    # a is certain; b and c each enter with probability 1/3.
    assert cov(item, score, qid, k=1) == pytest.approx((1 + 1 / 3 + 1 / 3) / 3)


def test_coverage_average_is_independent_across_queries():
    # Two queries, each a 50/50 tie between a and b for one slot.
    item = ["a", "b", "a", "b"]
    score = [0.0, 0.0, 0.0, 0.0]
    qid = [1, 1, 2, 2]
    # P(a covered) = 1 - (1/2)(1/2) = 3/4, likewise b.
    assert cov(item, score, qid, k=1) == pytest.approx(0.75)


def test_coverage_average_with_repeated_items_in_one_query():
    item, qid = ["a", "a", "b"], [1, 1, 1]
    # k=1: a wins with 2/3, b with 1/3: one item expected out of two.
    assert cov(item, [0, 0, 0], qid, k=1) == pytest.approx(0.5)
    # k=2: some copy of a always enters; b with 2/3.
    assert cov(item, [0, 0, 0], qid, k=2) == pytest.approx((1 + 2 / 3) / 2)
    item, qid = ["a", "a", "b", "c"], [1, 1, 1, 1]
    # k=2: P(no a) = C(2,2)/C(4,2) = 1/6; P(b) = P(c) = 1/2.
    assert cov(item, [0, 0, 0, 0], qid, k=2) == pytest.approx((5 / 6 + 1) / 3)


def test_diversity_hand_computed():
    genres = {"a": ["drama"], "b": ["drama", "crime"], "c": ["comedy"]}
    item = ["a", "b", "c", "a", "c"]
    score = [3, 2, 1, 2, 1]
    qid = [1, 1, 1, 2, 2]
    # k=2: d(a, b) = 1 - 1/2; d(a, c) = 1.
    assert ild(item, score, qid, k=2, item_categories=genres) == pytest.approx(0.75)
    # k=3: query 1 has pairs 0.5, 1, 1; query 2 still 1.
    expected = (2.5 / 3 + 1) / 2
    assert ild(item, score, qid, k=3, item_categories=genres) == pytest.approx(expected)
    np.testing.assert_allclose(
        ild(item, score, qid, k=[2, 3], item_categories=genres), [0.75, expected]
    )


def test_diversity_mismatch_and_cosine_by_row():
    item, score, qid = [10, 11, 12], [3, 2, 1], [0, 0, 0]
    labels = np.array(["x", "x", "y"], dtype=object)
    assert ild(
        item, score, qid, k=3, item_categories=labels, metric="mismatch"
    ) == pytest.approx(2 / 3)
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    expected = (1 + 2 * (1 - 1 / math.sqrt(2))) / 3
    got = ild(item, score, qid, k=3, item_features=x, metric="cosine")
    assert got == pytest.approx(expected)
    # Same vectors by item id, as a DataFrame and as a dict; scale does not matter.
    frame = pd.DataFrame(x * [[2.0], [3.0], [0.5]], index=[10, 11, 12])
    assert ild(item, score, qid, item_features=frame, metric="cosine") == (
        pytest.approx(expected)
    )
    as_dict = {10: [1, 0], 11: [0, 1], 12: [1, 1]}
    assert ild(item, score, qid, item_features=as_dict, metric="cosine") == (
        pytest.approx(expected)
    )


def test_diversity_ties_average_hand_computed():
    # a first; b and c tied for the second slot; b shares a's category.
    item, score, qid = ["a", "b", "c"], [2, 1, 1], [0, 0, 0]
    cats = {"a": "x", "b": "x", "c": "y"}
    kw = dict(k=2, item_categories=cats, metric="mismatch")
    assert ild(item, score, qid, ties="stable", **kw) == 0.0
    assert ild(item, score, qid, ties="reverse", **kw) == 1.0
    assert ild(item, score, qid, **kw) == pytest.approx(0.5)


def test_diversity_skips_single_item_queries_and_weights():
    cats = {"a": "x", "b": "y", "c": "x"}
    item, score, qid = ["a", "b", "a", "c", "b"], [2, 1, 2, 1, 1], [1, 1, 2, 2, 3]
    kw = dict(k=2, item_categories=cats, metric="mismatch")
    # Query 1 scores 1, query 2 scores 0, query 3 (one row) is skipped.
    assert ild(item, score, qid, **kw) == pytest.approx(0.5)
    assert ild(item, score, qid, sample_weight={1: 1, 2: 3, 3: 100}, **kw) == 0.25
    assert ild(item, score, qid, sample_weight=[1, 1, 3, 3, 0], **kw) == 0.25
    with pytest.warns(UndefinedMetricWarning, match="no query has two rows"):
        assert np.isnan(ild(item, score, qid, k=1, item_categories=cats))


def test_input_containers_agree():
    frame = pd.DataFrame(
        {
            "q": [1, 1, 1, 2, 2],
            "item": ["a", "b", "c", "a", "c"],
            "s": [3.0, 2.0, 1.0, 2.0, 1.0],
            "g": [["x"], ["x", "y"], ["z"], ["x"], ["z"]],
        }
    )
    by_item = frame.drop_duplicates("item").set_index("item")["g"]
    expected = ild(frame["item"], frame["s"], frame["q"], k=3, item_categories=by_item)
    assert expected == pytest.approx(((0.5 + 1 + 1) / 3 + 1) / 2)
    variants = [
        dict(item_categories=frame["g"].to_numpy()),
        dict(item_categories=frame["g"].tolist()),
        dict(item_categories=by_item.to_dict()),
    ]
    for kw in variants:
        got = ild(frame["item"].astype("category"), frame["s"], frame["q"], k=3, **kw)
        assert got == pytest.approx(expected)
    pl = pytest.importorskip("polars")
    pl_frame = pl.DataFrame({c: frame[c].tolist() for c in frame.columns})
    got = ild(
        pl_frame["item"],
        pl_frame["s"],
        pl_frame["q"],
        k=3,
        item_categories=pl_frame["g"],
    )
    assert got == pytest.approx(expected)
    assert cov(pl_frame["item"], pl_frame["s"], pl_frame["q"], k=1) == pytest.approx(
        1 / 3
    )


# ------------------------------------------------------------------ brute force
def _orders(scores, rows):
    """Every ranked order of ``rows`` that sorts ``scores`` decreasingly."""
    return [
        p
        for p in itertools.permutations(rows)
        if all(scores[p[i]] >= scores[p[i + 1]] for i in range(len(p) - 1))
    ]


def _tops(item, score, qid, k, ties):
    """Per query: a list of (top-k rows, probability)."""
    by_q = defaultdict(list)
    for i, q in enumerate(qid):
        by_q[q].append(i)
    out = []
    for rows in by_q.values():
        if ties == "average":
            orders = _orders(score, rows)
            out.append([(o[:k], 1 / len(orders)) for o in orders])
        else:
            base = rows[::-1] if ties == "reverse" else rows
            out.append([(sorted(base, key=lambda i: -score[i])[:k], 1.0)])
    return out


def _coverage_brute(item, score, qid, k, ties):
    total = 0.0
    for combo in itertools.product(*_tops(item, score, qid, k, ties)):
        prob = math.prod(p for _, p in combo)
        total += prob * len({item[i] for top, _ in combo for i in top})
    return total / len(set(item))


def _ild_brute(item, score, qid, k, ties, dist):
    values = []
    for choices in _tops(item, score, qid, k, ties):
        if len(choices[0][0]) < 2:
            continue
        v = 0.0
        for top, p in choices:
            pairs = list(itertools.combinations(top, 2))
            v += p * sum(dist(item[i], item[j]) for i, j in pairs) / len(pairs)
        values.append(v)
    return np.mean(values) if values else np.nan


@st.composite
def small_lists(draw):
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    qid = [q for q, m in enumerate(sizes) for _ in range(m)]
    n = len(qid)
    item = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    score = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    k = draw(st.integers(1, 4))
    ties = draw(st.sampled_from(["average", "stable", "reverse"]))
    return item, score, qid, k, ties


CATS = {0: {"x"}, 1: {"x", "y"}, 2: {"y", "z"}, 3: {"z"}, 4: {"x", "y", "z"}}
VECS = {0: [1.0, 0.0], 1: [0.0, 2.0], 2: [1.0, 1.0], 3: [-1.0, 0.5], 4: [3.0, -1.0]}


def _jaccard(a, b):
    return 1 - len(CATS[a] & CATS[b]) / len(CATS[a] | CATS[b])


def _cosine(a, b):
    u, v = np.array(VECS[a]), np.array(VECS[b])
    return 1 - u @ v / np.linalg.norm(u) / np.linalg.norm(v)


@given(small_lists())
def test_coverage_matches_brute_force(case):
    item, score, qid, k, ties = case
    got = cov(item, score, qid, k=k, ties=ties)
    assert got == pytest.approx(_coverage_brute(item, score, qid, k, ties), abs=1e-12)


@given(small_lists(), st.sampled_from(["jaccard", "mismatch", "cosine"]))
def test_diversity_matches_brute_force(case, metric):
    item, score, qid, k, ties = case
    if metric == "cosine":
        dist, kw = _cosine, {"item_features": VECS}
    elif metric == "jaccard":
        dist, kw = _jaccard, {"item_categories": CATS}
    else:
        dist, kw = (
            (lambda a, b: float(a % 3 != b % 3)),
            {"item_categories": {i: i % 3 for i in range(5)}},
        )
    expected = _ild_brute(item, score, qid, k, ties, dist)
    if np.isnan(expected):
        with pytest.warns(UndefinedMetricWarning):
            assert np.isnan(ild(item, score, qid, k=k, ties=ties, metric=metric, **kw))
    else:
        got = ild(item, score, qid, k=k, ties=ties, metric=metric, **kw)
        assert got == pytest.approx(expected, abs=1e-12)


# ------------------------------------------------------------------ invariances
@given(small_lists(), st.randoms(use_true_random=False), st.floats(0.1, 100))
def test_average_invariant_to_row_order_and_score_scale(case, rnd, scale):
    item, score, qid, k, _ = case
    perm = list(range(len(item)))
    rnd.shuffle(perm)
    item2 = [item[i] for i in perm]
    score2 = [score[i] * scale for i in perm]
    qid2 = [f"q{qid[i]}" for i in perm]  # relabelled queries too
    assert cov(item2, score2, qid2, k=k) == pytest.approx(cov(item, score, qid, k=k))
    sizes = np.bincount(qid)
    if (np.minimum(sizes, k) < 2).all():
        return  # no pair anywhere: diversity is undefined (tested above)
    by_row = [sorted(CATS[i]) for i in item]
    a = ild(item, score, qid, k=k, item_categories=CATS)
    assert ild(item2, score2, qid2, k=k, item_categories=CATS) == pytest.approx(a)
    assert ild(item, score, qid, k=k, item_categories=by_row) == pytest.approx(a)


def test_average_coverage_equals_mean_over_jitter():
    rng = np.random.default_rng(0)
    n_q, m = 30, 6
    qid = np.repeat(np.arange(n_q), m)
    item = rng.integers(0, 25, size=n_q * m)
    score = rng.integers(0, 3, size=n_q * m).astype(float)
    exact = cov(item, score, qid, k=3)
    draws = [
        cov(item, score + rng.normal(0, 1e-6, score.shape), qid, k=3)
        for _ in range(300)
    ]
    se = np.std(draws) / np.sqrt(len(draws))
    assert np.std(draws) > 0
    assert abs(np.mean(draws) - exact) < 4 * se + 1e-12


# ----------------------------------------------------------------------- errors
ITEM, SCORE, QID = ["a", "b", "c"], [0.3, 0.2, 0.1], [1, 1, 1]
CATS3 = {"a": ["x"], "b": ["y"], "c": ["x", "y"]}


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(ties="random"), ValueError, r"ties='random' is not valid"),
        (dict(k=0), ValueError, r"k must be >= 1, got 0"),
        (dict(k=True), TypeError, r"k must be an int >= 1 or None, got True"),
        (dict(k=2.5), TypeError, r"k must be an int >= 1 or None, got 2.5"),
        (dict(k=[]), ValueError, r"k is an empty sequence"),
        (dict(y_score=[1, 2]), ValueError, r"y_score has 2 rows but item_id has 3"),
        (dict(y_score=["x", "y", "z"]), TypeError, r"y_score must be numeric"),
        (dict(y_score=[1.0, np.nan, 2]), ValueError, r"y_score contains 1 NaN"),
        (dict(qid=[1, 1]), ValueError, r"qid has 2 rows but item_id has 3"),
        (dict(qid=[1, None, 1]), ValueError, r"qid has 1 missing value"),
        (dict(item_id=["a", None, "c"]), ValueError, r"item_id has 1 missing value"),
        (dict(item_id=[]), ValueError, r"item_id is empty"),
        (dict(catalog=2), ValueError, r"catalog=2 is smaller than the 3 distinct"),
        (dict(catalog=["a", "b"]), ValueError, r"1 item\(s\) outside catalog .*'c'"),
        (dict(catalog="abc"), TypeError, r"catalog must be None, an int"),
        (dict(catalog=3.0), TypeError, r"catalog must be None, an int"),
        (dict(catalog=True), TypeError, r"catalog must be None, an int"),
        # A missing id counted as one more catalogue item (coverage 3/4).
        (dict(catalog=["a", "b", "c", None]), ValueError, r"catalog has 1 missing"),
    ],
)
def test_coverage_errors(kwargs, exc, match):
    args = dict(item_id=ITEM, y_score=SCORE, qid=QID) | kwargs
    with pytest.raises(exc, match=match):
        cov(**args)


def test_item_id_must_be_hashable():
    item = np.empty(3, dtype=object)
    item[:] = [["a"], ["b"], ["c"]]
    with pytest.raises(TypeError, match=r"item_id values must be hashable"):
        cov(item, SCORE, QID)


FRAME = pd.DataFrame({"item": ITEM, "genre": ["x", "y", "z"]})


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(metric="euclid"), ValueError, r"metric='euclid' is not valid"),
        (dict(ties="first"), ValueError, r"ties='first' is not valid"),
        (dict(item_categories=None), ValueError, r"metric='jaccard' needs item_cat"),
        (
            dict(item_features={"a": [1]}),
            ValueError,
            r"metric='jaccard' compares item_categories; item_features must be None",
        ),
        (
            dict(metric="cosine", item_categories=CATS3),
            ValueError,
            r"metric='cosine' compares item_features; item_categories must be None",
        ),
        (
            dict(metric="cosine", item_categories=None),
            ValueError,
            r"metric='cosine' needs item_features",
        ),
        (
            dict(item_categories=pd.DataFrame({"g": [1]})),
            TypeError,
            r"got a DataFrame; select one column",
        ),
        (
            dict(item_categories=np.array([["x"], ["y"], ["z"]])),
            ValueError,
            r"item_categories given per row must be 1-D .* shape \(3, 1\)",
        ),
        (
            dict(item_categories=["x", "y"]),
            ValueError,
            r"item_categories has 2 entries but item_id has 3 rows",
        ),
        (
            dict(item_categories={"a": ["x"], "b": ["y"]}),
            ValueError,
            r"item_categories lacks 1 item\(s\) of item_id \(first 'c'\)",
        ),
        (
            dict(item_categories=pd.Series([["x"]] * 4, index=["a", "b", "c", "a"])),
            ValueError,
            r"index has duplicates \(first 'a'\)",
        ),
        (
            dict(item_categories={"a": ["x"], "b": [], "c": ["y"]}),
            ValueError,
            r"no category for item 'b' \(a missing value or an empty collection\)",
        ),
        (
            dict(item_categories=["x", None, "y"], metric="mismatch"),
            ValueError,
            r"no category for row 1",
        ),
        (
            dict(item_categories=[{"x"}, {"y"}, {"x"}], metric="mismatch"),
            TypeError,
            r"one hashable label per item; use metric='jaccard' for sets",
        ),
        (
            dict(item_categories=[[["x"]], ["y"], ["z"]]),
            TypeError,
            r"item_categories must hold hashable labels",
        ),
        (
            dict(item_id=FRAME["item"], item_categories=FRAME["genre"]),
            ValueError,
            r"looks like a per-row column.*to_numpy\(\)",
        ),
        (
            dict(item_categories=CATS3, sample_weight=[1, 1]),
            ValueError,
            r"sample_weight has 2 rows but item_id has 3",
        ),
        (
            dict(item_categories=CATS3, sample_weight=[1, 2, 1]),
            ValueError,
            r"sample_weight varies within query",
        ),
        (
            dict(item_categories=CATS3, sample_weight=[0, 0, 0]),
            ValueError,
            r"sample_weight sums to zero",
        ),
    ],
)
def test_diversity_category_errors(kwargs, exc, match):
    args = dict(item_id=ITEM, y_score=SCORE, qid=QID, item_categories=CATS3) | kwargs
    with pytest.raises(exc, match=match):
        ild(**args)


@pytest.mark.parametrize(
    "features, exc, match",
    [
        (pd.Series([1, 2, 3], index=ITEM), TypeError, r"got a Series"),
        ({"a": [1, 0], "b": [1], "c": [0, 1]}, ValueError, r"one common length"),
        ({"a": 1, "b": 2, "c": 3}, ValueError, r"1-D vectors, got .* shape \(3,\)"),
        (
            pd.DataFrame({"f": ["u", "v", "w"]}, index=ITEM),
            TypeError,
            r"numeric columns only",
        ),
        ([1.0, 2.0, 3.0], ValueError, r"must be 2-D of shape \(n_samples, n_feat"),
        (np.ones((2, 2)), ValueError, r"item_features has 2 rows but item_id has 3"),
        (np.ones((3, 0)), ValueError, r"no feature columns"),
        ([["a", "b"]] * 3, TypeError, r"item_features must be numeric"),
        (
            np.array([[1.0, 0], [np.nan, 1], [1, 1]]),
            ValueError,
            r"NaN or infinite values for row 1",
        ),
        (
            {"a": [1.0, 0], "b": [0.0, 0], "c": [1.0, 1]},
            ValueError,
            r"zero vector for item 'b'; cosine distance is undefined",
        ),
        (
            pd.DataFrame({"f": [1.0, 2.0]}, index=["a", "b"]),
            ValueError,
            r"item_features lacks 1 item\(s\) of item_id \(first 'c'\)",
        ),
    ],
)
def test_diversity_feature_errors(features, exc, match):
    with pytest.raises(exc, match=match):
        ild(ITEM, SCORE, QID, item_features=features, metric="cosine")


def test_inputs_are_not_mutated():
    item = np.array(ITEM, dtype=object)
    score = np.array(SCORE)
    feats = np.array([[3.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    before = (item.copy(), score.copy(), feats.copy())
    ild(item, score, QID, item_features=feats, metric="cosine")
    cov(item, score, QID)
    for a, b in zip((item, score, feats), before, strict=True):
        np.testing.assert_array_equal(a, b)


def test_catalog_may_be_a_set():
    # It was refused as "a scalar set".
    assert cov(ITEM, SCORE, QID, k=2, catalog={"a", "b", "c", "d"}) == 0.5
