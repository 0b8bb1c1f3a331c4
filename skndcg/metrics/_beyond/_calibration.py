"""Calibration of a user's list to the user's history (Steck, 2018)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from .._core._validate import as_1d
from ._items import mapping_index, py, qid_item_pairs
from ._listwise import finish, top_k_lists


def _history(history):
    """(qid, item) arrays from a mapping {qid: items} or a pair of arrays."""
    if isinstance(history, (dict, pd.Series)):
        # (Object arrays: numpy would turn ids of mixed types into strings.)
        pairs = qid_item_pairs(history, "history")
        return tuple(mapping_index(p[j] for p in pairs).to_numpy() for j in (0, 1))
    if isinstance(history, tuple) and len(history) == 2:
        q = as_1d(history[0], "history[0] (qid)", allow_object=True)
        i = as_1d(history[1], "history[1] (item_id)", allow_object=True)
        if q.shape != i.shape:
            raise ValueError(
                f"history's qid and item_id arrays differ in length ({q.shape[0]} "
                f"and {i.shape[0]})."
            )
        return q, i
    raise TypeError(
        "history must be a mapping {qid: items} or a pair (qid, item_id) of "
        f"arrays of the training log, got {type(history).__name__}."
    )


def _category_matrix(categories, items: pd.Index):
    """Sparse (n_items, n_categories) matrix of p(category | item)."""
    if isinstance(categories, dict):
        table = pd.Series(
            list(categories.values()), index=list(categories), dtype=object
        )
    elif isinstance(categories, pd.Series):
        table = categories.astype(object)
    else:
        raise TypeError(
            "categories must be a mapping from item id to a category or a "
            f"collection of categories (dict or pandas Series), got "
            f"{type(categories).__name__}."
        )
    if not table.index.is_unique:
        raise ValueError(
            f"categories has the item {py(table.index[table.index.duplicated()][0])!r} "
            "more than once."
        )
    found = table.reindex(items)
    absent = found.isna().to_numpy()
    if absent.any():
        raise ValueError(
            f"categories has no category for {int(absent.sum())} item(s) of the "
            f"lists or the history (first {py(items[np.flatnonzero(absent)[0]])!r}); "
            "every item needs at least one category."
        )
    exploded = pd.Series(found.to_numpy(), dtype=object).explode()
    if exploded.isna().any():
        bad = int(exploded.index[exploded.isna().to_numpy()][0])
        raise ValueError(
            f"categories gives item {py(items[bad])!r} an empty collection; every "
            "item needs at least one category."
        )
    owner = exploded.index.to_numpy().astype(np.int64)
    lab, labels = pd.factorize(exploded.to_numpy())
    pairs = pd.DataFrame({"o": owner, "l": lab}).drop_duplicates()
    owner, lab = pairs["o"].to_numpy(), pairs["l"].to_numpy()
    share = 1.0 / np.bincount(owner, minlength=len(items))[owner]
    shape = (len(items), len(labels))
    return sparse.csr_matrix((share, (owner, lab)), shape=shape)


def calibration_score(
    item_id,
    y_score,
    qid,
    *,
    history,
    categories,
    alpha=0.01,
    k=10,
    ties="average",
    per_query=False,
):
    """Miscalibration: KL divergence of a list's categories from the history's.

    Steck (2018): ``p(g|u)`` is the distribution over categories ``g`` of the
    items the user interacted with in training, ``q(g|u)`` that of the user's
    top ``k``, each item spreading one unit equally over its categories
    (``p(g|i) = 1 / |G(i)|``). Miscalibration is
    ``C_KL = sum_g p(g|u) log(p(g|u) / q~(g|u))`` with
    ``q~ = (1 - alpha) q + alpha p`` (Steck's smoothing, which keeps it
    finite when the list misses a category of the history). 0 is perfectly
    calibrated; lower is better. Natural logarithm (nats).

    Parameters
    ----------
    item_id, y_score, qid : array-like of shape (n_samples,)
        Item, score and query (user) of every row.
    history : mapping or tuple
        The training log: ``{qid: items}`` or a pair ``(qid, item_id)`` of
        arrays, one entry per interaction (repeats weigh more). Users without
        a history are skipped (NaN per query).
    categories : dict or pandas Series
        Item id -> category, or a collection of categories. Every item of the
        lists and of the history needs one.
    alpha : float in [0, 1), default=0.01
        Smoothing of ``q`` towards ``p``.
    k : int or None, default=10
        Cut-off.
    ties : {"average", "stable", "reverse"}, default="average"
        As in :func:`novelty_score`; with ``"average"`` a row of a tied block
        straddling the cut-off counts in ``q`` with its probability of
        entering the top ``k``.
    per_query : bool, default=False
        Return a DataFrame with ``qid`` and each user's value.

    Returns
    -------
    miscalibration : float or pandas.DataFrame

    References
    ----------
    .. [1] Harald Steck, "Calibrated recommendations", RecSys 2018.

    Examples
    --------
    >>> from skndcg.metrics import calibration_score
    >>> cats = {"a": "x", "b": "y", "c": ["x", "y"]}
    >>> history = {1: ["a", "a", "c"]}
    >>> round(calibration_score(["a", "b", "c"], [3, 2, 1], [1, 1, 1],
    ...                         history=history, categories=cats, k=2,
    ...                         alpha=0.0), 4)
    0.2426
    """
    if (
        isinstance(alpha, bool)
        or not isinstance(alpha, (int, float))
        or not 0 <= alpha < 1
    ):
        raise ValueError(f"alpha must be a number in [0, 1), got {alpha!r}.")
    lists = top_k_lists(item_id, y_score, qid, k, ties)
    hq, hi = _history(history)
    users = pd.Index(lists.keys)
    hu = users.get_indexer(hq)
    mine = hu >= 0  # history of the users being scored only
    hu, hi = hu[mine], hi[mine]
    items = pd.Index(lists.uniques).append(pd.Index(hi)).unique()
    C = _category_matrix(categories, items)
    n_q = users.shape[0]
    hcode = items.get_indexer(hi)
    lcode = items.get_indexer(lists.uniques)[lists.item]
    shape = (n_q, len(items))
    H = sparse.csr_matrix((np.ones(hu.shape[0]), (hu, hcode)), shape=shape)
    L = sparse.csr_matrix((lists.prob, (lists.gid, lcode)), shape=shape)
    P = np.asarray((H @ C).todense())
    Q = np.asarray((L @ C).todense())
    with np.errstate(invalid="ignore", divide="ignore"):
        P = P / P.sum(1, keepdims=True)
        Q = Q / Q.sum(1, keepdims=True)
        smooth = (1 - alpha) * Q + alpha * P
        terms = np.where(P > 0, P * np.log(P / smooth), 0.0)
    values = terms.sum(1)
    has = np.bincount(hu, minlength=n_q) > 0
    values = np.where(has & (lists.length > 0), values, np.nan)
    return finish(
        values, lists.keys, "miscalibration", k, per_query, "no user has a history"
    )
