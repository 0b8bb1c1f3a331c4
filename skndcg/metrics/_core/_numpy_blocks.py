"""The numpy twin of the block kernels (``_kernel.evaluate_groups``) for every
tie rule but ``"average"`` (single-row blocks): all queries at once, one
zero-padded row per query, summed in order with :func:`numpy.cumsum` as the
kernels add, so the values are the kernels' to the last bit."""

from __future__ import annotations

import numpy as np

from . import _blocks as B
from ._rank import gain


def _padded(values, starts, lengths, width, fill=0):
    """Each query's ``lengths[g]`` values from ``starts[g]``, a row per query."""
    out = np.full((starts.shape[0], width), fill, dtype=values.dtype)
    col = np.arange(width)
    inside = col[None, :] < lengths[:, None]
    out[inside] = values[(starts[:, None] + col[None, :])[inside]]
    return out


def _at(sums, k):
    """``sums[g, k[g] - 1]``, or 0.0 where ``k[g]`` is 0."""
    if sums.shape[1] == 0:
        return np.zeros(sums.shape[0])
    picked = sums[np.arange(sums.shape[0]), np.maximum(k, 1) - 1]
    return np.where(k > 0, picked, 0.0)


def fits(starts, ends) -> bool:
    """Whether the padded matrices stay near the rows' size (queries of very
    different lengths go query by query instead)."""
    m = ends - starts
    return starts.shape[0] * int(m.max(initial=0)) <= 4 * int(m.sum()) + 4096


def evaluate_groups(
    y, s, starts, ends, nret, kinds, ks, kdens, params, disc, *, gain_mode, rel_thr
):  # fmt: skip
    """``_kernel.evaluate_groups`` for single-row blocks (see the module)."""
    n_groups, n_metrics = starts.shape[0], kinds.shape[0]
    m = ends - starts
    mr = m if nret is None else nret
    width = int(m.max(initial=0))
    labels = _padded(y, starts, m, width)
    lsum = np.cumsum(labels, axis=1)[:, -1] if width else np.zeros(n_groups)
    n_rel = (labels >= rel_thr).sum(axis=1) - (width - m) * (rel_thr <= 0)
    # The retrieved rows of each query, best score first, ties in row order.
    ranked_width = int(mr.max(initial=0))
    scores = _padded(s, starts, mr, ranked_width, fill=-np.inf)
    col = np.arange(ranked_width)
    filled = col[None, :] < mr[:, None]
    rows = np.where(filled, starts[:, None] + col[None, :], 0)
    order = np.lexsort((col[None, :].repeat(n_groups, 0), -scores, ~filled), axis=1)
    ranked = np.take_along_axis(rows, order, axis=1)
    r_labels = np.where(filled, y[ranked], 0)
    rel = (r_labels >= rel_thr) & filled
    rel_ret = rel.sum(axis=1)
    hits = np.cumsum(rel, axis=1)
    values = np.empty((n_groups, n_metrics))
    aux = np.empty((n_groups, n_metrics))
    dcg_sums = ideal_sums = None
    for j in range(n_metrics):
        kind = kinds[j]
        kj = mr if ks[j] < 0 else np.minimum(ks[j], mr)
        if kind in (B.NDCG, B.DCG, B.IDCG):
            if dcg_sums is None:
                gains = gain.py_func(r_labels.astype(np.float64), gain_mode) * filled
                dcg_sums = np.cumsum(gains * _cut(disc, ranked_width), axis=1)
                # Every gain of the query, largest first (the padding last).
                outside = np.arange(width)[None, :] >= m[:, None]
                ideal = np.where(
                    outside, -np.inf, gain.py_func(labels * 1.0, gain_mode)
                )
                ideal = -np.sort(-ideal, axis=1)
                ideal[outside] = 0.0
                ideal_sums = np.cumsum(ideal * _cut(disc, width), axis=1)
            ki = m if ks[j] < 0 else np.minimum(ks[j], m)
            aux[:, j] = _at(ideal_sums, ki)
            if kind == B.IDCG:
                values[:, j] = aux[:, j]
                continue
            d = _at(dcg_sums, kj)
            if kind == B.DCG:
                values[:, j] = d
            else:
                values[:, j] = np.where(aux[:, j] > 0.0, d / np.where(
                    aux[:, j] > 0.0, aux[:, j], 1.0), 0.0)  # fmt: skip
            continue
        aux[:, j] = n_rel
        found = _at(hits, kj)
        if kind == B.PRECISION:
            kf = mr if kdens[j] < 0 else np.full(n_groups, kdens[j])
            den = kf if params[j] == B.P_K else np.minimum(kf, mr)
            out = found / np.where(den > 0, den, 1)
        elif kind == B.RECALL:
            out = np.where(n_rel > 0, found / np.maximum(n_rel, 1), 0.0)
        elif kind == B.HIT:
            out = (found > 0).astype(np.float64)
        elif kind == B.RR:
            first = np.argmax(rel, axis=1) if ranked_width else np.zeros(n_groups, int)
            seen = rel.any(axis=1) & (first < kj)
            out = np.where(seen, 1.0 / (first + 1.0), 0.0)
        else:  # B.AP
            before = hits - rel  # relevant rows ranked above each position
            terms = np.where(rel, (before + 1.0) / (col + 1.0), 0.0)
            num = _at(np.cumsum(terms, axis=1), kj)
            if params[j] == B.AP_HITS:
                out = np.where(found > 0, num / np.maximum(found, 1), 0.0)
            elif params[j] == B.AP_RELEVANT:
                out = num / np.maximum(n_rel, 1)
            else:
                kden = np.inf if kdens[j] < 0 else kdens[j]
                out = num / np.maximum(np.minimum(kden, n_rel), 1)
            out = np.where(n_rel > 0, out, 0.0)
        values[:, j] = np.where(mr > 0, out, 0.0)
    return values, aux, n_rel.astype(np.int64), lsum.astype(np.float64), rel_ret


def _cut(disc, width):
    """The discounts of ``width`` positions (those past the largest cut-off,
    which no sum reads, 0)."""
    out = np.zeros(width)
    out[: min(width, disc.shape[0])] = disc[:width]
    return out
