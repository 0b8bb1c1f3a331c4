"""Per-query values to the reported means: the empty rule, covered queries, weights.

The kernels give each query's raw value of each metric. What a query with nothing
relevant scores (``empty``), whether a query with nothing retrieved counts
(``queries``), and how query weights combine (a weighted mean, or the LightGBM and
XGBoost way) are decided here, once for every metric.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ._conventions import Convention
from ._group import Grouping
from ._validate import py


@dataclass
class Evaluation:
    """Per-query results of one evaluation.

    ``values[g, j]`` is metric ``j`` of query ``g`` after the empty rule and the
    query coverage (NaN where the query is left out of the mean); ``raw`` is the
    value before them (the same array when neither changed anything; neither is
    modified once built); ``empty[g, j]`` marks queries without a relevant item
    and ``excluded[g]`` queries left out because nothing of theirs was retrieved.
    """

    specs: list
    grouping: Grouping
    values: np.ndarray
    raw: np.ndarray
    aux: np.ndarray
    empty: np.ndarray
    excluded: np.ndarray
    n_relevant: np.ndarray
    n_retrieved: np.ndarray
    n_relevant_retrieved: np.ndarray
    weights: np.ndarray | None
    convention: Convention

    @classmethod
    def build(
        cls, *, specs, grouping, raw, aux, n_relevant, label_sum, n_retrieved,
        n_relevant_retrieved, weights, convention, queries,
    ):  # fmt: skip
        conv = convention
        if conv.empty_rule == "label_sum":
            empty = np.repeat((label_sum == 0)[:, None], len(specs), axis=1)
        else:
            empty = aux <= 0
        if empty.any():
            if conv.empty == "error":
                g, j = np.argwhere(empty)[0]
                raise ValueError(
                    f"query {py(grouping.keys[g])!r} has no relevant item, so "
                    f"{specs[j].name} is undefined for it (empty='error'); pass "
                    "empty='skip', 'zero' or 'one' to handle such queries."
                )
            fill = {"skip": np.nan, "zero": 0.0, "one": 1.0}[conv.empty]
            values = np.where(empty, fill, raw)
        else:
            values = raw  # nothing to change: one array serves as both
        # A judged query with nothing retrieved scores 0 (set by the kernel); it
        # counts in the mean only when every judged query does.
        excluded = (n_retrieved == 0) & (queries == "retrieved")
        if excluded.any():
            if values is raw:
                values = raw.copy()
            values[excluded, :] = np.nan
        return cls(
            specs=specs,
            grouping=grouping,
            values=values,
            raw=raw,
            aux=aux,
            empty=empty,
            excluded=excluded,
            n_relevant=n_relevant,
            n_retrieved=np.asarray(n_retrieved, dtype=np.int64),
            n_relevant_retrieved=n_relevant_retrieved,
            weights=weights,
            convention=conv,
        )

    def means(self) -> np.ndarray:
        """The average of each metric over queries, as the convention defines it."""
        return np.array([self._mean(j) for j in range(len(self.specs))])

    def _mean(self, j: int) -> float:
        # Every query counts unless some were excluded: then no masks are built.
        keep_q = slice(None) if not self.excluded.any() else ~self.excluded
        v = np.ascontiguousarray(self.values[keep_q, j])
        w = None if self.weights is None else self.weights[keep_q]
        conv = self.convention
        agg = self.specs[j].definition.aggregate
        if agg is not None:
            v = np.asarray(agg.term(v), dtype=np.float64)
        num, den, kept = piece_sums(v, w, self.empty[keep_q, j], conv.weighting)
        why = (
            "no query has a relevant item"
            if not self.excluded.all()
            else "no query has a retrieved row"
        )
        mean = finish_mean(
            num, den, kept, weighting=conv.weighting, all_skipped=conv.all_skipped,
            weighted=w is not None, name=self.specs[j].name, why=why, stacklevel=5,
        )  # fmt: skip
        return mean if agg is None or kept == 0 else float(agg.back(mean))


def piece_sums(v, w, empty, weighting: str) -> tuple:
    """The sums a mean over queries is made of: ``(numerator, denominator,
    queries kept)``, for any subset of the queries (they add up over a partition).

    ``v`` holds per-query values (NaN for a skipped query), ``w`` the query
    weights or None, ``empty`` which queries are empty (read only by the LightGBM
    and XGBoost weightings, where an empty query adds its value without weight).
    """
    if weighting != "mean" and v.size:
        if w is None:
            return np.sum(v), float(v.shape[0]), v.shape[0]
        return np.sum(np.where(empty, v, v * w)), np.sum(w), v.shape[0]
    keep = ~np.isnan(v)
    if keep.all():
        keep = slice(None)
        kept = v.shape[0]
    else:
        kept = int(keep.sum())
    if w is None:
        return np.sum(v[keep]), float(kept), kept
    return np.sum(v[keep] * w[keep]), np.sum(w[keep]), kept


def finish_mean(
    num, den, kept, *, weighting, all_skipped, weighted, name, why, stacklevel=4
) -> float:
    """The mean from the sums of :func:`piece_sums` (added over pieces)."""
    if weighting != "mean" and kept:
        if not weighted:
            return float(num / den)
        result = float(num / den)
        if weighting == "empty_unweighted_clamped":
            if result > 1.0 + 1e-6:
                raise ValueError(
                    f"convention='xgboost' gives {result!r} > 1 with these query "
                    "weights (XGBoost raises 'Invalid output score' here): empty "
                    "queries are counted without their weight."
                )
            result = min(result, 1.0)
        return result
    if kept == 0:
        if all_skipped == "zero":
            return 0.0
        from sklearn.exceptions import UndefinedMetricWarning

        warnings.warn(
            f"{name}: every query was skipped ({why}); the score "
            "is undefined and nan is returned. Pass empty='zero' or empty='one' "
            "to score such queries.",
            UndefinedMetricWarning,
            stacklevel=stacklevel,
        )
        return float("nan")
    if not weighted:
        return float(num / den)
    if den <= 0:
        raise ValueError(
            "sample_weight sums to zero over the queries that are scored; "
            "at least one scored query needs a positive weight."
        )
    return float(num / den)
