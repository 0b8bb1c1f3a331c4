"""Steck's calibration (KL of list categories from history categories)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.metrics import calibration_score

CATS = {"a": "x", "b": "y", "c": ["x", "y"], "d": "z"}


def test_by_hand():
    # History a, a, c: x = 1 + 1 + 1/2, y = 1/2 -> p = (5/6, 1/6).
    # Top 2 = a, b: q = (1/2, 1/2).
    p, q = np.array([5 / 6, 1 / 6]), np.array([0.5, 0.5])
    history = {1: ["a", "a", "c"]}
    args = (["a", "b", "c"], [3, 2, 1], [1, 1, 1])
    got = calibration_score(*args, history=history, categories=CATS, k=2, alpha=0.0)
    assert got == pytest.approx(np.sum(p * np.log(p / q)), rel=1e-12)
    smooth = 0.99 * q + 0.01 * p
    got = calibration_score(*args, history=history, categories=CATS, k=2)
    assert got == pytest.approx(np.sum(p * np.log(p / smooth)), rel=1e-12)


def test_calibrated_list_scores_zero_and_missing_category_stays_finite():
    history = {1: ["a", "b"]}
    args = (["a", "b", "d"], [3, 2, 1], [1, 1, 1])
    assert calibration_score(*args, history=history, categories=CATS, k=2) == 0.0
    # The list misses category y of the history: finite thanks to alpha.
    got = calibration_score(
        ["a", "d"], [2, 1], [1, 1], history=history, categories=CATS, k=2
    )
    p = np.array([0.5, 0.5])
    smooth = 0.99 * np.array([0.5, 0.0]) + 0.01 * p
    assert got == pytest.approx(np.sum(p * np.log(p / smooth)))
    assert math.isfinite(got)


def test_users_without_history_are_skipped():
    frame = calibration_score(
        ["a", "b", "a"],
        [2, 1, 1],
        [1, 1, 2],
        history=([1], ["a"]),
        categories=CATS,
        k=2,
        per_query=True,
    )
    assert frame["qid"].tolist() == [1, 2]
    assert np.isnan(frame["miscalibration@2"][1])
    assert frame["miscalibration@2"][0] > 0


def _brute(item, score, qid, history, cats, k, alpha):
    out = []
    for u in dict.fromkeys(qid):
        if u not in history:
            continue
        rows = sorted(
            (i for i in range(len(qid)) if qid[i] == u), key=lambda i: -score[i]
        )[:k]

        def dist(items):
            d = {}
            for it in items:
                gs = cats[it] if isinstance(cats[it], list) else [cats[it]]
                for g in set(gs):
                    d[g] = d.get(g, 0) + 1 / len(set(gs))
            total = sum(d.values())
            return {g: v / total for g, v in d.items()}

        p, q = dist(history[u]), dist([item[i] for i in rows])
        out.append(
            sum(
                pv * math.log(pv / ((1 - alpha) * q.get(g, 0) + alpha * pv))
                for g, pv in p.items()
            )
        )
    return np.mean(out)


def _case(seed):
    rng = np.random.default_rng(seed)
    n_items, n_users = 12, 8
    cats = {
        i: (
            ["g0", "g1", "g2", "g3"][i % 4]
            if i % 3
            else [f"g{i % 4}", f"g{(i + 1) % 4}"]
        )
        for i in range(n_items)
    }
    sizes = rng.integers(1, 7, n_users)
    qid = np.repeat(np.arange(n_users), sizes)
    item = rng.integers(0, n_items, qid.size)
    score = rng.permutation(qid.size).astype(float)
    history = {
        u: list(rng.integers(0, n_items, rng.integers(1, 6)))
        for u in range(n_users)
        if u % 4 != 3
    }
    return item, score, qid, history, cats


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alpha", [0.01, 0.3])
def test_against_brute_force(seed, alpha):
    item, score, qid, history, cats = _case(seed)
    for k in (1, 3, 10):
        got = calibration_score(
            item, score, qid, history=history, categories=cats, k=k, alpha=alpha
        )
        want = _brute(item, score, qid, history, cats, k, alpha)
        assert got == pytest.approx(want, rel=1e-10)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 5))
def test_invariances(seed, k):
    item, score, qid, history, cats = _case(seed % 1000)
    kw = dict(history=history, categories=cats, k=k)
    base = calibration_score(item, score, qid, **kw)
    perm = np.random.default_rng(seed).permutation(qid.size)
    assert calibration_score(item[perm], score[perm], qid[perm], **kw) == (
        pytest.approx(base)
    )
    assert calibration_score(item, 2 * score - 5, qid, **kw) == pytest.approx(base)
    # Renaming the categories changes nothing.
    renamed = {
        i: ([f"r{g}" for g in c] if isinstance(c, list) else f"r{c}")
        for i, c in cats.items()
    }
    assert calibration_score(
        item, score, qid, history=history, categories=renamed, k=k
    ) == pytest.approx(base)


def test_category_map_missing_an_item():
    with pytest.raises(ValueError, match=r"no category for 1 item\(s\).*first 'e'"):
        calibration_score(
            ["a", "e"], [2, 1], [1, 1], history={1: ["a"]}, categories=CATS
        )
    with pytest.raises(ValueError, match=r"no category for 1 item\(s\).*first 'q'"):
        calibration_score(
            ["a", "b"], [2, 1], [1, 1], history={1: ["q"]}, categories=CATS
        )
    with pytest.raises(ValueError, match="empty collection"):
        calibration_score(
            ["a", "b"], [2, 1], [1, 1], history={1: ["a"]}, categories={**CATS, "b": []}
        )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(alpha=1.0), ValueError, "alpha must be"),
        (dict(categories=["x", "y"]), TypeError, "categories must be a mapping"),
        (dict(history=[1, 2]), TypeError, "history must be a mapping"),
        (dict(history=([1, 1], ["a"])), ValueError, "differ in length"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    base = dict(history={1: ["a"]}, categories=CATS)
    with pytest.raises(error, match=match):
        calibration_score(["a", "b"], [2, 1], [1, 1], **{**base, **kwargs})


def test_history_keys_keep_their_types():
    # A history keyed by ids of mixed types (1 and "u") kept them all as
    # strings, so user 1 found no history and silently scored NaN.
    kw = dict(categories=CATS, k=2, per_query=True)
    mixed = calibration_score(
        ["a", "b", "a", "b"], [2, 1, 2, 1], [1, 1, "u", "u"],
        history={1: ["a"], "u": ["b"]}, **kw,
    )  # fmt: skip
    plain = calibration_score(
        ["a", "b", "a", "b"], [2, 1, 2, 1], [1, 1, 2, 2],
        history={1: ["a"], 2: ["b"]}, **kw,
    )  # fmt: skip
    np.testing.assert_array_equal(
        mixed["miscalibration@2"].to_numpy(), plain["miscalibration@2"].to_numpy()
    )
    assert not mixed["miscalibration@2"].isna().any()
