"""Novelty, ARP/APLT/ACLT, long-tail recall and serendipity per user."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.metrics import (
    average_popularity_score,
    long_tail_recall_score,
    novelty_score,
    serendipity_score,
)

LOG = ["a"] * 4 + ["b"] * 2 + ["c", "d"]  # counts a 4, b 2, c 1, d 1 (of 8)
ITEM = ["a", "b", "c", "a", "d", "b"]
SCORE = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
QID = [1, 1, 1, 2, 2, 2]
Y = [1, 0, 1, 0, 1, 1]


# ---------------------------------------------------------------- by hand
def test_novelty_by_hand():
    # p = 4/8, 2/8, 1/8, 1/8: self-information 1, 2, 3, 3 bits.
    # user 1 top 2 = a, b -> 1.5; user 2 top 2 = a, d -> 2.0.
    assert novelty_score(ITEM, SCORE, QID, popularity=LOG, k=2) == 1.75
    # With 10 training users and counts as users: -log2(count / 10).
    pop = {"a": 4, "b": 2, "c": 1, "d": 1}
    got = novelty_score(ITEM, SCORE, QID, popularity=pop, n_users=10, k=2)
    want = np.mean(
        [
            (-math.log2(0.4) - math.log2(0.2)) / 2,
            (-math.log2(0.4) - math.log2(0.1)) / 2,
        ]
    )
    assert got == pytest.approx(want, abs=1e-15)


def test_arp_aplt_aclt_by_hand():
    kw = dict(popularity=LOG, k=2)
    assert average_popularity_score(ITEM, SCORE, QID, **kw) == 2.75  # (3 + 2.5) / 2
    # Head = ceil(0.25 * 4) = 1 most popular item (a); b, c, d are the tail.
    aplt = average_popularity_score(
        ITEM, SCORE, QID, measure="aplt", long_tail=0.25, **kw
    )
    aclt = average_popularity_score(
        ITEM, SCORE, QID, measure="aclt", long_tail=0.25, **kw
    )
    assert (aplt, aclt) == (0.5, 1.0)
    # The tail given as item ids: only d.
    aplt = average_popularity_score(
        ITEM, SCORE, QID, measure="aplt", long_tail=["d"], **kw
    )
    assert aplt == 0.25  # user 1: 0/2, user 2: 1/2


def test_long_tail_recall_and_serendipity_by_hand():
    kw = dict(item_id=ITEM, popularity=LOG, k=2)
    # Tail b, c, d. User 1 relevant tail: c (not in top 2) -> 0.
    # User 2 relevant tail: d, b; d in top 2 -> 1/2.
    assert long_tail_recall_score(Y, SCORE, QID, long_tail=0.25, **kw) == 0.25
    # Primitive (most popular k=2): a, b. User 1 top a, b: a relevant but
    # expected -> 0. User 2 top a, d: d relevant and unexpected -> 1/2.
    assert serendipity_score(Y, SCORE, QID, **kw) == 0.25
    # A stated primitive list per user: user 1 expected nothing.
    prim = {1: [], 2: ["d"]}
    assert serendipity_score(Y, SCORE, QID, primitive=prim, **kw) == 0.25  # 1/2, 0


def test_per_query_frames_feed_compare():
    from skndcg.evaluation import compare

    rng = np.random.default_rng(0)
    n_users, n_items = 40, 30
    qid = np.repeat(np.arange(n_users), n_items)
    item = np.tile(np.arange(n_items), n_users)
    log = rng.zipf(1.6, 3000) % n_items
    pop = pd.Series(log).value_counts().reindex(range(n_items), fill_value=1)
    popular = pop.to_numpy()[item] + rng.random(item.size)
    niche = -pop.to_numpy()[item] + rng.random(item.size)
    frames = {
        name: novelty_score(item, s, qid, popularity=pop.to_dict(), k=5, per_query=True)
        for name, s in (("popular", popular), ("niche", niche))
    }
    assert list(frames["popular"].columns) == ["qid", "novelty@5"]
    row = (
        compare(frames, baseline="popular", n_resamples=500, random_state=0)
        .to_frame()
        .set_index("model")
        .loc["niche"]
    )
    assert row["diff"] > 0 and row["significant"]


# --------------------------------------------------------- brute force
def _brute(item, score, qid, k, value):
    """Mean over users of mean(value(item)) over the top k (no ties)."""
    per_user = {}
    for q in dict.fromkeys(qid):
        rows = sorted(
            (i for i in range(len(qid)) if qid[i] == q), key=lambda i: -score[i]
        )[:k]
        per_user[q] = np.mean([value(item[i], i) for i in rows])
    return np.mean(list(per_user.values()))


def _random_case(seed, n_users=12, n_items=15):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_users)
    qid = np.repeat(np.arange(n_users), sizes)
    item = rng.integers(0, n_items, qid.size)
    score = rng.permutation(qid.size).astype(float)  # no ties
    y = rng.integers(0, 2, qid.size)
    log = np.r_[np.arange(n_items), rng.integers(0, n_items, 60)]
    return qid, item, score, y, log


@pytest.mark.parametrize("seed", range(4))
def test_against_brute_force(seed):
    qid, item, score, y, log = _random_case(seed)
    counts = pd.Series(log).value_counts()
    total = counts.sum()
    for k in (1, 3, 10):
        got = novelty_score(item, score, qid, popularity=log, k=k)
        want = _brute(item, score, qid, k, lambda i, _: -math.log2(counts[i] / total))
        assert got == pytest.approx(want, rel=1e-12)
        got = average_popularity_score(item, score, qid, popularity=log, k=k)
        assert got == pytest.approx(_brute(item, score, qid, k, lambda i, _: counts[i]))
        cut = counts.sort_values(ascending=False).iloc[math.ceil(0.2 * 15) - 1]
        head = set(counts.index[counts >= cut])
        got = average_popularity_score(
            item, score, qid, popularity=log, k=k, measure="aplt"
        )
        want = _brute(item, score, qid, k, lambda i, _, head=head: float(i not in head))
        assert got == pytest.approx(want)
        # Long-tail recall: relevant tail rows reached / relevant tail rows.
        per = []
        for q in np.unique(qid):
            rows = np.flatnonzero(qid == q)
            top = set(rows[np.argsort(-score[rows])][:k])
            wanted = [r for r in rows if y[r] > 0 and item[r] not in head]
            if wanted:
                per.append(sum(r in top for r in wanted) / len(wanted))
        got = long_tail_recall_score(y, score, qid, item_id=item, popularity=log, k=k)
        assert got == pytest.approx(np.mean(per))
        # Serendipity: relevant and outside the k most popular, over k.
        kth = counts.sort_values(ascending=False).iloc[min(k, 15) - 1]
        expected = set(counts.index[counts >= kth])
        per = []
        for q in np.unique(qid):
            rows = np.flatnonzero(qid == q)
            top = rows[np.argsort(-score[rows])][:k]
            per.append(sum(y[r] > 0 and item[r] not in expected for r in top) / k)
        got = serendipity_score(y, score, qid, item_id=item, popularity=log, k=k)
        assert got == pytest.approx(np.mean(per))


def test_average_ties_are_the_expectation_over_orders():
    # One user, items a (pop 4), b (2), c (1) all tied, k = 1: each enters
    # with probability 1/3, so ARP is the plain mean of the three.
    got = average_popularity_score(
        ["a", "b", "c"], [1, 1, 1], [0, 0, 0], popularity=LOG, k=1
    )
    assert got == pytest.approx((4 + 2 + 1) / 3)
    stable = average_popularity_score(
        ["a", "b", "c"], [1, 1, 1], [0, 0, 0], popularity=LOG, k=1, ties="stable"
    )
    assert stable == 4.0


# ------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 6))
def test_invariances(seed, k):
    qid, item, score, y, log = _random_case(seed)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(qid.size)
    relabel = (qid * 7 + 3).astype(str)
    funcs = [
        lambda q, i, s, yy: novelty_score(i, s, q, popularity=log, k=k),
        lambda q, i, s, yy: average_popularity_score(
            i, s, q, popularity=log, k=k, measure="aplt"
        ),
        lambda q, i, s, yy: serendipity_score(yy, s, q, item_id=i, popularity=log, k=k),
    ]
    for f in funcs:
        base = f(qid, item, score, y)
        assert f(qid[perm], item[perm], score[perm], y[perm]) == pytest.approx(base)
        assert f(relabel, item, score, y) == pytest.approx(base)
        assert f(qid, item, 3 * score + 1, y) == pytest.approx(base)  # monotone
    # Renaming items (popularity renamed alike) changes nothing.
    named = np.array([f"it{x}" for x in item])
    log_named = [f"it{x}" for x in log]
    assert novelty_score(named, score, qid, popularity=log_named, k=k) == pytest.approx(
        novelty_score(item, score, qid, popularity=log, k=k)
    )


# ----------------------------------------------------------- bad input
def test_item_missing_from_popularity():
    pop = {"a": 4, "b": 2, "c": 1}  # d is missing
    with pytest.raises(
        ValueError,
        match=r"1 recommended item\(s\) are missing from "
        r"popularity \(first 'd'\)",
    ):
        average_popularity_score(ITEM, SCORE, QID, popularity=pop, k=2)
    with pytest.warns(UserWarning, match="count with popularity 0"):
        got = average_popularity_score(
            ITEM, SCORE, QID, popularity=pop, k=2, missing="zero"
        )
    assert got == pytest.approx((3 + 2) / 2)  # d counts 0
    with (
        pytest.raises(ValueError, match="popularity 0: its self-information"),
        pytest.warns(UserWarning),
    ):
        novelty_score(ITEM, SCORE, QID, popularity=pop, k=2, missing="zero")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            dict(popularity={"a": -1, "b": 1, "c": 1, "d": 1}),
            ValueError,
            "finite and >= 0",
        ),
        (dict(popularity=3), TypeError, "popularity must be a dict mapping"),
        (dict(popularity=LOG, missing="skip"), ValueError, "missing='skip'"),
        (dict(popularity=LOG, measure="gini"), ValueError, "measure='gini'"),
        (dict(popularity=LOG, long_tail=1.5), ValueError, "long_tail=1.5"),
        (dict(popularity=LOG, k=0), ValueError, "k"),
        # A log entry without an item id was dropped from the counts.
        (dict(popularity=[*LOG, None]), ValueError, r"popularity has 1 missing"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        average_popularity_score(ITEM, SCORE, QID, **kwargs)


def test_n_users_below_a_count_is_refused():
    with pytest.raises(ValueError, match="n_users=3 is below the largest"):
        novelty_score(ITEM, SCORE, QID, popularity=LOG, n_users=3)


def test_inputs_are_not_mutated():
    item, score, qid = np.array(ITEM), np.array(SCORE), np.array(QID)
    pop = pd.Series(["a", "a", "b", "c", "d"], index=[9, 3, 5, 1, 0])
    before = (item.copy(), score.copy(), qid.copy(), pop.copy())
    novelty_score(item, score, qid, popularity=pop, k=2)
    for a, b in zip((item, score, qid, pop), before, strict=True):
        assert (np.asarray(a) == np.asarray(b)).all()


def test_ids_of_another_type_are_refused_not_missed():
    # Keys and ids of another type than the query and item ids ("1" for 1)
    # matched nothing: every item was unexpected, or none in the long tail.
    pop = {1: 4, 2: 2, 3: 1, 4: 1}
    item = [1, 2, 3, 1, 4, 2]
    with pytest.raises(ValueError, match=r"primitive has a list for none of .*'1'"):
        serendipity_score(
            Y, SCORE, QID, item_id=item, popularity=pop, k=2,
            primitive={"1": [1], "2": [1]},
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"long_tail names none of the items.*'3'"):
        average_popularity_score(
            item, SCORE, QID, popularity=pop, k=2, measure="aplt",
            long_tail=["3", "4"],
        )  # fmt: skip
    # Tuple item ids are ids, not rows of a 2-D array.
    got = average_popularity_score(
        pd.Series([(1, 2), (3, 4)]), [2, 1], [1, 1], popularity={(1, 2): 2, (3, 4): 1},
        measure="aplt", long_tail=[(3, 4)], k=2,
    )  # fmt: skip
    assert got == 0.5


def test_long_tail_refuses_a_mapping():
    # A dict was read by its keys: {"d": True, "b": False} put b in the tail.
    with pytest.raises(TypeError, match=r"long_tail.*collection of long-tail item"):
        average_popularity_score(
            ITEM, SCORE, QID, popularity=LOG, k=2, measure="aplt",
            long_tail={"d": True, "b": False},
        )  # fmt: skip


@pytest.mark.parametrize("count", ["3", True, np.bool_(True), None])
def test_popularity_counts_refuse_non_numbers(count):
    # "3" was read as 3.0 and True as 1.0.
    pop = {"a": 4, "b": count, "c": 1, "d": 1}
    with pytest.raises(TypeError, match=r"popularity.*not all numbers \(item 'b' has"):
        average_popularity_score(ITEM, SCORE, QID, popularity=pop, k=2)
