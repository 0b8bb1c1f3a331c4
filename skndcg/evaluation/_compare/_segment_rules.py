"""Built-in segment rules for ``compare(..., by=...)``: each labels the queries
from data the evaluation does not hold, so a query absent from it still gets one."""

from __future__ import annotations

from itertools import pairwise
from numbers import Integral, Real

import numpy as np
import pandas as pd


def _as_log(values, name):
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be one-dimensional (one entry per interaction), got shape "
            f"{arr.shape}."
        )
    return arr


def history_segments(history_qid, *, bins=(1,), users=None):
    """Rule: segment the users (queries) by their number of past interactions.

    The cold-user rule of the recommender literature: a user with fewer than
    ``bins[0]`` past interactions is cold (with the default, a user without
    a past), and further bins split the rest.

    Parameters
    ----------
    history_qid : array-like of shape (n_interactions,)
        The user of every interaction of the training log: the query ids
        themselves when each user is one query, else the ids that ``users``
        maps the queries to.
    bins : sequence of int, default=(1,)
        Increasing thresholds ``t_1 < t_2 < ...``: the segments are
        ``"< t_1"`` (``"no past"`` when ``t_1 = 1``), ``"t_1-(t_2 - 1)"``,
        ..., ``">= t_last"`` interactions.
    users : DataFrame, dict, pandas Series or (qid, user_id) pair, default=None
        The user of each query, when a query is not a user: for example the
        user-months of :func:`~skndcg.datasets.make_ranking_task`, whose ``X``
        (columns ``qid`` and ``user_id``) can be passed as it is. A dict or a
        Series maps query id to user id; a pair holds two arrays of one
        length. ``None``: the query ids are the ids of ``history_qid``.

    Returns
    -------
    rule : callable
        ``rule(qids)`` returns one label per query id.

    Examples
    --------
    >>> from skndcg.evaluation import history_segments
    >>> rule = history_segments([1, 1, 1, 2], bins=(1, 3))
    >>> rule([1, 2, 3]).tolist()
    ['>= 3', '1-2', 'no past']

    Queries that are users in time windows (query 10 is user 1 in January,
    query 11 user 3 in February):

    >>> rule = history_segments([1, 1, 1, 2], users={10: 1, 11: 3})
    >>> rule([10, 11]).tolist()
    ['>= 1', 'no past']
    """
    log = _as_log(history_qid, "history_qid")
    if isinstance(bins, str) or not np.iterable(bins):
        raise ValueError(
            "bins must be a sequence of increasing integers >= 1, such as (1, 5), "
            f"got {bins!r}."
        )
    bins = list(bins)
    if (
        not bins
        or any(
            isinstance(b, bool) or not isinstance(b, Integral) or b < 1 for b in bins
        )
        or any(b2 <= b1 for b1, b2 in pairwise(bins))
    ):
        raise ValueError(f"bins must be increasing integers >= 1, got {bins!r}.")
    counts = pd.Series(log).value_counts()
    user_of = None if users is None else _user_of_query(users)
    names = ["no past" if bins[0] == 1 else f"< {bins[0]}"]
    for lo, hi in pairwise(bins):
        names.append(f"{lo}" if hi - 1 == lo else f"{lo}-{hi - 1}")
    names.append(f">= {bins[-1]}")

    def rule(qids):
        qids = pd.Index(np.asarray(qids))
        if user_of is None:
            _check_same_kind(qids, counts.index)
            who = qids
        else:
            found = user_of.reindex(qids)
            if found.isna().any():
                bad = qids[found.isna().to_numpy()][:5].tolist()
                raise ValueError(
                    f"users gives no user for the queries {bad}; it must map "
                    "every query compared to its user."
                )
            who = pd.Index(found.to_numpy())
        n = counts.reindex(who).fillna(0).to_numpy()
        return np.asarray(names, dtype=object)[np.searchsorted(bins, n, "right")]

    return rule


def _user_of_query(users) -> pd.Series:
    """Query id -> user id, from the forms ``history_segments`` accepts."""
    if isinstance(users, pd.DataFrame):
        missing = [c for c in ("qid", "user_id") if c not in users.columns]
        if missing:
            raise ValueError(
                f"users is a DataFrame without the column(s) {missing}; it needs "
                "'qid' and 'user_id' (as make_ranking_task's X has), got columns "
                f"{list(users.columns)[:10]}."
            )
        q, u = users["qid"].to_numpy(), users["user_id"].to_numpy()
    elif isinstance(users, (dict, pd.Series)):
        table = pd.Series(users)
        q, u = table.index.to_numpy(), table.to_numpy()
    elif isinstance(users, tuple) and len(users) == 2:
        q, u = _as_log(users[0], "users[0] (qid)"), _as_log(users[1], "users[1]")
        if q.shape != u.shape:
            raise ValueError(
                f"users' qid and user arrays differ in length ({q.shape[0]} and "
                f"{u.shape[0]})."
            )
    else:
        raise TypeError(
            "users must be a DataFrame with 'qid' and 'user_id' columns, a dict "
            "or Series from query id to user id, or a (qid, user_id) pair, got "
            f"{type(users).__name__}."
        )
    pairs = pd.DataFrame({"q": q, "u": u}).drop_duplicates()
    if pairs["u"].isna().any():
        bad = pairs["q"][pairs["u"].isna()].tolist()[0]
        raise ValueError(f"users gives query {bad!r} no user (a missing value).")
    twice = pairs["q"].duplicated()
    if twice.any():
        bad = pairs["q"][twice].tolist()[0]
        who = pairs["u"][pairs["q"] == bad].tolist()[:3]
        raise ValueError(
            f"users maps query {bad!r} to more than one user ({who}); each "
            "query belongs to one user."
        )
    return pd.Series(pairs["u"].to_numpy(), index=pairs["q"].to_numpy())


