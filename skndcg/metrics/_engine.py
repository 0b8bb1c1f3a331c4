"""From user input to per-query metric values: validation, grouping, one kernel pass.

The public functions in ``_ranking.py`` and ``ranking_report`` are thin layers over
:func:`evaluate`, so every metric shares the same input handling, options and
conventions, and asking for several metrics groups and selects once.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numba
import numpy as np

from . import _kernels as K
from ._conventions import (
    EMPTY_OPTIONS,
    GAIN_OPTIONS,
    TIES_OPTIONS,
    Convention,
    apply_options,
    get_convention,
    prepare_labels,
)
from ._grouping import (
    Grouping,
    as_1d,
    check_finite,
    chunk_bounds,
    group_rows,
    row_chunks,
)
from ._names import BINARY_KINDS, MetricSpec, parse_metric

_TIES = {
    "average": K.TIES_AVERAGE,
    "stable": K.TIES_STABLE,
    "reverse": K.TIES_REVERSE,
    "quicksort": K.TIES_QUICKSORT,
}
_AP_DENOMINATORS = {
    "relevant": K.AP_RELEVANT,
    "min_k_relevant": K.AP_MIN_K_RELEVANT,
    "hits": K.AP_HITS,
}
_P_DENOMINATORS = {"k": K.P_K, "min_k_items": K.P_MIN_K_ITEMS}
# 2**1023 is the largest power of two a float64 holds.
_MAX_EXP_LABEL = 1023


@dataclass
class Evaluation:
    """Per-query results of one evaluation.

    ``values[g, j]`` is metric ``j`` of query ``g`` after the empty rule (NaN where
    the query is skipped); ``empty[g, j]`` marks queries without a relevant item.
    """

    specs: list
    grouping: Grouping
    values: np.ndarray
    raw: np.ndarray
    aux: np.ndarray
    empty: np.ndarray
    n_relevant: np.ndarray
    weights: np.ndarray | None
    convention: Convention

    def means(self) -> np.ndarray:
        """The average of each metric over queries, as the convention defines it."""
        return np.array([self._mean(j) for j in range(len(self.specs))])

    def _mean(self, j: int) -> float:
        conv = self.convention
        v = self.values[:, j]
        empty = self.empty[:, j]
        w = self.weights
        if conv.weighting != "mean":
            # LightGBM / XGBoost: each empty query adds its value without weight,
            # while every query's weight counts in the denominator.
            if w is None:
                return float(np.mean(v))
            num = np.sum(np.where(empty, v, v * w))
            result = float(num / np.sum(w))
            if conv.weighting == "empty_unweighted_clamped":
                if result > 1.0 + 1e-6:
                    raise ValueError(
                        f"convention='xgboost' gives {result!r} > 1 with these query "
                        "weights (XGBoost raises 'Invalid output score' here): empty "
                        "queries are counted without their weight."
                    )
                result = min(result, 1.0)
            return result
        keep = ~np.isnan(v)
        if not keep.any():
            if conv.all_skipped == "zero":
                return 0.0
            import warnings

            from sklearn.exceptions import UndefinedMetricWarning

            warnings.warn(
                f"{self.specs[j].name}: every query was skipped (no query has a "
                "relevant item); the score is undefined and nan is returned. Pass "
                "empty='zero' or empty='one' to score such queries.",
                UndefinedMetricWarning,
                stacklevel=4,
            )
            return float("nan")
        if w is None:
            return float(np.mean(v[keep]))
        wk = w[keep]
        total = np.sum(wk)
        if total <= 0:
            raise ValueError(
                "sample_weight sums to zero over the queries that are scored; "
                "at least one scored query needs a positive weight."
            )
        return float(np.sum(v[keep] * wk) / total)


def _py(value):
    """A numpy scalar as the Python value it holds, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def check_k(k, name: str = "k", *, allow_none: bool = True):
    """Validate a cut-off: an int >= 1 (not a bool) or None."""
    if k is None and allow_none:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(
            f"{name} must be an int >= 1{' or None' if allow_none else ''}, got "
            f"{k!r} ({type(k).__name__})."
        )
    if k < 1:
        raise ValueError(f"{name} must be >= 1, got {k!r}.")
    return int(k)


def _check_options(gain, ties, empty, ap_denominator, p_denominator):
    if gain is not None and not callable(gain) and gain not in GAIN_OPTIONS:
        raise ValueError(
            f"gain={gain!r} is not valid; expected 'linear', 'exponential' or a "
            "callable mapping labels to gains."
        )
    if ties is not None and ties not in TIES_OPTIONS:
        raise ValueError(
            f"ties={ties!r} is not valid; expected one of {list(TIES_OPTIONS)}."
        )
    if empty is not None and empty not in EMPTY_OPTIONS:
        raise ValueError(
            f"empty={empty!r} is not valid; expected one of {list(EMPTY_OPTIONS)}."
        )
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


