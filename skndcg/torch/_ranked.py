"""Rows grouped by query and ranked into tie blocks, with segment operations only.

One stable sort by score (descending) and one stable sort by query put every
query's retrieved rows together in rank order; runs of equal scores form the
blocks whose internal order is undetermined (``ties="average"``), or each row
is its own block (``ties="stable"``: input order). Every sum over rows, blocks
or queries is a scatter-add, so the cost grows with the number of rows and no
Python code runs per query.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


def segment_sum(values, segment, n):
    """Sum of ``values`` per segment id in ``[0, n)``, added in row order."""
    out = torch.zeros(n, dtype=values.dtype, device=values.device)
    return out.index_add_(0, segment, values)


def _rank_within(segment, n_segments):
    """0-based position of each row inside its (contiguous) segment."""
    counts = torch.bincount(segment, minlength=n_segments)
    starts = torch.cumsum(counts, 0) - counts
    return torch.arange(segment.numel(), device=segment.device) - starts[segment]


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
    ideal_query: torch.Tensor  # every row, by query then gain descending
    ideal_pos: torch.Tensor
    ideal_gain: torch.Tensor
    max_rows: int
    max_retrieved: int


def gains(target, gain):
    if gain == "exponential":
        return torch.exp2(target) - 1.0
    return target


def rank(preds, target, indexes, *, gain, ties, rel_threshold, dtype):
    """Group, rank and block a flat batch (see the module docstring)."""
    device = preds.device
    y = target.to(dtype)
    g = gains(y, gain)
    rel = (y >= rel_threshold) if rel_threshold is not None else (y > 0)
    _, query = torch.unique(indexes, sorted=True, return_inverse=True)
    n_queries = int(query.max()) + 1 if query.numel() else 0
    n_rows = torch.bincount(query, minlength=n_queries)
    n_relevant = torch.bincount(query[rel], minlength=n_queries)
    retrieved = ~torch.isnan(preds)
    rows = torch.nonzero(retrieved).squeeze(1)
    s = preds[rows]
    by_score = torch.sort(s, descending=True, stable=True).indices
    rows = rows[by_score]
    by_query = torch.sort(query[rows], stable=True).indices
    rows = rows[by_query]
    q = query[rows]
    s = preds[rows]
    n_retrieved = torch.bincount(q, minlength=n_queries)
    pos = _rank_within(q, n_queries)
    new = torch.ones(rows.numel(), dtype=torch.bool, device=device)
    if ties == "average" and rows.numel() > 1:
        new[1:] = (q[1:] != q[:-1]) | (s[1:] != s[:-1])
    block = torch.cumsum(new.to(torch.int64), 0) - 1
    n_blocks = int(block[-1]) + 1 if block.numel() else 0
    first = torch.nonzero(new).squeeze(1)
    # Ideal order over every judged row: gains descending within each query.
    by_gain = torch.sort(g, descending=True, stable=True).indices
    ideal = by_gain[torch.sort(query[by_gain], stable=True).indices]
    ideal_query = query[ideal]
    return Ranked(
        n_queries=n_queries,
        n_rows=n_rows,
        n_retrieved=n_retrieved,
        n_relevant=n_relevant,
        block_query=q[first],
        block_start=pos[first],
        block_size=torch.bincount(block, minlength=n_blocks),
        block_gain=segment_sum(g[rows], block, n_blocks),
        block_rel=torch.bincount(block[rel[rows]], minlength=n_blocks),
        row_block=block,
        row_pos=pos,
        ideal_query=ideal_query,
        ideal_pos=_rank_within(ideal_query, n_queries),
        ideal_gain=g[ideal],
        max_rows=int(n_rows.max()) if n_queries else 0,
        max_retrieved=int(n_retrieved.max()) if n_queries else 0,
    )


def discount_weights(discount, length, label, dtype, device):
    """Per-position weights for ``length`` positions, as :mod:`skndcg.metrics`."""
    if isinstance(discount, str):
        if discount != "log2":
            raise ValueError(
                f"discount={discount!r} is not valid; expected 'log2' or an array "
                "of per-position weights."
            )
        d = 1.0 / np.log2(np.arange(2, length + 2, dtype=np.float64))
    else:
        d = np.asarray(discount, dtype=np.float64)
        if d.ndim != 1:
            raise ValueError(
                f"discount must be a 1-D array of per-position weights, got shape "
                f"{d.shape}."
            )
        if d.shape[0] < length:
            raise ValueError(
                f"discount has {d.shape[0]} weights but {label} needs at least "
                f"{length} (one per ranked position)."
            )
        d = d[:length]
        if not np.isfinite(d).all() or (d < 0).any():
            raise ValueError("discount weights must be finite and >= 0.")
    return torch.as_tensor(d, device=device).to(dtype)
