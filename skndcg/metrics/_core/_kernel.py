"""The per-query loop: labels, ranking and blocks, then each requested metric,
compiled per combination of flags with only the steps the call needs."""

from __future__ import annotations

from functools import cache

import numpy as np

from ..._native._jit import jit, plain
from ..._native._threads import run_chunks
from . import _blocks as B
from . import _numpy_blocks
from ._blocks import (
    ap_blocks,
    ap_blocks_hits,
    dcg_blocks,
    hit_blocks,
    hits_blocks,
    ideal_hist,
    ideal_select,
    ideal_sort,
    rr_blocks,
)
from ._rank import (
    LANE_BLOCK,
    RANK_MAX_K,
    SMALL,
    SPARSE_MAX,
    argsort_desc,
    blocks_single,
    blocks_sparse,
    blocks_tied,
    sort_small,
    top_rows,
)


def _flags(kinds, ks, params, sizes, nret, n_hist, average):
    """Which steps a call needs, from its metrics and its query sizes."""
    has = set(kinds.tolist())
    ap = params[kinds == B.AP]
    k_all = bool(((ks < 0) & (kinds != B.RR)).any())
    rr_all = bool(((ks < 0) & (kinds == B.RR)).any())
    need_rank = bool((kinds != B.IDCG).any())
    kmax = int(ks.max()) if (ks > 0).any() else 0
    kbase = kmax if kmax > 0 else 10
    # Each test reads one query's size, the same from ``cap`` on: the distinct
    # sizes, capped, suffice.
    cap = max(SMALL, 3 * kbase) + 1
    sizes = _distinct(sizes, cap)
    mr = sizes if nret is None else _distinct(nret, cap)
    kk = mr if k_all else np.minimum(kbase, mr)
    top_q = (mr > SMALL) & (kk * 3 < mr)
    top = need_rank and bool(top_q.any())
    full = need_rank and (bool(((mr > SMALL) & ~top_q).any()) or (top and rr_all))
    small = need_rank and bool(((mr > 0) & (mr <= SMALL)).any())
    kki = sizes if k_all else np.minimum(kbase, sizes)
    isort_q = (kki * 3 >= sizes) & (sizes > SMALL)
    dcg = bool(has & {B.NDCG, B.DCG, B.IDCG})
    flags = (
        dcg,
        bool(has & {B.PRECISION, B.RECALL}),
        B.HIT in has,
        B.RR in has,
        bool((ap != B.AP_HITS).any()),
        bool((ap == B.AP_HITS).any()),
        bool(average),
        nret is not None,
        dcg and n_hist > 0,
        dcg and n_hist == 0 and bool((~isort_q).any()),
        dcg and n_hist == 0 and bool(isort_q.any()),
        top,
        full,
        small,
    )
    return flags, (kbase, k_all, rr_all, need_rank)


def _distinct(v, cap):
    """The distinct values of ``v`` (non-negative), those above ``cap`` as ``cap``."""
    return np.flatnonzero(np.bincount(np.minimum(v, cap), minlength=cap + 1))


