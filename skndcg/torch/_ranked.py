"""Rows grouped by query and ranked into tie blocks, with segment operations only
(scatter-adds: no Python code runs per query)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..metrics._shared import quicksort_order
from . import _ops
from ._ops import count, rank_within, segment_sum, take


@dataclass
class Ranked:
    """A batch of queries ranked into blocks (all tensors on one device)."""

    n_queries: int
    n_rows: torch.Tensor  # judged rows per query (retrieved or not)
    n_retrieved: torch.Tensor
    n_relevant: torch.Tensor  # binary-relevant rows per query, retrieved or not
    block_query: torch.Tensor
    block_start: torch.Tensor  # 0-based rank of the block's first row
    block_size: torch.Tensor
    block_gain: torch.Tensor
    block_rel: torch.Tensor
    row_block: torch.Tensor  # per ranked row
    row_pos: torch.Tensor
    all_query: torch.Tensor  # every judged row, grouped by query
    all_label: torch.Tensor
    all_gain: torch.Tensor
    gain: object  # the convention's Gain rule
    max_rows: int
    max_retrieved: int
    row_query: torch.Tensor | None = None  # per ranked row
    row_label: torch.Tensor | None = None
    row_unjudged: torch.Tensor | None = None
    n_unjudged: torch.Tensor | None = None
    row_rel: torch.Tensor | None = None
    int_labels: bool = False  # labels known to be integers >= 0
    row_pooled: torch.Tensor | None = None  # judged negative under trec_eval
    # Queries with tied rows that a measure may tell apart (other labels or
    # judgment flags); set for rows ranked one by one (``tie_queries``).
    mixed_ties: torch.Tensor | None = None

    # What a measure's tensor kernel reads besides the fields: the shared
    # operations, and the per-query steps every per-query kernel takes.
    ops = _ops

    def kk(self, k):
        """Ranks read per query: ``min(k, n_retrieved)``."""
        return self.n_retrieved if k is None else torch.clamp(self.n_retrieved, max=k)

    def inside(self, k):
        """Per ranked row, whether it is among its query's top ``k``."""
        return self.row_pos < self.kk(k)[self.row_query]

    def sum(self, values):
        """Per query, the sum of ``values`` over its ranked rows."""
        return segment_sum(values, self.row_query, self.n_queries)

    def running(self, flag):
        """Per ranked row, the rows with ``flag`` up to and including it."""
        return _ops.running_sum(flag.to(torch.int64), self.row_query, self.n_queries)

    def hits(self, k, dtype, flag=None):
        """Relevant rows (or rows with ``flag``) among each query's top ``k``."""
        on = self.inside(k) & (self.row_rel if flag is None else flag)
        return self.sum(on.to(dtype))

    def ideal_rows(self):
        """``(query, position, label)`` of every judged row in the ideal order
        (labels descending within each query)."""
        order, query, _ = _order(self.all_query, self.all_label, None, stable=False)
        pos = rank_within(query, self.n_queries)
        return query, pos, take(self.all_label, order)

    def retrieved(self, value):
        """``value``, with 0 for a query that retrieved nothing (the engine's
        loop does not call a measure for it)."""
        return torch.where(self.n_retrieved > 0, value, torch.zeros_like(value))


_LOW = 1 << 32


def _desc_bits(x):
    """float32 -> int64 in [0, 2**32), decreasing as ``x`` increases."""
    bits = (x + 0.0).view(torch.int32)  # + 0.0 folds -0.0 into 0.0
    ordered = torch.where(bits >= 0, bits, bits ^ 0x7FFFFFFF)
    return (~ordered).to(torch.int64) + (1 << 31)


def _order(indexes, values, retrieved, stable):
    """Row order by query id, then by ``values`` descending (NaN rows last).

    One sort of a 64-bit key (query id in the high half, the value's float32
    bits in the low half) when the values fit float32 and the ids span less
    than 2**31; otherwise a sort by value and a stable sort by query id.
    """
    lo = indexes.min()
    span = int(indexes.max() - lo)
    if span < (1 << 31) and (
        values.dtype == torch.float32
        or bool((values.to(torch.float32).to(values.dtype) == values).all())
    ):
        v = values.to(torch.float32)
        if retrieved is None:  # no NaN: two fewer passes over the rows
            low = _desc_bits(v)
        else:
            low = torch.where(
                retrieved, _desc_bits(torch.where(retrieved, v, 0.0)), _LOW - 1
            )
        key = (indexes - lo) * _LOW + low
        done = torch.sort(key, stable=stable)
        # The sorted key holds the query id and an equality-preserving score.
        return done.indices, done.values >> 32, done.values & (_LOW - 1)
    v = values
    if retrieved is not None:
        v = torch.where(retrieved, values, torch.full_like(values, -float("inf")))
    first = torch.sort(v, descending=True, stable=stable).indices
    rows = first[torch.sort(indexes[first], stable=True).indices]
    return rows, take(indexes, rows), take(v, rows)