def _labels(y_true) -> np.ndarray:
    y = as_1d(y_true, "y_true")
    if y.dtype.kind == "b":
        return y.astype(np.int64)
    if y.dtype.kind in "iu":
        return y.astype(np.int64, copy=False)
    if y.dtype.kind != "f":
        raise TypeError(f"y_true must be numeric, got dtype {y.dtype}.")
    check_finite(y, "y_true")
    return y.astype(np.float64, copy=False)


def _scores(y_score, dtype) -> np.ndarray:
    s = as_1d(y_score, "y_score")
    if s.dtype.kind not in "biuf":
        raise TypeError(f"y_score must be numeric, got dtype {s.dtype}.")
    if s.dtype.kind == "f":
        check_finite(s, "y_score")
    return s.astype(dtype, copy=False)


def _discount(discount, length: int, k_label) -> np.ndarray:
    if isinstance(discount, str):
        if discount != "log2":
            raise ValueError(
                f"discount={discount!r} is not valid; expected 'log2', an array of "
                "per-position weights or a callable of the 1-based ranks."
            )
        return 1.0 / np.log2(np.arange(2, length + 2, dtype=np.float64))
    if callable(discount):
        d = np.asarray(discount(np.arange(1, length + 1)), dtype=np.float64)
        if d.shape != (length,):
            raise ValueError(
                f"the discount callable must return one weight per rank: expected "
                f"shape ({length},), got {d.shape}."
            )
        what = "the discount callable"
    else:
        d = np.asarray(discount, dtype=np.float64)
        if d.ndim != 1:
            raise ValueError(
                f"discount must be a 1-D array of per-position weights, got shape "
                f"{d.shape}."
            )
        if d.shape[0] < length:
            raise ValueError(
                f"discount has {d.shape[0]} weights but {k_label} needs at least "
                f"{length} (one per ranked position)."
            )
        d = d[:length]
        what = "discount"
    if not np.isfinite(d).all() or (d < 0).any():
        raise ValueError(
            f"{what} weights must be finite and >= 0, got min {d.min()!r}."
        )
    return np.ascontiguousarray(d)


