"""Every user ranked against the whole catalogue: :func:`full_catalogue_report`."""

from __future__ import annotations

import re
from numbers import Integral

import numpy as np
import pandas as pd

from ..metrics import ranking_report
from ..utils._interactions import check_frame

_CUTOFF = re.compile(r"@\s*(\d+)\s*$")


def _cutoffs(metrics, top_n):
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics must name at least one metric, got none.")
    for name in names:
        match = _CUTOFF.search(str(name))
        if match is None:
            raise ValueError(
                f"metric {name!r} has no cut-off; full-catalogue evaluation keeps "
                f"the top {top_n} items per user, so every metric needs one, "
                "e.g. 'ndcg@10'."
            )
        if int(match.group(1)) > top_n:
            raise ValueError(
                f"metric {name!r} looks deeper than top_n={top_n}; raise top_n "
                f"to at least {match.group(1)}."
            )
    return names


def _score_function(scores, features):
    """``f(user_ids, item_ids) -> (n_users, n_items)`` from any accepted source."""
    if isinstance(scores, pd.DataFrame):
        if features is not None:
            raise ValueError("features is only used with an estimator, not a matrix.")

        def from_matrix(users, items):
            missing_u = pd.Index(users).difference(scores.index)
            missing_i = pd.Index(items).difference(scores.columns)
            if len(missing_u) or len(missing_i):
                raise ValueError(
                    "the score matrix must have a row per user and a column per "
                    f"eligible item; missing users {list(missing_u[:5])}, missing "
                    f"items {list(missing_i[:5])}."
                )
            return scores.reindex(index=users, columns=items).to_numpy(np.float64)

        return from_matrix
    if hasattr(scores, "predict"):
        if features is None:
            raise ValueError(
                "an estimator needs features=, a callable f(user_ids, item_ids) "
                "returning the feature rows of every (user, item) pair, user by "
                "user (len(user_ids) * len(item_ids) rows)."
            )

        def from_estimator(users, items):
            X = features(users, items)
            return np.asarray(scores.predict(X), dtype=np.float64).reshape(
                len(users), len(items)
            )

        return from_estimator
    if callable(scores):
        if features is not None:
            raise ValueError("features is only used with an estimator.")
        return scores
    raise TypeError(
        "scores must be a DataFrame (users x items), a callable "
        "f(user_ids, item_ids) or a fitted estimator with predict, got "
        f"{type(scores).__name__}."
    )


def _codes(values, uniques):
    pos = np.searchsorted(uniques, values)
    pos = np.minimum(pos, uniques.size - 1)
    return pos, uniques[pos] == values


def _block_scores(score_fn, users, items):
    block = np.array(score_fn(users, items), dtype=np.float64)  # a copy: masked below
    if block.shape != (len(users), len(items)):
        raise ValueError(
            f"the scores of {len(users)} users x {len(items)} items must have "
            f"shape {(len(users), len(items))}, got {block.shape}."
        )
    bad = ~np.isfinite(block)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(
            f"scores must be finite; user {_plain(users[r])!r}, item "
            f"{_plain(items[c])!r} scored {float(block[r, c])}."
        )
    return block