def _codes(sorted_ids):
    """Dense 0-based codes of query ids that are already grouped in order."""
    new = torch.ones_like(sorted_ids, dtype=torch.bool)
    new[1:] = sorted_ids[1:] != sorted_ids[:-1]
    return torch.cumsum(new.to(torch.int64), 0) - 1


def tie_order(rule, *, labels, doc_id, preds, indexes):
    """A permutation of the rows after which a stable ranking realises ``rule``
    (a :class:`~skndcg.metrics._conventions.TieRule`), or None for a rule that
    reorders nothing (``"stable"``, ``"average"``).

    The rule's sort key is sorted stably; ranx's ``"quicksort"`` order is
    computed by the engine's own routine on the CPU: it is the one rule no sort
    on the device reproduces.
    """
    device = labels.device

    def ranx_order():
        q = indexes.detach().cpu().numpy()
        s = preds.detach().cpu().to(torch.float64).numpy()
        return torch.as_tensor(quicksort_order(q, s), device=device)

    key = rule.sort_key(torch, n=labels.numel(), doc_id=doc_id, labels=labels,
                        ranx_order=ranx_order, device=device)  # fmt: skip
    return None if key is None else torch.sort(key, stable=True).indices


def _keep(mask, *arrays):
    """The rows of each array (None passes through) where ``mask`` is set."""
    return [None if a is None else a[mask] for a in arrays]


def rank(
    preds, y, g, indexes, *, gain, average, rel_threshold, depth=None, unjudged=None,
    relevance=True, int_labels=False, pooled=None, tie_queries=False,
):  # fmt: skip
    """Group, rank and block a flat batch (see the module docstring).

    ``y`` holds the labels the measures read and ``g`` their gains (both of
    the computation's dtype); ``gain`` is the convention's gain rule that made
    ``g``; ``average``: tied rows form blocks (otherwise each row is its own
    block, in input order). With ``depth``, only the blocks that start
    above that rank are kept: all that measures cut off at ``k <= depth``
    read. ``unjudged`` flags rows whose label nobody gave (NaN targets), and
    ``pooled`` those of them judged negative under trec_eval's label rule.
    With ``tie_queries``, ``mixed_ties`` flags the queries with tied retrieved
    rows of other labels or judgments.
    """
    device = preds.device
    indexes = indexes.to(torch.int64)
    rel = None
    if relevance:  # the DCG family reads gains only
        rel = (y >= rel_threshold) if rel_threshold is not None else (y > 0)
    # Every op below runs over all rows, and each one is a fork and a join of
    # torch's intra-op threads: the NaN-free case skips the retrieved mask.
    retrieved = None if not bool(torch.isnan(preds).any()) else ~torch.isnan(preds)
    rows, qkey, skey = _order(indexes, preds, retrieved, stable=not average)
    rows_all = rows
    query_all = _codes(qkey)
    n_queries = int(query_all[-1]) + 1
    n_rows = torch.bincount(query_all, minlength=n_queries)
    rel_rows = None if rel is None else take(rel, rows)
    n_relevant = None if rel is None else count(query_all, rel_rows, n_queries)
    n_unjudged = None
    if unjudged is not None:
        n_unjudged = count(query_all, take(unjudged, rows), n_queries)
    kept = None if retrieved is None else take(retrieved, rows)
    q = query_all
    if kept is not None and not bool(kept.all()):
        rows, q, rel_rows, skey = _keep(kept, rows, q, rel_rows, skey)
    n_retrieved = torch.bincount(q, minlength=n_queries)
    mixed = None
    if tie_queries:
        mixed = _mixed_ties(rows, q, skey, (y, unjudged, pooled), n_queries)
    pos = rank_within(q, n_queries)
    new = torch.ones(rows.numel(), dtype=torch.bool, device=device)
    if average and rows.numel() > 1:
        new[1:] = (q[1:] != q[:-1]) | (skey[1:] != skey[:-1])
    block = torch.cumsum(new.to(torch.int64), 0) - 1
    if depth is not None and rows.numel():
        # A row counts when its block starts above ``depth``.
        starts = take(pos, torch.nonzero(new).squeeze(1))
        top = take(starts, block) < depth
        if not bool(top.all()):
            rows, q, rel_rows, pos, new = _keep(top, rows, q, rel_rows, pos, new)
            block = torch.cumsum(new.to(torch.int64), 0) - 1
    n_blocks = int(block[-1]) + 1 if block.numel() else 0
    first = torch.nonzero(new).squeeze(1)
    return Ranked(
        n_queries=n_queries,
        n_rows=n_rows,
        n_retrieved=n_retrieved,
        n_relevant=n_relevant,
        block_query=take(q, first),
        block_start=take(pos, first),
        block_size=torch.bincount(block, minlength=n_blocks),
        block_gain=segment_sum(take(g, rows), block, n_blocks),
        block_rel=None if rel is None else count(block, rel_rows, n_blocks),
        row_block=block,
        row_pos=pos,
        all_query=query_all,
        all_label=take(y, rows_all),
        all_gain=take(g, rows_all),
        gain=gain,
        max_rows=int(n_rows.max()),
        max_retrieved=int(n_retrieved.max()),
        row_query=q,
        row_label=take(y, rows),
        row_unjudged=None if unjudged is None else take(unjudged, rows),
        n_unjudged=n_unjudged,
        row_rel=rel_rows,
        int_labels=int_labels,
        row_pooled=None if pooled is None else take(pooled, rows),
        mixed_ties=mixed,
    )


