"""From user input to per-query metric values: the engine's driver (its steps
are in docs/architecture.rst); every public metric function is a thin layer
over :func:`evaluate`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._catalogue._names import BINARY_KINDS, CUSTOM, check_unique, parse_metric
from .._conventions import CallOptions, call_options
from .._conventions._options import AP_DENOMINATORS, P_DENOMINATORS
from . import _blocks as B
from ._aggregate import Evaluation
from ._backend import road
from ._group import chunk_bounds, group_rows, query_weights
from ._kernel import evaluate_groups
from ._labels import labels_in
from ._perquery import evaluate_per_query
from ._rank import GAIN_EXPONENTIAL, GAIN_LINEAR
from ._reorder import order_within_queries
from ._side import check_call_side, evaluate_side
from ._validate import (
    as_1d,
    check_k,  # noqa: F401  (re-exported for the scorers)
    check_length,
    isna,
    missing_error,
    scores,
)
from ._validate import discount as discount_weights


def _doc_rank(doc_id, n: int) -> np.ndarray:
    d = as_1d(doc_id, "doc_id", allow_object=True)
    check_length("doc_id", d.shape[0], n)
    missing = isna(d)
    if missing.any():
        raise missing_error("doc_id", missing, "a document id")
    # Integer ids order themselves (those int64 holds): no need to rank them.
    big = d.dtype.kind == "u" and d.dtype.itemsize == 8 and d.max() >= 2**63
    if d.dtype.kind in "iu" and d.dtype.itemsize <= 8 and not big:
        return d.astype(np.int64, copy=False)
    import pandas as pd

    try:
        codes, _ = pd.factorize(d, sort=True)
    except TypeError:
        raise TypeError(
            "doc_id values must be mutually orderable (all strings or all numbers) "
            "to break ties by document id."
        ) from None
    return codes.astype(np.int64)


def evaluate(
    y_true, y_score, qid, metrics, options: CallOptions | None = None, *,
    sample_weight=None, doc_id=None, label_max=None, side=None, **given,
) -> Evaluation:  # fmt: skip
    """Evaluate several metrics in one grouping and one kernel pass; ``options``
    (default: those in ``given``, checked here), ``side``: the side inputs."""
    # Step 1: options, labels and scores.
    specs = [parse_metric(m) for m in metrics]
    if all(isinstance(m, str) for m in metrics):
        check_unique(list(metrics), specs)
    check_call_side(specs, side)
    opts = call_options(**given) if options is None else options
    ties = opts.tie_rule(doc_id is not None)
    with road(y_true, specs, ties.average):
        return _evaluate(
            y_true, y_score, qid, specs, opts, ties, sample_weight, doc_id, label_max,
            side,
        )  # fmt: skip


def _evaluate(
    y_true, y_score, qid, specs, opts, ties, sample_weight, doc_id, label_max, side
) -> Evaluation:
    conv = opts.conv
    # k=None is the whole list, or the convention's fixed cut-off (XGBoost's 32).
    specs_eval = [replace(sp, k=conv.k_none) if sp.k is None else sp for sp in specs]

    y, unjudged_rows, n_hist, known_nonnegative = labels_in(y_true, opts.nan_label)
    s, nan_mask = scores(y_score, allow_nan=opts.unretrieved)
    n = y.shape[0]
    check_length("y_score", s.shape[0], n)
    s = conv.cast_scores(s)
    # trec_eval's negative judgments: "in the pool, not judged" (see _perquery).
    pooled_rows = None if known_nonnegative else conv.labels.pooled(y)
    # Labels fit for the histogram are known to be small and >= 0.
    y = conv.check_labels(y, nonnegative=known_nonnegative)
    conv.gain.check_labels(y)
    if conv.gain.custom or conv.labels.rewrites:
        n_hist = 0
    y = y.astype(np.int64 if n_hist else np.float64, copy=False)

    # Step 2: rows grouped by query, and the tie rule as a reordering.
    grouping = group_rows(qid, n)
    weights = None
    if sample_weight is not None:
        weights = conv.weighting.weights(query_weights(sample_weight, grouping, n))
    y_g, s_g = grouping.take_pair(y, s)
    unretrieved = None if nan_mask is None else grouping.take(nan_mask)
    doc_rank = grouping.take(_doc_rank(doc_id, n)) if ties.by_doc_id else None
    perm = order_within_queries(
        grouping, s_g, rule=ties, doc_rank=doc_rank, unretrieved=unretrieved, labels=y_g
    )
    if perm is not None:
        y_g, s_g = y_g[perm], s_g[perm]

    def ranked_rows(a):  # a per-row array in the order of y_g and s_g
        a = grouping.take(a)
        return a if perm is None else a[perm]

    nret = None
    if unretrieved is not None:
        # The query of each (rare) unretrieved row, from the spans' starts.
        by_start = np.argsort(grouping.starts, kind="stable")
        rows = np.flatnonzero(unretrieved)
        span = np.searchsorted(grouping.starts[by_start], rows, side="right") - 1
        missed = np.bincount(by_start[span], minlength=grouping.n_groups)
        nret = np.ascontiguousarray(grouping.sizes - missed)

    # Steps 3 and 4: rank and score, in one compiled pass per chunk of queries,
    # for the measures with a block kernel; the others query by query after.
    custom = [j for j, sp in enumerate(specs_eval) if sp.kind == CUSTOM]
    all_specs, specs_eval = specs_eval, [sp for sp in specs_eval if sp.kind != CUSTOM]
    max_size = int(grouping.sizes.max())
    ks = [max_size if sp.k is None else min(sp.k, max_size) for sp in specs_eval]
    k_label = "k=None" if any(sp.k is None for sp in specs_eval) else "k"
    disc = discount_weights(opts.discount, max(ks, default=1), k_label)
    rel_thr = conv.relevance_threshold()  # (the kernel only knows ">=")
    kinds = np.array([sp.kind for sp in specs_eval], dtype=np.int64)
    kvec = np.array([-1 if sp.k is None else min(sp.k, max_size) for sp in specs_eval])
    kdens = np.array([-1.0 if sp.k is None else float(sp.k) for sp in specs_eval])
    # The denominators' codes in the kernels (B.AP_*, B.P_*) are their positions.
    ap_den = AP_DENOMINATORS.index(conv.ap_denominator)
    p_den = P_DENOMINATORS.index(conv.p_denominator)
    params = np.array(
        [ap_den if sp.kind == B.AP else p_den for sp in specs_eval], dtype=np.int64
    )
    chunks = chunk_bounds(grouping.starts, grouping.ends)
    average = ties.average
    gain_mode = GAIN_EXPONENTIAL if conv.gain.exponential else GAIN_LINEAR

    def run(lab, mask, hist):
        return evaluate_groups(
            lab, s_g, grouping.starts, grouping.ends, nret, chunks, kinds[mask],
            kvec[mask].astype(np.int64), kdens[mask], params[mask], disc,
            gain_mode=gain_mode, rel_thr=float(rel_thr), n_hist=hist, average=average,
        )  # fmt: skip

    if conv.gain.custom:
        gains_g = ranked_rows(conv.gain.gains(y, np))
        raw = np.empty((grouping.n_groups, len(specs_eval)))
        aux = np.empty_like(raw)
        binary = np.array([k in BINARY_KINDS for k in kinds], dtype=bool)
        if (~binary).any():
            v, a, *_ = run(gains_g, ~binary, 0)
            raw[:, ~binary], aux[:, ~binary] = v, a
        # Relevance (and the label totals) always come from the labels themselves.
        mask = binary if binary.any() else ~binary
        v, a, n_rel, lsum, rel_ret = run(y_g, mask, 0)
        if binary.any():
            raw[:, binary], aux[:, binary] = v, a
    else:
        raw, aux, n_rel, lsum, rel_ret = run(y_g, np.ones(len(kinds), bool), n_hist)
    reads_side = [j for j in custom if all_specs[j].definition.side_inputs]
    custom = [j for j in custom if j not in reads_side]
    fused = np.flatnonzero(~np.isin(np.arange(len(all_specs)), custom + reads_side))
    pieces = [(fused, raw, aux)]
    if custom:
        unjudged_g, pooled_g = (
            None if rows is None else ranked_rows(rows)
            for rows in (unjudged_rows, pooled_rows)
        )
        cv, ca = evaluate_per_query(
            [all_specs[j] for j in custom], y_g, s_g, unjudged_g, grouping, nret,
            n_rel, rel_thr, average=average, label_max=label_max,
            pooled_g=pooled_g, convention=conv,
        )  # fmt: skip
        pieces.append((custom, cv, ca))
    if reads_side:
        pieces.append((reads_side, *evaluate_side(
            [all_specs[j] for j in reads_side], side, y >= rel_thr, grouping, perm,
            s_g, nret, rel_thr, average=average, convention=conv,
        )))  # fmt: skip
    if len(pieces) > 1:
        raw = np.empty((grouping.n_groups, len(all_specs)))
        aux = np.empty_like(raw)
        for cols, v, a in pieces:
            raw[:, cols], aux[:, cols] = v, a

    return Evaluation.build(
        specs=specs,
        grouping=grouping,
        raw=raw,
        aux=aux,
        n_relevant=n_rel,
        label_sum=lsum,
        n_retrieved=grouping.sizes if nret is None else nret,
        n_relevant_retrieved=rel_ret,
        weights=weights,
        convention=conv,
        retrieved_only=opts.retrieved_only,
    )
