"""Ids are ids and counts are counts in every beyond-accuracy measure.

Every public function that takes item ids, user ids or popularity gets them as
a list, a numpy array and a pandas Series whose index has nothing to do with
its values, and gives the same number each time. A training log of item ids is
never read as a map from its index to counts; counts come as a dict, and a
Series that is counts (``value_counts()``) is refused with a hint that works.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from skndcg.metrics import (
    average_popularity_score,
    calibration_score,
    catalog_coverage_score,
    distributional_coverage_score,
    exposure_entropy_score,
    exposure_gini_score,
    intra_list_diversity_score,
    long_tail_recall_score,
    novelty_score,
    serendipity_score,
)

# The issue's log: item ids 0, 0, 0, 0, 1, 1, 2, 3 (counts 4, 2, 1, 1).
LOG = [0, 0, 0, 0, 1, 1, 2, 3]
ITEM = [0, 1, 2, 0, 3, 1]
SCORE = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
USER = [10, 10, 10, 11, 11, 11]
Y = [1, 0, 1, 0, 1, 1]
CATALOG = [0, 1, 2, 3, 4, 5]
TAIL = [2, 3]
HIST_USER = [10, 10, 11, 11, 11]
HIST_ITEM = [0, 2, 1, 3, 3]
GENRES = {0: ["drama"], 1: ["drama", "crime"], 2: ["comedy"], 3: ["crime"]}


def as_list(v):
    return list(v)


def as_array(v):
    return np.asarray(v)


def as_series(v):
    # An index unrelated to the values: shuffled, offset, of another dtype.
    n = len(v)
    return pd.Series(list(v), index=np.arange(100, 100 + n)[::-1] * 7)


FORMS = [as_list, as_array, as_series]


def calls(f):
    """Every public function taking ids or popularity, its id arguments in form f."""
    item, user, log = f(ITEM), f(USER), f(LOG)
    return {
        "novelty": lambda: novelty_score(item, SCORE, user, popularity=log, k=2),
        "novelty_n_users": lambda: novelty_score(
            item, SCORE, user, popularity=log, k=2, n_users=9
        ),
        "arp": lambda: average_popularity_score(item, SCORE, user, popularity=log, k=2),
        "aplt": lambda: average_popularity_score(
            item, SCORE, user, popularity=log, k=2, measure="aplt", long_tail=0.25
        ),
        "aclt_ids": lambda: average_popularity_score(
            item,
            SCORE,
            user,
            popularity=log,
            k=3,
            measure="aclt",
            long_tail=f(TAIL),
        ),
        "lt_recall": lambda: long_tail_recall_score(
            Y, SCORE, user, item_id=item, popularity=log, long_tail=0.25, k=2
        ),
        "serendipity": lambda: serendipity_score(
            Y, SCORE, user, item_id=item, popularity=log, k=2
        ),
        "coverage": lambda: catalog_coverage_score(
            item, SCORE, user, k=2, catalog=f(CATALOG)
        ),
        "gini": lambda: exposure_gini_score(item, SCORE, user, k=2, catalog=f(CATALOG)),
        "entropy": lambda: exposure_entropy_score(
            item, SCORE, user, k=2, catalog=f(CATALOG)
        ),
        "dist_coverage": lambda: distributional_coverage_score(
            item, SCORE, user, k=2, catalog=f(CATALOG)
        ),
        "ild": lambda: intra_list_diversity_score(
            item, SCORE, user, k=3, item_categories=GENRES
        ),
        "calibration": lambda: calibration_score(
            item,
            SCORE,
            user,
            k=2,
            categories=GENRES,
            history=(f(HIST_USER), f(HIST_ITEM)),
        ),
    }


@pytest.mark.parametrize("name", sorted(calls(as_list)))
def test_list_array_and_series_give_the_same_number(name):
    got = [calls(f)[name]() for f in FORMS]
    assert np.isfinite(got[0])
    assert got[1] == got[0] and got[2] == got[0], got


def test_the_issue_case_by_hand():
    # Counts 4, 2, 1, 1; user 10's top 2 = items 0, 1 (4, 2); user 11's = 0, 3.
    s = pd.Series(LOG, name="item_id")
    assert average_popularity_score(ITEM, SCORE, USER, popularity=s, k=2) == 2.75
    # Novelty in bits: -log2(4/8), -log2(2/8) -> 1.5; -log2(4/8), -log2(1/8) -> 2.
    assert novelty_score(ITEM, SCORE, USER, popularity=s, k=2) == 1.75
    # The same counts as a dict.
    counts = {0: 4, 1: 2, 2: 1, 3: 1}
    assert average_popularity_score(ITEM, SCORE, USER, popularity=counts, k=2) == 2.75


def test_mean_item_id_is_not_the_popularity():
    # On a larger log the ARP of a Series log equals the ARP of its counts,
    # and not the mean recommended item id (what reading index -> value gave).
    rng = np.random.default_rng(0)
    log = pd.Series(rng.zipf(1.5, 4000) % 300 + 1000, index=rng.permutation(4000))
    item = np.tile(np.arange(1000, 1300), 20)
    user = np.repeat(np.arange(20), 300)
    score = rng.random(item.size)
    counts = log.value_counts().to_dict()
    kw = dict(k=10, missing="zero")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = average_popularity_score(item, score, user, popularity=log, **kw)
        b = average_popularity_score(item, score, user, popularity=counts, **kw)
    assert a == pytest.approx(b, rel=1e-12)
    assert a < 200  # the mean recommended id is about 1150


def test_value_counts_series_is_refused_with_a_working_hint():
    counts = pd.Series(LOG).value_counts()
    with pytest.raises(ValueError, match=r"named 'count'.*counts\.to_dict\(\)"):
        average_popularity_score(ITEM, SCORE, USER, popularity=counts, k=2)
    # The hint works.
    got = average_popularity_score(ITEM, SCORE, USER, popularity=counts.to_dict(), k=2)
    assert got == 2.75


def test_counts_in_an_unnamed_series_get_the_hint():
    counts = pd.Series({"a": 4, "b": 2, "c": 1, "d": 1})
    item = ["a", "b", "c", "a", "d", "b"]
    with pytest.raises(ValueError, match=r"its index holds the missing items"):
        novelty_score(item, SCORE, USER, popularity=counts, k=2)
    assert novelty_score(item, SCORE, USER, popularity=counts.to_dict(), k=2) == 1.75


def test_novelty_missing_hint_leads_to_a_number():
    counts = {0: 4, 1: 2, 2: 1}  # item 3 is missing
    with pytest.raises(ValueError, match=r"Pass missing='one'"):
        novelty_score(ITEM, SCORE, USER, popularity=counts, k=2)
    with pytest.warns(UserWarning, match=r"count with popularity 1 \(missing='one'\)"):
        got = novelty_score(ITEM, SCORE, USER, popularity=counts, k=2, missing="one")
    # p = 4/7, 2/7 for user 10; 4/7 and 1/7 (counted once) for user 11.
    want = (
        -math.log2(4 / 7) - math.log2(2 / 7) - math.log2(4 / 7) - math.log2(1 / 7)
    ) / 4
    assert got == pytest.approx(want, abs=1e-15)
    # missing="zero" is refused by novelty with the hint that works.
    with (
        pytest.warns(UserWarning),
        pytest.raises(ValueError, match=r"infinite.*Pass missing='one'"),
    ):
        novelty_score(ITEM, SCORE, USER, popularity=counts, k=2, missing="zero")
    with pytest.raises(ValueError, match=r"Give it a positive count"):
        novelty_score(ITEM, SCORE, USER, popularity={**counts, 3: 0}, k=2)


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (pd.DataFrame({"item": LOG}), r"got a DataFrame"),
        ({0: "many", 1: 2, 2: 1, 3: 1}, r"read as counts by item, but its values"),
        ("0001", r"must be a dict mapping item id to count"),
    ],
)
def test_ambiguous_popularity_is_refused(value, match):
    with pytest.raises((TypeError, ValueError), match=match):
        average_popularity_score(ITEM, SCORE, USER, popularity=value, k=2)


def test_a_series_of_single_ids_by_user_is_not_a_history():
    # {user: items} as a Series of scalar ids would be read id by id (a string
    # id character by character): refused with the grouping that works.
    history = pd.Series(["ab", "cd"], index=[10, 11])
    item = ["ab", "cd", "ab", "cd"]
    kw = dict(categories={"ab": "x", "cd": "y"}, k=1)
    with pytest.raises(TypeError, match=r"groupby\(level=0\)\.agg\(list\)"):
        calibration_score(item, [2, 1, 1, 2], [10, 10, 11, 11], history=history, **kw)
    grouped = history.groupby(level=0).agg(list)
    assert calibration_score(
        item, [2, 1, 1, 2], [10, 10, 11, 11], history=grouped, **kw
    ) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(TypeError, match=r"primitive maps each user to a collection"):
        serendipity_score(
            [1, 1, 1, 1],
            [2, 1, 1, 2],
            [10, 10, 11, 11],
            item_id=item,
            popularity=item,
            primitive=history,
            k=1,
        )