def _check_same_kind(qids: pd.Index, users: pd.Index) -> None:
    """Refuse query ids that cannot be the log's ids (numbers against text)."""
    if qids.empty or users.empty or qids.isin(users).any():
        return
    if _kind(qids) != _kind(users):
        raise ValueError(
            f"history_segments was given ids of another kind than the queries "
            f"(the log holds {_kind(users)} ids such as {users.tolist()[0]!r}, the "
            f"queries are {_kind(qids)} ids such as {qids.tolist()[0]!r}) and "
            "none match. When a query is not a user (for example a user-month "
            "of make_ranking_task), pass users=X (its 'qid' and 'user_id' "
            "columns) so that each query is looked up by its user."
        )


def _kind(index: pd.Index) -> str:
    return "numeric" if pd.api.types.is_numeric_dtype(index) else "text"


def frequency_segments(query_log, *, head=0.5, torso=0.8):
    """Rule: head, torso and tail queries by their frequency in a query log.

    Queries are sorted by decreasing frequency; the most frequent ones that
    together make up the first ``head`` share of the traffic are the head,
    the next ones up to ``torso`` of the traffic the torso, the rest (and
    queries absent from the log) the tail. Comparing by these segments keeps
    a few frequent queries from hiding what happens to the many rare ones.

    Parameters
    ----------
    query_log : array-like of shape (n_requests,) or mapping
        The query id of every request of the log, or a mapping from query id
        to its number of requests.
    head, torso : float in (0, 1], default=0.5 and 0.8
        Cumulative traffic shares that close the head and the torso
        (``head <= torso``).

    Returns
    -------
    rule : callable
        ``rule(qids)`` returns ``"head"``, ``"torso"`` or ``"tail"`` per query.

    Examples
    --------
    >>> from skndcg.evaluation import frequency_segments
    >>> rule = frequency_segments(["a"] * 6 + ["b"] * 2 + ["c", "d"])
    >>> rule(["a", "b", "c", "e"]).tolist()
    ['head', 'torso', 'tail', 'tail']
    """
    for name, v in (("head", head), ("torso", torso)):
        if isinstance(v, bool) or not isinstance(v, Real) or not 0 < v <= 1:
            raise ValueError(f"{name} must be a share in (0, 1], got {v!r}.")
    if head > torso:
        raise ValueError(f"head={head!r} must not exceed torso={torso!r}.")
    if isinstance(query_log, (dict, pd.Series)):
        counts = pd.Series(query_log, dtype=np.float64)
    else:
        counts = pd.Series(_as_log(query_log, "query_log")).value_counts()
    counts = counts.sort_values(ascending=False, kind="stable")
    total = counts.sum()
    if total <= 0:
        raise ValueError("query_log holds no request; pass a non-empty log.")
    # A query belongs to the head when the traffic before it is below `head`.
    before = (counts.cumsum() - counts) / total
    label = np.where(before < head, "head", np.where(before < torso, "torso", "tail"))
    table = pd.Series(label, index=counts.index, dtype=object)

    def rule(qids):
        return table.reindex(pd.Index(np.asarray(qids))).fillna("tail").to_numpy()

    return rule


def cold_item_segments(qid, item_id, y_true, train_item_id):
    """Rule: queries whose relevant items include one never seen in training.

    A query is ``"cold items"`` when at least one of its relevant rows
    (``y_true > 0``) holds an item absent from the training log, else
    ``"warm items"``: the second can be learnt from interactions, the first
    only from content.

    Parameters
    ----------
    qid, item_id, y_true : array-like of shape (n_samples,)
        The evaluation rows: query id, item id and relevance label.
    train_item_id : array-like of shape (n_interactions,)
        The item of every interaction of the training log.

    Returns
    -------
    rule : callable
        ``rule(qids)`` returns ``"cold items"`` or ``"warm items"`` per query.

    Examples
    --------
    >>> from skndcg.evaluation import cold_item_segments
    >>> rule = cold_item_segments([1, 1, 2, 2], ["a", "x", "a", "b"],
    ...                           [1, 1, 1, 0], train_item_id=["a", "b"])
    >>> rule([1, 2]).tolist()
    ['cold items', 'warm items']
    """
    qid, item_id = np.asarray(qid), np.asarray(item_id)
    y = np.asarray(y_true, dtype=np.float64)
    if not qid.shape == item_id.shape == y.shape or qid.ndim != 1:
        raise ValueError(
            "qid, item_id and y_true must be one-dimensional and of one length, got "
            f"shapes {qid.shape}, {item_id.shape} and {y.shape}."
        )
    seen = pd.Index(_as_log(train_item_id, "train_item_id")).unique()
    cold = (y > 0) & ~pd.Index(item_id).isin(seen)
    per_q = pd.Series(cold).groupby(qid).any()

    def rule(qids):
        got = per_q.reindex(pd.Index(np.asarray(qids)))
        if got.isna().any():
            bad = got.index[got.isna()][:5].tolist()
            raise ValueError(
                f"cold_item_segments has no evaluation rows for the queries {bad}."
            )
        return np.where(got.to_numpy(dtype=bool), "cold items", "warm items")

    return rule
