"""Popularity-based measures per user: novelty, ARP/APLT/ACLT, long-tail
recall and serendipity, from the training log's popularity."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._items import check_choice, mapping_index, py, qid_item_pairs
from ._listwise import (
    finish,
    head_of,
    labels_of,
    long_tail_of,
    per_query_mean,
    per_query_sum,
    popularity_of,
    top_k_lists,
)

_COMMON_PARAMS = """
    k : int or None, default=10
        Cut-off: the top ``k`` rows of each query form its list; ``None``
        takes every row.
    ties : {"average", "stable", "reverse"}, default="average"
        Which equally scored rows enter the top ``k``; ``"average"`` counts a
        row of a tied block straddling the cut-off with its probability of
        entering (the exact expectation over random orders of the tie).
    {missing}
    per_query : bool, default=False
        Return a DataFrame with ``qid`` and one value per query (user) instead
        of the mean; pass it to :func:`~skndcg.evaluation.compare`."""

_MISSING = """missing : {"error", "zero"}, default="error"
        A recommended item absent from ``popularity``: an error, or counted
        with popularity 0 (a warning gives how many)."""

_NOVELTY_MISSING = """missing : {"error", "one", "zero"}, default="error"
        A recommended item absent from ``popularity``: an error, or counted as
        seen once (``"one"``; the total stays the log's), or with popularity 0
        (``"zero"``, which novelty refuses: its self-information is infinite);
        a warning gives how many."""


def popularity_doc(f):
    missing = _NOVELTY_MISSING if f.__name__ == "novelty_score" else _MISSING
    common = _COMMON_PARAMS.strip("\n").replace("{missing}", missing)
    f.__doc__ = f.__doc__.replace("    {common}", common)
    return f


@popularity_doc
def novelty_score(
    item_id,
    y_score,
    qid,
    *,
    popularity,
    n_users=None,
    k=10,
    ties="average",
    missing="error",
    per_query=False,
):
    """Mean self-information of the recommended items (novelty@k).

    An item's self-information is ``-log2(p(i))`` with ``p(i)`` the share of
    training users who interacted with it (``popularity[i] / n_users``);
    novelty@k of a user is its mean over the user's top ``k`` (Zhou et al.,
    2010). Rare items are novel: an item every user knows scores 0. This is
    RecTools' ``MeanInvUserFreq`` and MS Recommenders' ``novelty`` when the
    lists are full.

    Parameters
    ----------
    item_id, y_score, qid : array-like of shape (n_samples,)
        Item, score and query (user) of every row.
    popularity : dict or array-like
        Training popularity: a dict mapping item id to the number of training
        users (or interactions) with it, or the training log's item ids (one
        per interaction, counted here) as a list, numpy array or pandas Series.
        A Series is always a log, read by its values whatever its index; give
        counts held in a Series as a dict (``counts.to_dict()``).
    n_users : int, default=None
        Training users, the denominator of ``p(i)``; ``None`` takes the sum of
        the counts (then ``p(i)`` is the item's share of interactions).
    {common}

    Returns
    -------
    novelty : float or pandas.DataFrame
        Mean novelty over users, in bits.

    References
    ----------
    .. [1] T. Zhou, Z. Kuscsik, J.-G. Liu, M. Medo, J. R. Wakeling and Y.-C.
       Zhang, "Solving the apparent diversity-accuracy dilemma of recommender
       systems", PNAS 107(10), 2010.

    Examples
    --------
    >>> from skndcg.metrics import novelty_score
    >>> log = ["a"] * 4 + ["b"] * 2 + ["c", "d"]
    >>> item = ["a", "b", "c", "a", "d", "b"]
    >>> score = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> novelty_score(item, score, qid, popularity=log, k=2)
    1.75
    >>> novelty_score(item, score, qid, popularity=log, k=2, per_query=True)
       qid  novelty@2
    0    1        1.5
    1    2        2.0
    """
    lists = top_k_lists(item_id, y_score, qid, k, ties)
    pop, table = popularity_of(
        popularity, lists.uniques, missing, allowed=("error", "one", "zero")
    )
    total = float(table.sum()) if n_users is None else check_n_users(n_users, table)
    if (pop[lists.item] == 0).any():
        first = py(lists.uniques[lists.item[pop[lists.item] == 0][0]])
        fix = (
            "Pass missing='one' to count an item absent from popularity as seen once."
            if first not in table.index
            else "Give it a positive count in popularity or leave it out."
        )
        raise ValueError(
            f"item {first!r} is recommended but has popularity 0: its "
            "self-information -log2(0) is infinite; novelty needs every "
            f"recommended item seen in training. {fix}"
        )
    info = -np.log2(pop / total)
    values = per_query_mean(lists, info[lists.item])
    return finish(values, lists.keys, "novelty", k, per_query, "empty lists")


def check_n_users(n_users, table):
    if isinstance(n_users, bool) or not isinstance(n_users, (int, np.integer)):
        raise TypeError(f"n_users must be an int, got {n_users!r}.")
    top = float(table.max()) if table.size else 0.0
    if n_users < top or n_users <= 0:
        raise ValueError(
            f"n_users={n_users!r} is below the largest popularity count ({top:g}); "
            "n_users is the number of training users, so no item can have more."
        )
    return float(n_users)


_MEASURES = ("arp", "aplt", "aclt")


@popularity_doc
def average_popularity_score(
    item_id,
    y_score,
    qid,
    *,
    popularity,
    measure="arp",
    long_tail=0.2,
    k=10,
    ties="average",
    missing="error",
    per_query=False,
):
    """Popularity bias of the lists: ARP, APLT (long-tail share) or ACLT.

    - ``"arp"``, average recommendation popularity: the mean training
      popularity of the items of a user's top ``k``;
    - ``"aplt"``, average percentage of long-tail items: the share of the
      user's top ``k`` in the long tail (the long-tail share);
    - ``"aclt"``, average coverage of long-tail items: how many long-tail
      items the top ``k`` holds.

    Each is averaged over users (Abdollahpouri et al., 2017 and 2019).

    Parameters
    ----------
    item_id, y_score, qid : array-like of shape (n_samples,)
        Item, score and query (user) of every row.
    popularity : dict or array-like
        Training popularity (a dict of counts, or the log's item ids), as in
        :func:`novelty_score`.
    measure : {"arp", "aplt", "aclt"}, default="arp"
        The measure.
    long_tail : float in (0, 1) or collection, default=0.2
        The long tail: every item but the head, the ``ceil(long_tail * n)``
        most popular of the ``n`` items of ``popularity`` (ties at the cut
        all in the head); or the long-tail item ids themselves.
    {common}

    Returns
    -------
    value : float or pandas.DataFrame

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher, "Controlling popularity
       bias in learning-to-rank recommendation", RecSys 2017 (APLT).
    .. [2] H. Abdollahpouri, R. Burke and B. Mobasher, "Managing popularity
       bias in recommender systems with personalized re-ranking", FLAIRS 2019
       (ARP, ACLT).

    Examples
    --------
    >>> from skndcg.metrics import average_popularity_score
    >>> log = ["a"] * 4 + ["b"] * 2 + ["c", "d"]
    >>> item = ["a", "b", "c", "a", "d", "b"]
    >>> score = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> average_popularity_score(item, score, qid, popularity=log, k=2)
    2.75
    >>> average_popularity_score(item, score, qid, popularity=log, k=2,
    ...                          measure="aplt", long_tail=0.25)
    0.5
    """
    check_choice("measure", measure, _MEASURES)
    lists = top_k_lists(item_id, y_score, qid, k, ties)
    pop, table = popularity_of(popularity, lists.uniques, missing)
    tail = long_tail_of(long_tail, table, lists.uniques).astype(np.float64)
    reduce = per_query_sum if measure == "aclt" else per_query_mean
    values = reduce(lists, (pop if measure == "arp" else tail)[lists.item])
    return finish(values, lists.keys, measure, k, per_query, "empty lists")


@popularity_doc
def long_tail_recall_score(
    y_true,
    y_score,
    qid,
    *,
    item_id,
    popularity,
    long_tail=0.2,
    k=10,
    ties="average",
    missing="error",
    per_query=False,
):
    """Recall@k restricted to the relevant items of the long tail.

    Of a user's relevant rows (``y_true > 0``) whose item is in the long tail,
    the share that reaches the top ``k``; users without a relevant long-tail
    item are skipped. Plain recall can rise while the long tail is never
    recommended; this one cannot.

    Parameters
    ----------
    y_true, y_score, qid : array-like of shape (n_samples,)
        Relevance label, score and query (user) of every row.
    item_id : array-like of shape (n_samples,)
        Item of every row.
    popularity : dict or array-like
        Training popularity (a dict of counts, or the log's item ids), as in
        :func:`novelty_score`.
    long_tail : float in (0, 1) or collection, default=0.2
        As in :func:`average_popularity_score`.
    {common}

    Returns
    -------
    recall : float or pandas.DataFrame
        NaN for users skipped (per query).

    References
    ----------
    .. [1] Y.-J. Park and A. Tuzhilin, "The long tail of recommender
       systems and how to leverage it", RecSys 2008.

    Examples
    --------
    >>> from skndcg.metrics import long_tail_recall_score
    >>> log = ["a"] * 4 + ["b"] * 2 + ["c", "d"]
    >>> item = ["a", "b", "c", "a", "d", "b"]
    >>> y = [1, 0, 1, 0, 1, 1]
    >>> score = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> long_tail_recall_score(y, score, qid, item_id=item, popularity=log,
    ...                        long_tail=0.25, k=2)
    0.25
    """
    lists = top_k_lists(item_id, y_score, qid, k, ties)
    y = labels_of(y_true, lists.codes.shape[0])
    _, table = popularity_of(popularity, lists.uniques, missing)
    tail = long_tail_of(long_tail, table, lists.uniques)
    wanted = (y > 0) & tail[lists.codes]
    n_q = lists.length.shape[0]
    r = lists.ranked
    denom = np.bincount(r.gid, weights=wanted[r.rows].astype(np.float64), minlength=n_q)
    values = per_query_mean(lists, wanted[lists.row].astype(np.float64), denom)
    what = "no user has a relevant long-tail item"
    return finish(values, lists.keys, "long_tail_recall", k, per_query, what)


@popularity_doc
def serendipity_score(
    y_true,
    y_score,
    qid,
    *,
    item_id,
    popularity,
    primitive="popular",
    k=10,
    ties="average",
    missing="error",
    per_query=False,
):
    """Share of a user's top ``k`` that is relevant and unexpected.

    Serendipity@k (Ge et al., 2010, after Murakami et al., 2008): the items
    of the top ``k`` that are relevant (``y_true > 0``) and that a primitive
    recommender would not have shown, divided by ``k``. The primitive
    recommender is stated by ``primitive``: ``"popular"`` recommends every
    user the ``k`` most popular training items (ties at the cut included);
    or give each user's primitive list as a mapping.

    Parameters
    ----------
    y_true, y_score, qid : array-like of shape (n_samples,)
        Relevance label, score and query (user) of every row.
    item_id : array-like of shape (n_samples,)
        Item of every row.
    popularity : dict or array-like
        Training popularity (a dict of counts, or the log's item ids), as in
        :func:`novelty_score`.
    primitive : "popular" or mapping, default="popular"
        The primitive recommender: most popular, or ``{qid: items}``.
    {common}

    Returns
    -------
    serendipity : float or pandas.DataFrame

    References
    ----------
    .. [1] M. Ge, C. Delgado-Battenfeld and D. Jannach, "Beyond accuracy:
       evaluating recommender systems by coverage and serendipity", RecSys
       2010.
    .. [2] T. Murakami, K. Mori and R. Orihara, "Metrics for evaluating the
       serendipity of recommendation lists", JSAI 2007, LNCS 4914, 2008.

    Examples
    --------
    >>> from skndcg.metrics import serendipity_score
    >>> log = ["a"] * 4 + ["b"] * 2 + ["c", "d"]
    >>> item = ["a", "b", "c", "a", "d", "b"]
    >>> y = [1, 0, 1, 0, 1, 1]
    >>> score = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> serendipity_score(y, score, qid, item_id=item, popularity=log, k=2)
    0.25
    """
    lists = top_k_lists(item_id, y_score, qid, k, ties)
    y = labels_of(y_true, lists.codes.shape[0])
    _, table = popularity_of(popularity, lists.uniques, missing)
    if isinstance(primitive, str) and primitive == "popular":
        if k is None:
            raise ValueError("primitive='popular' needs a cut-off k (not None).")
        unexpected = ~head_of(table, lists.uniques, k)[lists.item]
    elif isinstance(primitive, (dict, pd.Series)):
        pairs = qid_item_pairs(primitive, "primitive")
        users = mapping_index(dict(primitive))
        if len(users) and not users.isin(lists.keys).any():
            raise ValueError(
                f"primitive has a list for none of the queries of qid (first "
                f"{py(users[0])!r}, {type(users[0]).__name__}; a query id is "
                f"{py(lists.keys[0])!r}, {type(py(lists.keys[0])).__name__}); key it "
                "by the query ids as qid spells them."
            )
        unexpected = np.ones(lists.item.shape[0], dtype=bool)
        if pairs:
            mine = pd.MultiIndex.from_arrays(
                [lists.keys[lists.gid], lists.uniques[lists.item]]
            )
            unexpected = ~mine.isin(pd.MultiIndex.from_tuples(pairs))
    else:
        raise TypeError(
            "primitive must be 'popular' or a mapping {qid: items}, got "
            f"{primitive!r}."
        )
    good = (y[lists.row] > 0) & unexpected
    size = lists.length if k is None else np.full(lists.length.shape[0], float(k))
    values = per_query_mean(lists, good.astype(np.float64), size)
    return finish(values, lists.keys, "serendipity", k, per_query, "empty lists")