@cache
def _make(
    DCG_,
    HITS_,
    HIT_,
    RR_,
    AP_,
    APH_,
    AVERAGE,
    NRET,
    HIST,
    SELECT,
    ISORT,
    TOP,
    FULL,
    SMALLSORT,
):
    # The chunk loop for these flags (see ``_flags``), constants of the closure:
    # numba drops the branches they switch off before typing, so the kernels
    # behind them are never compiled.
    # Only the flags are closure cells (numba's cache key pickles the cells);
    # the kernels called are module globals.
    @jit
    def evaluate_chunk(
        t, y, s, starts, ends, nret, chunks, kinds, ks, kdens, params, disc,
        kbase, k_all, rr_all, need_rank, gain_mode, rel_thr, n_hist,
        values, aux, n_rel_out, lsum_out, rel_ret_out,
    ):  # fmt: skip
        g0, g1 = chunks[t], chunks[t + 1]
        n_metrics = kinds.shape[0]
        # Scratch sized once for the chunk (an array reassigned inside the query
        # loop would make every query pay): the top rows, or a whole query.
        size = max(SMALL, kbase) + 1
        for g in range(g0, g1):
            m = ends[g] - starts[g]
            kk = m if k_all else min(kbase, m)
            if kk * 3 >= m or rr_all:
                size = max(size, m + 1)
        order = np.empty(size, dtype=np.int64)
        tmp = np.empty(size, dtype=np.int64)
        buf = np.empty(size, dtype=np.float64)
        ibuf = np.empty(size, dtype=np.float64)
        gbuf = np.empty(size if ISORT else 0, dtype=np.float64)
        bl = (
            np.empty(size + 1, dtype=np.int64),
            np.empty(size + 1, dtype=np.int64),
            np.empty(size + 1, dtype=np.float64),
            np.empty(size + 1, dtype=np.int64),
        )
        bstart, bsize, bgain, brel = bl
        hist = np.zeros(n_hist, dtype=np.int64)
        # Lanes and candidates of the branch-free top-k (``rank_top``).
        k_lanes = min(kbase, RANK_MAX_K) * 8 // 5
        n_lanes = max(LANE_BLOCK, -(-k_lanes // LANE_BLOCK) * LANE_BLOCK)
        n_cand = 4 * n_lanes + 64 + 8 if TOP else 0
        lanes = np.empty(n_lanes if TOP else 0, dtype=np.float64)
        cs = np.empty(n_cand, dtype=np.float64)
        ci = np.empty(n_cand, dtype=np.int64)
        rk = np.empty(n_cand, dtype=np.int64)
        no_tail = (0, 0.0, 0)
        # Rows that count, for a whole query ranked without a sort.
        sparse_rows = np.empty(SPARSE_MAX if FULL and not AVERAGE else 0, np.int64)
        sparse_ranks = np.empty_like(sparse_rows)

        for g in range(g0, g1):
            lo = starts[g]
            m = ends[g] - lo
            mr = nret[g] if NRET else m  # rows retrieved, first in the query
            # Step 1: relevant count, label sum and ideal gains of every judged row.
            # A view indexed from 0: numba drops its negative-index handling
            # and the loop vectorises.
            yq = y[lo : lo + m]
            n_rel = 0
            lsum = yq[0] - yq[0]  # the label type: integer labels sum exactly
            for i in range(m):
                lab = yq[i]
                lsum += lab
                n_rel += np.int64(lab >= rel_thr)
            if DCG_:
                kki = m if k_all else min(kbase, m)
                if HIST:
                    ideal_hist(y, lo, m, kki, gain_mode, ibuf, hist)
                elif kki * 3 >= m and m > SMALL:
                    if ISORT:
                        ideal_sort(y, lo, m, kki, gain_mode, ibuf, gbuf, order, tmp)
                elif SELECT:
                    ideal_select(y, lo, m, kki, gain_mode, ibuf)
            rel_ret = n_rel
            if NRET:
                rel_ret = 0
                for i in range(mr):
                    rel_ret += np.int64(yq[i] >= rel_thr)
            n_rel_out[g] = n_rel
            lsum_out[g] = lsum
            rel_ret_out[g] = rel_ret
            # Step 2: the retrieved rows, ranked into blocks.
            nb = 0
            kk = mr if k_all else min(kbase, mr)
            whole = True
            if need_rank and mr > 0:
                if mr > SMALL and kk * 3 < mr:
                    whole = False
                    if TOP:
                        tail = top_rows(
                            y, s, lo, mr, kk, order, buf, lanes, cs, ci, rk,
                            AVERAGE, gain_mode, rel_thr,
                        )  # fmt: skip
                        if AVERAGE:
                            nb = blocks_tied(
                                y, lo, order, buf, kk, kk, gain_mode, rel_thr,
                                tail, bl,
                            )  # fmt: skip
                        else:
                            nb = blocks_single(y, lo, order, kk, gain_mode, rel_thr, bl)
                        if rr_all and rel_ret > 0:
                            found = False
                            for b in range(nb):
                                if brel[b] > 0:
                                    found = True
                                    break
                            # The first relevant row ranks below the top: all of it.
                            whole = not found
                sparse = -1
                if whole and FULL and not AVERAGE and mr > SMALL:
                    sparse = blocks_sparse(
                        y, s, lo, mr, mr if rr_all else kk, gain_mode, rel_thr,
                        bl, sparse_rows, sparse_ranks,
                    )  # fmt: skip
                if sparse >= 0:
                    nb = sparse
                elif whole:
                    if mr <= SMALL:
                        if SMALLSORT:
                            sort_small(s, lo, mr, order)
                    elif FULL:
                        argsort_desc(s[lo : lo + mr], mr, order, tmp)
                    upto = mr if rr_all else kk
                    if AVERAGE:
                        for p in range(mr):
                            buf[p] = s[lo + order[p]]
                        nb = blocks_tied(
                            y, lo, order, buf, mr, upto, gain_mode, rel_thr,
                            no_tail, bl,
                        )  # fmt: skip
                    else:
                        nb = blocks_single(
                            y, lo, order, min(upto, mr), gain_mode, rel_thr, bl
                        )
            # Step 3: each metric from the blocks.
            for j in range(n_metrics):
                kind = kinds[j]
                kj = mr if ks[j] < 0 else min(ks[j], mr)
                if DCG_ and (kind == B.NDCG or kind == B.DCG or kind == B.IDCG):
                    ideal = 0.0
                    for p in range(m if ks[j] < 0 else min(ks[j], m)):
                        if HIST and ibuf[p] == 0.0:
                            break  # the gains end (see ideal_hist)
                        ideal += ibuf[p] * disc[p]
                    aux[g, j] = ideal
                    if kind == B.IDCG:
                        values[g, j] = ideal
                        continue
                    d = dcg_blocks(bstart, bsize, bgain, nb, kj, disc)
                    if kind == B.DCG:
                        values[g, j] = d
                    elif ideal > 0.0:
                        values[g, j] = d / ideal
                    else:
                        values[g, j] = 0.0
                    continue
                aux[g, j] = n_rel
                if mr == 0:
                    values[g, j] = 0.0
                elif HITS_ and kind == B.PRECISION:
                    kf = mr if kdens[j] < 0 else kdens[j]
                    den = kf if params[j] == B.P_K else min(kf, mr)
                    values[g, j] = hits_blocks(bstart, bsize, brel, nb, kj) / den
                elif HITS_ and kind == B.RECALL:
                    if n_rel == 0:
                        values[g, j] = 0.0
                    else:
                        hits = hits_blocks(bstart, bsize, brel, nb, kj)
                        values[g, j] = hits / n_rel
                elif HIT_ and kind == B.HIT:
                    values[g, j] = hit_blocks(bstart, bsize, brel, nb, kj)
                elif RR_ and kind == B.RR:
                    values[g, j] = rr_blocks(bstart, bsize, brel, nb, kj)
                elif APH_ and kind == B.AP and params[j] == B.AP_HITS:
                    values[g, j] = ap_blocks_hits(bstart, bsize, brel, nb, kj, n_rel)
                elif AP_ and kind == B.AP:
                    kf = np.inf if kdens[j] < 0 else kdens[j]
                    values[g, j] = ap_blocks(
                        bstart, bsize, brel, nb, kj, n_rel, params[j], kf
                    )
        return 0

    return evaluate_chunk


def evaluate_groups(
    y, s, starts, ends, nret, chunks, kinds, ks, kdens, params, disc, *,
    gain_mode, rel_thr, n_hist, average,
):  # fmt: skip
    """Per-query metric values for every requested ``(kind, k, param)``.

    Returns ``values`` and ``aux`` ``(n_groups, n_metrics)`` (``aux``: the ideal
    DCG at the cut-off, or the relevant count; <= 0 means empty), and per query
    the relevant count, the label sum and the relevant retrieved count.
    ``nret``: rows retrieved per query (listed first), None when all were.
    ``n_hist > 0`` promises integer labels in ``[0, n_hist)``.
    """
    if plain() and not average and _numpy_blocks.fits(starts, ends):
        return _numpy_blocks.evaluate_groups(
            y, s, starts, ends, nret, kinds, ks, kdens, params, disc,
            gain_mode=gain_mode, rel_thr=rel_thr,
        )  # fmt: skip
    n_groups = starts.shape[0]
    n_metrics = kinds.shape[0]
    values = np.empty((n_groups, n_metrics), dtype=np.float64)
    aux = np.empty((n_groups, n_metrics), dtype=np.float64)
    n_rel = np.empty(n_groups, dtype=np.int64)
    lsum = np.empty(n_groups, dtype=np.float64)
    rel_ret = np.empty(n_groups, dtype=np.int64)
    flags, (kbase, k_all, rr_all, need_rank) = _flags(
        kinds, ks, params, ends - starts, nret, n_hist, average
    )
    kernel = _make(*flags)
    nret_arr = np.empty(0, dtype=np.int64) if nret is None else nret
    run_chunks(
        kernel, chunks.shape[0] - 1, y, s, starts, ends, nret_arr, chunks, kinds,
        ks, kdens, params, disc, kbase, k_all, rr_all, need_rank, gain_mode,
        float(rel_thr), n_hist, values, aux, n_rel, lsum, rel_ret,
    )  # fmt: skip
    return values, aux, n_rel, lsum, rel_ret
