"""From user input to per-query metric values: the engine's driver.

One call runs the four steps in order: validate (``_validate.py``), group by query
(``_group.py``), rank each query's rows (``_rank.py``) and score the blocks
(``_blocks.py``), the last two inside one compiled loop per chunk of queries
(``_kernel.py``). The public functions in ``_ranking.py`` and ``ranking_report``
are thin layers over :func:`evaluate`, so every metric shares the same input
handling, options and conventions, and several metrics group and rank once.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _blocks as B
from ._aggregate import Evaluation
from ._backend import picks_backend
from ._conventions import (
    EMPTY_OPTIONS,
    GAIN_OPTIONS,
    MAX_EXP_LABEL,
    NAN_LABEL_OPTIONS,
    NAN_SCORE_OPTIONS,
    QUERIES_OPTIONS,
    TIES_OPTIONS,
    _plain,
    resolve_convention,
)
from ._group import Grouping, chunk_bounds, group_constant, group_rows
from ._kernel import evaluate_groups
from ._labels import labels_in
from ._names import BINARY_KINDS, CUSTOM, MetricSpec, check_unique, parse_metric
from ._perquery import evaluate_per_query
from ._rank import GAIN_EXPONENTIAL, GAIN_LINEAR
from ._reorder import REORDERING_RULES, order_within_queries
from ._validate import (
    as_1d,
    check_choice,
    check_finite,
    check_k,  # noqa: F401  (re-exported for the scorers)
    isna,
    missing_error,
    py,
    scores,
)
from ._validate import discount as discount_weights

_AP_DENOMINATORS = {
    "relevant": B.AP_RELEVANT,
    "min_k_relevant": B.AP_MIN_K_RELEVANT,
    "hits": B.AP_HITS,
}
_P_DENOMINATORS = {"k": B.P_K, "min_k_items": B.P_MIN_K_ITEMS}


def _check_options(gain, ties, empty, ap_denominator, p_denominator):
    if gain is not None and not callable(gain) and gain not in GAIN_OPTIONS:
        raise ValueError(
            f"gain={gain!r} is not valid; expected 'linear', 'exponential' or a "
            "callable mapping labels to gains."
        )
    check_choice("ties", ties, TIES_OPTIONS)
    check_choice("empty", empty, EMPTY_OPTIONS)
    if ap_denominator is not None and ap_denominator not in _AP_DENOMINATORS:
        raise ValueError(
            f"denominator={ap_denominator!r} is not valid for average precision; "
            f"expected one of {list(_AP_DENOMINATORS)}."
        )
    if p_denominator is not None and p_denominator not in _P_DENOMINATORS:
        raise ValueError(
            f"denominator={p_denominator!r} is not valid for precision; expected "
            f"one of {list(_P_DENOMINATORS)}."
        )


def _query_weights(sample_weight, grouping: Grouping, n_rows: int) -> np.ndarray:
    if isinstance(sample_weight, dict) or (
        hasattr(sample_weight, "index") and hasattr(sample_weight, "reindex")
    ):
        mapping = dict(sample_weight.items())
        missing = [k for k in grouping.keys if k not in mapping]
        if missing:
            raise ValueError(
                f"sample_weight given per query lacks a weight for query "
                f"{py(missing[0])!r}; every query needs one."
            )
        w = as_1d([mapping[k] for k in grouping.keys], "sample_weight")
        w = w.astype(np.float64)
    else:
        rows = as_1d(sample_weight, "sample_weight")
        if rows.shape[0] != n_rows:
            raise ValueError(
                f"sample_weight has {rows.shape[0]} rows but y_true has {n_rows}; "
                "pass one weight per row (constant within a query) or a mapping "
                "from query id to weight."
            )
        if rows.dtype.kind not in "biuf":
            raise TypeError(f"sample_weight must be numeric, got dtype {rows.dtype}.")
        rows = rows.astype(np.float64, copy=False)
        check_finite(rows, "sample_weight")
        w = group_constant(rows, grouping, "sample_weight")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(
            f"sample_weight must be finite and >= 0, got min {py(np.nanmin(w))!r}."
        )
    return w


def _rel_threshold(rel_threshold):
    if rel_threshold is not None and (
        isinstance(rel_threshold, bool)
        or not isinstance(rel_threshold, numbers.Real)
        or not np.isfinite(rel_threshold)
    ):
        raise ValueError(
            f"rel_threshold must be a finite number or None, got {rel_threshold!r}."
        )


def _check_exp_labels(y: np.ndarray) -> None:
    if (y < 0).any():
        raise ValueError(
            f"y_true has negative labels (min {_plain(y.min())!r}), which gain="
            "'exponential' (2**label - 1) cannot use; shift the labels or use "
            "gain='linear'."
        )
    if (y > MAX_EXP_LABEL).any():
        raise ValueError(
            f"y_true has labels up to {_plain(y.max())!r}: with gain='exponential', "
            f"2**label - 1 overflows float64 or loses integer precision above "
            f"{MAX_EXP_LABEL}; use gain='linear' or rescale the labels."
        )


def _doc_rank(doc_id, n: int) -> np.ndarray:
    d = as_1d(doc_id, "doc_id", allow_object=True)
    if d.shape[0] != n:
        raise ValueError(
            f"doc_id has {d.shape[0]} rows but y_true has {n}; they must match."
        )
    missing = isna(d)
    if missing.any():
        raise missing_error("doc_id", missing, "a document id")
    if d.dtype.kind in "iu" and d.dtype.itemsize <= 8:
        # Integer ids order themselves: no need to rank them.
        if d.dtype.kind == "u" and d.dtype.itemsize == 8 and d.max() >= 2**63:
            pass
        else:
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


@picks_backend
def evaluate(
    y_true,
    y_score,
    qid,
    metrics,
    *,
    gain=None,
    discount="log2",
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    rel_threshold=None,
    ap_denominator=None,
    p_denominator=None,
    doc_id=None,
    nan_score=None,
    queries=None,
    nan_label=None,
    label_max=None,
) -> Evaluation:
    """Evaluate several metrics in one grouping and one kernel pass."""
    # Step 1: options, labels and scores.
    specs = [parse_metric(m) for m in metrics]
    if not specs:
        raise ValueError("metrics is empty; ask for at least one metric.")
    if all(isinstance(m, str) for m in metrics):
        check_unique(list(metrics), specs)
    _check_options(gain, ties, empty, ap_denominator, p_denominator)
    check_choice("nan_score", nan_score, NAN_SCORE_OPTIONS)
    check_choice("queries", queries, QUERIES_OPTIONS)
    check_choice("nan_label", nan_label, NAN_LABEL_OPTIONS)
    _rel_threshold(rel_threshold)
    disc_arg = discount
    conv = resolve_convention(
        convention,
        gain=gain,
        ties=ties,
        empty=empty,
        discount=None if isinstance(disc_arg, str) and disc_arg == "log2" else disc_arg,
        rel_threshold=rel_threshold,
        ap_denominator=ap_denominator,
        p_denominator=p_denominator,
    )
    if conv.k_none is not None:
        specs_eval = [
            MetricSpec(sp.kind, conv.k_none, sp.measure, sp.params)
            if sp.k is None
            else sp
            for sp in specs
        ]
    else:
        specs_eval = specs
    tie_rule = conv.tie_rule(ties, doc_id is not None)
    if tie_rule == "docid" and doc_id is None:
        raise ValueError("ties='docid' orders tied rows by document id: pass doc_id.")

    y, unjudged_rows, n_hist, known_nonnegative = labels_in(y_true, nan_label)
    s, nan_mask = scores(y_score, allow_nan=nan_score == "unretrieved")
    n = y.shape[0]
    if s.shape[0] != n:
        raise ValueError(
            f"y_score has {s.shape[0]} rows but y_true has {n}; they must match."
        )
    s = conv.cast_scores(s)
    # Under trec_eval's label rule a negative judgment is "in the pool, not
    # judged": measures that use unjudged rows see it as such (see _perquery).
    pooled_rows = None
    if conv.labels == "trec_eval" and not known_nonnegative:
        negative = y < 0
        pooled_rows = negative if negative.any() else None
    # Labels fit for the histogram are known to be small and >= 0.
    y = conv.check_labels(y, nonnegative=known_nonnegative)
    if conv.gain == "exponential":
        _check_exp_labels(y)
    if callable(conv.gain) or conv.labels in ("trec_eval", "ranx"):
        n_hist = 0
    # Kernel types: int64 labels with the histogram, float64 otherwise.
    y = y.astype(np.int64 if n_hist else np.float64, copy=False)

    # Step 2: rows grouped by query, and the tie rule as a reordering.
    grouping = group_rows(qid, n)
    weights = None
    if sample_weight is not None:
        weights = _query_weights(sample_weight, grouping, n)
        if conv.weighting != "mean":
            weights = weights.astype(np.float32).astype(np.float64)
    y_g, s_g = grouping.take_pair(y, s)
    unretrieved = None if nan_mask is None else grouping.take(nan_mask)
    doc_rank = None if tie_rule != "docid" else grouping.take(_doc_rank(doc_id, n))
    rule = tie_rule if tie_rule in REORDERING_RULES else None
    perm = order_within_queries(
        grouping,
        s_g,
        rule=rule,
        doc_rank=doc_rank,
        unretrieved=unretrieved,
        labels=y_g,
    )
    if perm is not None:
        y_g, s_g = y_g[perm], s_g[perm]
    nret = None
    if unretrieved is not None:
        # Each query's rows are one span of the grouped arrays: find the span
        # of each (rare) unretrieved row.
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
    disc = discount_weights(disc_arg, max(ks, default=1), k_label)
    # Relevant means label > 0 by default, label >= rel_threshold when given; the
    # kernel only knows ">=", and on float64 "> 0" is ">= the smallest positive".
    rel_thr = conv.relevance_threshold()
    kinds = np.array([sp.kind for sp in specs_eval], dtype=np.int64)
    kvec = np.array([-1 if sp.k is None else min(sp.k, max_size) for sp in specs_eval])
    kdens = np.array([-1.0 if sp.k is None else float(sp.k) for sp in specs_eval])
    params = np.array(
        [
            _AP_DENOMINATORS[conv.ap_denominator]
            if sp.kind == B.AP
            else _P_DENOMINATORS[conv.p_denominator]
            for sp in specs_eval
        ],
        dtype=np.int64,
    )
    chunks = chunk_bounds(grouping.starts, grouping.ends)
    average = tie_rule == "average"

    def run(lab, mask, hist):
        return evaluate_groups(
            lab, s_g, grouping.starts, grouping.ends, nret, chunks, kinds[mask],
            kvec[mask].astype(np.int64), kdens[mask], params[mask], disc,
            gain_mode=GAIN_EXPONENTIAL if conv.gain == "exponential" else GAIN_LINEAR,
            rel_thr=float(rel_thr), n_hist=hist, average=average,
        )  # fmt: skip

    if callable(conv.gain):
        gains = np.asarray(conv.gain(y), dtype=np.float64)
        if gains.shape != y.shape:
            raise ValueError(
                f"the gain callable must return one gain per label: expected shape "
                f"{y.shape}, got {gains.shape}."
            )
        check_finite(gains, "gain(y_true)")
        gains_g = grouping.take(gains)
        if perm is not None:
            gains_g = gains_g[perm]
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
    if custom:
        unjudged_g, pooled_g = (
            None
            if rows is None
            else grouping.take(rows)[perm]
            if perm is not None
            else grouping.take(rows)
            for rows in (unjudged_rows, pooled_rows)
        )
        cv, ca = evaluate_per_query(
            [all_specs[j] for j in custom], y_g, s_g, unjudged_g, grouping, nret,
            n_rel, rel_thr, pessimistic=average, label_max=label_max,
            pooled_g=pooled_g,
        )  # fmt: skip
        fused = np.setdiff1d(np.arange(len(all_specs)), custom)
        full = np.empty((grouping.n_groups, len(all_specs)))
        full_aux = np.empty_like(full)
        full[:, fused], full_aux[:, fused] = raw, aux
        full[:, custom], full_aux[:, custom] = cv, ca
        raw, aux = full, full_aux

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
        queries=queries or "retrieved",
    )
