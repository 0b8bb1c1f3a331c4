"""Who enters each top k, for the beyond-accuracy metrics: under ``ties="average"``
each row gets the exact probability that it enters the top ``k`` when each
query's tied rows are ordered uniformly at random."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._conventions import TieRule
from .._core._group import Grouping, group_rows
from .._core._perquery import ranked_order
from .._core._reorder import order_within_queries
from .._core._validate import as_1d, check_finite, check_k, check_length

# The engine's tie rules that need nothing but the scores.
TIES = ("average", "stable", "reverse")


@dataclass
class Ranked:
    """Rows in ranked order: queries in canonical order, best score first."""

    grouping: Grouping
    rows: np.ndarray  # input row of each ranked position
    gid: np.ndarray  # query (canonical index) of each ranked position
    pos: np.ndarray  # 0-based rank within the query
    block_pos: np.ndarray  # rank of the first row of the position's tie block
    block_len: np.ndarray  # size of that tie block (1 unless ties="average")
    qsize: np.ndarray  # size of each query


def check_ties(ties) -> TieRule:
    if not isinstance(ties, str) or ties not in TIES:
        raise ValueError(
            f"ties={ties!r} is not valid here; expected one of {list(TIES)} "
            "(these measures rank by score alone: 'docid' and 'pessimistic' "
            "need document ids or labels)."
        )
    return TieRule.of(ties)


def cutoffs(k, name: str = "k"):
    """A list of cut-offs (checked) and whether a single one was given."""
    if (isinstance(k, Sequence) and not isinstance(k, str)) or isinstance(
        k, np.ndarray
    ):
        ks = list(k)
        if not ks:
            raise ValueError(f"{name} is an empty sequence; give at least one cut-off.")
        return [check_k(x, name) for x in ks], False
    return [check_k(k, name)], True


def rank(y_score, qid, n: int, ties: TieRule) -> Ranked:
    ties = ties if isinstance(ties, TieRule) else check_ties(ties)
    s = as_1d(y_score, "y_score")
    if s.dtype.kind not in "biuf":
        raise TypeError(f"y_score must be numeric, got dtype {s.dtype}.")
    check_length("y_score", s.shape[0], n, "item_id")
    check_finite(s, "y_score")
    q = as_1d(qid, "qid", allow_object=True)
    check_length("qid", q.shape[0], n, "item_id")
    grouping = group_rows(qid, n)
    rows_g = grouping.take(np.arange(n))
    s_g = np.ascontiguousarray(s.astype(np.float64)[rows_g])
    perm = order_within_queries(grouping, s_g, rule=ties)
    if perm is not None:
        rows_g, s_g = rows_g[perm], s_g[perm]
    ranked, _ = ranked_order(s_g, grouping)
    qsize = grouping.sizes.astype(np.int64)
    qstart = np.concatenate(([0], np.cumsum(qsize)[:-1]))
    gid = np.repeat(np.arange(qsize.shape[0]), qsize)
    pos = np.arange(n) - qstart[gid]
    order = ranked[grouping.starts[gid] + pos]
    if ties.average:
        score = s_g[order]
        new = np.ones(n, dtype=bool)
        new[1:] = (gid[1:] != gid[:-1]) | (score[1:] != score[:-1])
        first = np.flatnonzero(new)
        block = np.cumsum(new) - 1
        block_pos = pos[first][block]
        block_len = np.diff(np.append(first, n))[block]
    else:
        block_pos, block_len = pos, np.ones(n, dtype=np.int64)
    return Ranked(grouping, rows_g[order], gid, pos, block_pos, block_len, qsize)


def membership(r: Ranked, k):
    """Per ranked position: probability of being in the top k, boundary flag."""
    if k is None:
        return np.ones(r.pos.shape[0]), np.zeros(r.pos.shape[0], dtype=bool)
    inside = r.block_pos + r.block_len <= k
    boundary = (r.block_pos < k) & ~inside
    prob = np.where(
        inside, 1.0, np.where(boundary, (k - r.block_pos) / r.block_len, 0.0)
    )
    return prob, boundary