def _query_weights(sample_weight, grouping: Grouping, n_rows: int) -> np.ndarray:
    if isinstance(sample_weight, dict) or (
        hasattr(sample_weight, "index") and hasattr(sample_weight, "reindex")
    ):
        mapping = dict(sample_weight.items())
        missing = [k for k in grouping.keys[:5] if k not in mapping]
        try:
            w = np.array([mapping[k] for k in grouping.keys], dtype=np.float64)
        except KeyError:
            raise ValueError(
                f"sample_weight given per query lacks a weight for query "
                f"{_py(missing[0])!r}; every query needs one."
            ) from None
        name = "sample_weight"
    else:
        rows = as_1d(sample_weight, "sample_weight")
        if rows.shape[0] != n_rows:
            raise ValueError(
                f"sample_weight has {rows.shape[0]} rows but y_true has {n_rows}; "
                "pass one weight per row (constant within a query) or a mapping "
                "from query id to weight."
            )
        rows = rows.astype(np.float64, copy=False)
        check_finite(rows, "sample_weight")
        w, bad = K.group_constant(grouping.take(rows), grouping.starts, grouping.ends)
        if bad >= 0:
            raise ValueError(
                f"sample_weight varies within query {_py(grouping.keys[bad])!r}; "
                "weights are per query, so give every row of a query the same weight."
            )
        name = "sample_weight"
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"{name} must be finite and >= 0, got min {np.nanmin(w)!r}.")
    return w


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
) -> Evaluation:
    """Evaluate several metrics in one grouping and one kernel pass."""
    specs = [parse_metric(m) for m in metrics]
    if not specs:
        raise ValueError("metrics is empty; ask for at least one metric.")
    _check_options(gain, ties, empty, ap_denominator, p_denominator)
    if rel_threshold is not None and (
        isinstance(rel_threshold, bool)
        or not isinstance(rel_threshold, numbers.Real)
        or not np.isfinite(rel_threshold)
    ):
        raise ValueError(
            f"rel_threshold must be a finite number or None, got {rel_threshold!r}."
        )
    conv = apply_options(
        get_convention(convention),
        gain=gain,
        ties=ties,
        empty=empty,
        discount=None if isinstance(discount, str) and discount == "log2" else discount,
        rel_threshold=rel_threshold,
        ap_denominator=ap_denominator,
        p_denominator=p_denominator,
    )
    if conv.k_none is not None:
        specs_eval = [
            MetricSpec(s.kind, conv.k_none) if s.k is None else s for s in specs
        ]
    else:
        specs_eval = specs

    y = _labels(y_true)
    s = _scores(y_score, np.float32 if conv.score_dtype == "float32" else np.float64)
    n = y.shape[0]
    if s.shape[0] != n:
        raise ValueError(
            f"y_score has {s.shape[0]} rows but y_true has {n}; they must match."
        )
    y = prepare_labels(y, conv, conv.gain)
    if conv.gain == "exponential":
        if (y < 0).any():
            raise ValueError(
                f"y_true has negative labels (min {y.min()!r}), which gain="
                "'exponential' (2**label - 1) cannot use; shift the labels or use "
                "gain='linear'."
            )
        if (y > _MAX_EXP_LABEL).any():
            raise ValueError(
                f"y_true has labels up to {y.max()!r}: 2**label overflows float64 "
                f"above {_MAX_EXP_LABEL}; use gain='linear' or rescale the labels."
            )
    grouping = group_rows(qid, n)
    weights = None
    if sample_weight is not None:
        weights = _query_weights(sample_weight, grouping, n)
        if conv.weighting != "mean":
            weights = weights.astype(np.float32).astype(np.float64)

    max_size = int(grouping.sizes.max())
    ks = [max_size if sp.k is None else min(sp.k, max_size) for sp in specs_eval]
    k_label = "k=None" if any(sp.k is None for sp in specs_eval) else "k"
    disc = _discount(discount, max(ks), k_label)

    # Relevant means label > 0 by default, label >= rel_threshold when given; the
    # kernel only knows ">=", and on float64 "> 0" is ">= the smallest positive".
    rel_thr = (
        np.nextafter(0.0, 1.0)
        if conv.rel_threshold is None
        else float(conv.rel_threshold)
    )
    kinds = np.array([sp.kind for sp in specs_eval], dtype=np.int64)
    kvec = np.array([-1 if sp.k is None else sp.k for sp in specs_eval], np.int64)
    ap_den = _AP_DENOMINATORS[conv.ap_denominator]
    p_den = _P_DENOMINATORS[conv.p_denominator]
    params = np.array(
        [ap_den if sp.kind == K.AP else p_den for sp in specs_eval], dtype=np.int64
    )
    tie_mode = _TIES[conv.ties]
    chunks = chunk_bounds(grouping.starts, grouping.ends, numba.get_num_threads())

    y_g = grouping.take(y)
    s_g = grouping.take(s)

    # Small non-negative integer labels let the kernel find the ideal order with a
    # histogram instead of a selection buffer.
    n_hist = 0
    if y.dtype.kind == "i" and not callable(conv.gain):
        lo_label, hi_label = (int(v) for v in K.int_range(y, row_chunks(n)))
        if lo_label >= 0 and hi_label < 256:
            n_hist = hi_label + 1

    def run(labels, mask):
        return K.evaluate_groups(
            labels,
            s_g,
            grouping.starts,
            grouping.ends,
            chunks,
            kinds[mask],
            kvec[mask],
            params[mask],
            disc,
            K.GAIN_EXPONENTIAL if conv.gain == "exponential" else K.GAIN_LINEAR,
            float(rel_thr),
            tie_mode,
            n_hist if labels is y_g else 0,
        )

    if callable(conv.gain):
        gains = np.asarray(conv.gain(y), dtype=np.float64)
        if gains.shape != y.shape:
            raise ValueError(
                f"the gain callable must return one gain per label: expected shape "
                f"{y.shape}, got {gains.shape}."
            )
        check_finite(gains, "gain(y_true)")
        raw = np.empty((grouping.n_groups, len(specs)))
        aux = np.empty_like(raw)
        binary = np.array([k in BINARY_KINDS for k in kinds])
        if (~binary).any():
            v, a, _, _ = run(grouping.take(gains), ~binary)
            raw[:, ~binary], aux[:, ~binary] = v, a
        # Relevance (and the label totals) always come from the labels themselves.
        v, a, n_rel, lsum = run(y_g, binary)
        raw[:, binary], aux[:, binary] = v, a
    else:
        raw, aux, n_rel, lsum = run(y_g, np.ones(len(kinds), dtype=bool))

    if conv.empty_rule == "label_sum":
        empty_mask = np.repeat((lsum == 0)[:, None], len(specs), axis=1)
    else:
        empty_mask = aux <= 0
    values = raw.copy()
    if empty_mask.any():
        if conv.empty == "error":
            g, j = np.argwhere(empty_mask)[0]
            raise ValueError(
                f"query {_py(grouping.keys[g])!r} has no relevant item, so "
                f"{specs[j].name} is undefined for it (empty='error'); pass "
                "empty='skip', 'zero' or 'one' to handle such queries."
            )
        fill = {"skip": np.nan, "zero": 0.0, "one": 1.0}[conv.empty]
        values[empty_mask] = fill
    return Evaluation(
        specs=specs,
        grouping=grouping,
        values=values,
        raw=raw,
        aux=aux,
        empty=empty_mask,
        n_relevant=n_rel,
        weights=weights,
        convention=conv,
    )