def _mixed_ties(rows, q, skey, columns, n_queries):
    """Per query, whether two of its ranked rows (``rows``, grouped by query
    ``q``, scores ``skey`` in rank order) are tied and differ in a column."""
    if rows.numel() < 2:
        return torch.zeros(n_queries, dtype=torch.bool, device=q.device)
    tied = (q[1:] == q[:-1]) & (skey[1:] == skey[:-1])
    differ = torch.zeros_like(tied)
    for column in columns:
        if column is not None:
            c = take(column, rows)
            differ |= c[1:] != c[:-1]
    return count(q[1:], tied & differ, n_queries) > 0


def ideal_dcg(r, k, disc):
    """Ideal DCG@k per query, summed position by position as the engine does."""
    dtype = r.all_gain.dtype
    n_pos = r.max_rows if k is None else min(k, r.max_rows)
    labels = r.all_label
    levels = int(labels.max()) + 1 if labels.numel() else 1
    small = (
        not r.gain.custom
        and n_pos <= 64
        and levels <= 64
        and (
            r.int_labels
            or (
                bool((labels >= 0).all())
                and bool((labels == torch.round(labels)).all())
            )
        )
    )
    m = r.n_rows if k is None else torch.clamp(r.n_rows, max=k)
    total = torch.zeros(r.n_queries, dtype=dtype, device=labels.device)
    if small:
        # Labels per query as a histogram: the label at ideal position p is
        # found by counting, with no sort.
        code = r.all_query * levels + (levels - 1 - labels.to(torch.int64))
        counts = torch.bincount(code, minlength=r.n_queries * levels)
        ends = torch.cumsum(counts.view(r.n_queries, levels), 1)
        level = torch.arange(levels - 1, -1, -1, device=labels.device).to(dtype)
        level_gain = r.gain.gains(level, torch)
        p = torch.arange(n_pos, device=labels.device).expand(r.n_queries, n_pos)
        slot = torch.searchsorted(ends, p.contiguous(), right=True)
        g = level_gain[torch.clamp(slot, max=levels - 1)]
        for pos in range(n_pos):
            on = pos < m
            total = torch.where(on, total + g[:, pos] * disc[pos], total)
        return total
    order, _, _ = _order(r.all_query, r.all_gain, None, stable=False)
    q = r.all_query[order]
    ipos = rank_within(q, r.n_queries)
    inside = ipos < m[q]
    idx = torch.clamp(ipos, max=disc.numel() - 1)
    gains = _ops.zero_unless(inside, r.all_gain[order] * disc[idx])
    return segment_sum(gains, q, r.n_queries)
