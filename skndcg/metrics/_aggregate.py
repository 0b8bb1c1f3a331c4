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
        conv = self.convention
        # Every query counts unless some were excluded: then no masks are built.
        keep_q = slice(None) if not self.excluded.any() else ~self.excluded
        v = np.ascontiguousarray(self.values[keep_q, j])
        w = None if self.weights is None else self.weights[keep_q]
        if conv.weighting != "mean" and v.size:
            empty = self.empty[keep_q, j]
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
        if keep.all():
            keep = slice(None)
        elif not keep.any():
            if conv.all_skipped == "zero":
                return 0.0
            from sklearn.exceptions import UndefinedMetricWarning

            why = (
                "no query has a relevant item"
                if not self.excluded.all()
                else "no query has a retrieved row"
            )
            warnings.warn(
                f"{self.specs[j].name}: every query was skipped ({why}); the score "
                "is undefined and nan is returned. Pass empty='zero' or empty='one' "
                "to score such queries.",
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