def full_catalogue_report(
    scores,
    train,
    test,
    *,
    metrics=("ndcg@10", "recall@10", "map@10"),
    top_n=100,
    exclude_seen=True,
    items=None,
    features=None,
    rel_threshold=None,
    block_size=256,
    return_candidates=False,
):
    """Rank every eligible item for every test user and score the ranking.

    For each user with a held-out item, the model scores every **eligible**
    item: the catalogue (by default the items of ``train``, those that exist
    before the test period) minus, with ``exclude_seen=True``, the items the
    user interacted with in ``train``. Users are scored ``block_size`` at a
    time and only the ``top_n`` best items of each are kept (with every item
    tied with the last one), so memory stays bounded. A held-out item outside
    that list is *judged but not retrieved*: it counts in the ideal DCG and in
    the recall and AP denominators but takes no rank, so every metric with a
    cut-off ``k <= top_n`` is the number the whole ranking gives.

    Parameters
    ----------
    scores : pandas.DataFrame, callable or fitted estimator
        The model: a users x items score matrix (index user ids, columns item
        ids), a callable ``f(user_ids, item_ids)`` returning an array of
        shape ``(len(user_ids), len(item_ids))``, or any fitted estimator with
        ``predict`` (a :class:`~skndcg.ranker.QueryRanker` included) together
        with ``features``. Higher scores rank first; scores must be finite.
    train : pandas.DataFrame
        The interactions before the test period, columns ``user_id`` and
        ``item_id``. It is not modified.
    test : pandas.DataFrame
        The held-out interactions, columns ``user_id``, ``item_id`` and
        optionally ``rating`` (the relevance label; 1 when absent). A held-out
        item that is not eligible for its user (cold, or seen in training with
        ``exclude_seen``) cannot be ranked and is left out; a user left with no
        held-out item is not evaluated.
    metrics : str or sequence of str, default=("ndcg@10", "recall@10", "map@10")
        Metric names with a cut-off at most ``top_n``, as in
        :func:`~skndcg.metrics.ranking_report`.
    top_n : int >= 1, default=100
        Items kept per user.
    exclude_seen : bool, default=True
        Leave each user's training items out of their candidates.
    items : array-like or None, default=None
        The catalogue; None takes the distinct items of ``train``.
    features : callable or None, default=None
        With an estimator: ``features(user_ids, item_ids)`` returns the
        ``len(user_ids) * len(item_ids)`` feature rows of every pair, user by
        user, ready for ``predict``.
    rel_threshold : float or None, default=None
        As in :func:`~skndcg.metrics.ranking_report`.
    block_size : int >= 1, default=256
        Users scored at once: memory grows with ``block_size * n_items``.
    return_candidates : bool, default=False
        Also return the kept rows (``user_id``, ``item_id``, ``score``,
        ``label``; NaN score for a held-out item outside the top).

    Returns
    -------
    report : pandas.DataFrame
        :func:`~skndcg.metrics.ranking_report` with one row per evaluated user
        (``qid`` is the user id), ready for :func:`compare`.
    candidates : pandas.DataFrame
        Only with ``return_candidates=True``.

    Raises
    ------
    ValueError
        When a test user has no eligible item, when ``top_n`` exceeds the
        catalogue, or when a metric has no cut-off or one deeper than
        ``top_n``.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.evaluation import full_catalogue_report
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 12]})
    >>> test = pd.DataFrame({"user_id": [1, 2], "item_id": [12, 10]})
    >>> matrix = pd.DataFrame([[0.1, 0.9, 0.5], [0.8, 0.3, 0.2]],
    ...                       index=[1, 2], columns=[10, 11, 12])
    >>> report = full_catalogue_report(matrix, train, test, metrics="ndcg@2",
    ...                                top_n=2)
    >>> report[["qid", "n_items", "ndcg@2"]]
       qid  n_items  ndcg@2
    0    1        1     1.0
    1    2        2     1.0
    """
    names = _cutoffs(metrics, _positive_int("top_n", top_n))
    _positive_int("block_size", block_size)
    check_frame(train, "train", ("user_id", "item_id"))
    check_frame(test, "test", ("user_id", "item_id"))
    if len(test) == 0 or len(train) == 0:
        raise ValueError(f"train and test need rows, got {len(train)} and {len(test)}.")
    score_fn = _score_function(scores, features)
    catalogue = np.unique(np.asarray(train["item_id"] if items is None else items))
    if top_n > catalogue.size:
        raise ValueError(
            f"top_n={top_n} is larger than the {catalogue.size} eligible items of "
            "the catalogue; lower top_n."
        )
    labels = (
        test["rating"].to_numpy(np.float64)
        if "rating" in test.columns
        else np.ones(len(test))
    )
    test_item, known = _codes(test["item_id"].to_numpy(), catalogue)
    users = np.unique(test["user_id"].to_numpy())
    test_user = np.searchsorted(users, test["user_id"].to_numpy())
    tr_user, tr_known_user = _codes(train["user_id"].to_numpy(), users)
    tr_item, tr_known_item = _codes(train["item_id"].to_numpy(), catalogue)
    seen = np.zeros(0, dtype=np.int64)
    if exclude_seen:
        keep = tr_known_user & tr_known_item
        seen = np.unique(tr_user[keep] * catalogue.size + tr_item[keep])
    n_seen = np.bincount(seen // catalogue.size, minlength=users.size)
    empty = np.flatnonzero(n_seen >= catalogue.size)
    if empty.size:
        raise ValueError(
            f"user {_plain(users[empty[0]])!r} has no eligible item: all "
            f"{catalogue.size} catalogue items are in its training "
            f"interactions ({empty.size} such users); drop these users or pass "
            "exclude_seen=False."
        )
    # Held-out positives: eligible (user, item) pairs, the best label of each.
    pair = test_user * catalogue.size + test_item
    ok = known & ~np.isin(pair, seen)
    pair, lab = pair[ok], labels[ok]
    order = np.lexsort((-lab, pair))
    pair, lab = pair[order], lab[order]
    first = np.ones(pair.size, dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    pair, lab = pair[first], lab[first]
    evaluated = np.unique(pair // catalogue.size)

    out_user, out_item, out_score, out_label = [], [], [], []
    for lo in range(0, evaluated.size, block_size):
        block_users = evaluated[lo : lo + block_size]
        block = _block_scores(score_fn, users[block_users], catalogue)
        span = [block_users[0] * catalogue.size, (block_users[-1] + 1) * catalogue.size]
        if exclude_seen:
            lo_s, hi_s = np.searchsorted(seen, span)
            b_seen = seen[lo_s:hi_s]
            rows = np.searchsorted(block_users, b_seen // catalogue.size)
            rows = np.minimum(rows, block_users.size - 1)
            mine = block_users[rows] == b_seen // catalogue.size
            block[rows[mine], b_seen[mine] % catalogue.size] = -np.inf
        threshold = -np.partition(-block, top_n - 1, axis=1)[:, top_n - 1]
        kept = (block >= threshold[:, None]) & np.isfinite(block)
        r, c = np.nonzero(kept)
        key = block_users[r] * catalogue.size + c
        # Positives of this block: retrieved ones get their label, others NaN.
        lo_p, hi_p = np.searchsorted(pair, span)
        bpair, blab = pair[lo_p:hi_p], lab[lo_p:hi_p]
        hit = np.searchsorted(bpair, key)
        hit_ok = (hit < bpair.size) & (bpair[np.minimum(hit, bpair.size - 1)] == key)
        row_label = np.where(hit_ok, blab[np.minimum(hit, bpair.size - 1)], 0.0)
        missed = ~np.isin(bpair, key)
        out_user += [block_users[r], bpair[missed] // catalogue.size]
        out_item += [c, bpair[missed] % catalogue.size]
        out_score += [block[r, c], np.full(int(missed.sum()), np.nan)]
        out_label += [row_label, blab[missed]]
    cand = pd.DataFrame(
        {
            "user_id": users[np.concatenate(out_user)] if out_user else users[:0],
            "item_id": catalogue[np.concatenate(out_item)] if out_item else [],
            "score": np.concatenate(out_score) if out_score else [],
            "label": np.concatenate(out_label) if out_label else [],
        }
    )
    if not evaluated.size:
        raise ValueError(
            "no test user has a held-out item among its eligible items; nothing "
            "to evaluate."
        )
    report = ranking_report(
        cand["label"].to_numpy(),
        cand["score"].to_numpy(),
        cand["user_id"].to_numpy(),
        metrics=names,
        rel_threshold=rel_threshold,
        nan_score="unretrieved",
        queries="judged",
    )
    return (report, cand) if return_candidates else report


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
    return int(value)


def _plain(value):
    """A numpy scalar as the Python value it holds, for messages."""
    return value.item() if isinstance(value, np.generic) else value
