"""Per-query values to the reported means: the convention's empty rule,
covered queries and weights, applied once for every metric."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ...utils._values import py
from .._conventions import Convention
from ._group import Grouping


@dataclass
class Evaluation:
    """Per-query results of one evaluation: ``values[g, j]`` after the empty rule
    and the query coverage (NaN: left out of the mean), ``raw`` before them (the
    same array when nothing changed; neither is modified once built);
    ``excluded[g]``: nothing of query ``g`` retrieved."""

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
        n_relevant_retrieved, weights, convention, retrieved_only,
    ):  # fmt: skip
        empty = convention.empty_rule.mask(aux, label_sum)
        values = raw
        if empty.any():

            def error():
                g, j = np.argwhere(empty)[0]
                return (
                    f"query {py(grouping.keys[g])!r} has no relevant item, so "
                    f"{specs[j].name} is undefined for it (empty='error'); pass "
                    "empty='skip', 'zero' or 'one' to handle such queries."
                )

            values = convention.empty.apply(raw, empty, np, error)
        excluded = (n_retrieved == 0) & retrieved_only
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
            convention=convention,
        )

    def means(self, depth: int = 1, first: int | None = None) -> np.ndarray:
        """The mean of each metric (of the ``first`` ones) under the convention;
        an undefined mean warns ``depth`` calls above the caller."""
        sums = Means.of(self)
        if first is not None:
            sums = replace(sums, specs=sums.specs[:first], sums=sums.sums[:first])
        return sums.result(self.convention, stacklevel=3 + depth)


@dataclass
class Means:
    """The sums the means of several metrics are made of, over some queries,
    which add up over a partition of them (:meth:`merge`); a metric with its own
    aggregate (gm_map) enters as its terms and leaves through its ``back``."""

    specs: list  # the parsed metrics
    # (n_metrics, 3): numerator, denominator, queries kept (torch: 0-d tensors)
    sums: np.ndarray
    n_queries: int = 0  # queries of the pieces
    n_counted: int = 0  # of which with a retrieved row (the others are left out)
    weighted: bool = False

    #: Floats per metric in :meth:`row`.
    N_SUMS = 3

    @classmethod
    def of(cls, ev: Evaluation) -> Means:
        """The sums of an :class:`Evaluation`'s queries."""
        keep_q = slice(None) if not ev.excluded.any() else ~ev.excluded
        w = None if ev.weights is None else ev.weights[keep_q]
        sums = np.zeros((len(ev.specs), cls.N_SUMS))
        for j, sp in enumerate(ev.specs):
            v = np.ascontiguousarray(ev.values[keep_q, j])
            agg = sp.definition.aggregate
            if agg is not None:
                v = np.asarray(agg.term(v), dtype=np.float64)
            sums[j] = ev.convention.weighting.sums(v, w, ev.empty[keep_q, j])
        n = ev.grouping.n_groups
        return cls(ev.specs, sums, n, n - int(ev.excluded.sum()), w is not None)

    @classmethod
    def of_values(cls, specs, values, counted, xp) -> Means:
        """The unweighted sums of per-query ``values`` (one array per metric in
        ``xp``, numpy or torch, whose dtype they keep) over the ``counted``
        queries (one mask per metric)."""
        sums = []
        for sp, v, c in zip(specs, values, counted, strict=True):
            agg = sp.definition.aggregate
            if agg is not None:
                # gm_map, gm_bpref: the registry writes them with numpy.
                arr = v if isinstance(v, np.ndarray) else v.detach().cpu().numpy()
                v = _like(agg.term(arr.astype(np.float64)), v, xp)
            n = c.sum()
            total = xp.where(c, v, xp.zeros_like(v)).sum()
            sums.append((total, n.to(v.dtype) if xp is not np else float(n), int(n)))
        n_queries = int(counted[0].shape[0]) if counted else 0
        return cls(list(specs), sums, n_queries, n_queries, False)

    @classmethod
    def merge(cls, parts) -> Means:
        """The sums over the queries of all ``parts``, exactly (in any order)."""
        parts = list(parts)
        first = parts[0]
        stack = np.stack([p.sums for p in parts])
        sums = np.array(
            [[math.fsum(stack[:, j, i]) for i in range(cls.N_SUMS)]
             for j in range(len(first.specs))]
        ).reshape(len(first.specs), cls.N_SUMS)  # fmt: skip
        return cls(
            first.specs,
            sums,
            sum(p.n_queries for p in parts),
            sum(p.n_counted for p in parts),
            any(p.weighted for p in parts),
        )

    def row(self) -> np.ndarray:
        """The sums as one row of floats (without ``weighted``)."""
        counts = [self.n_queries, self.n_counted]
        return np.concatenate([np.asarray(self.sums, dtype=np.float64).ravel(), counts])

    @classmethod
    def width(cls, n_metrics: int) -> int:
        """The length of :meth:`row` for ``n_metrics`` metrics."""
        return cls.N_SUMS * n_metrics + 2

    @classmethod
    def from_row(cls, specs, row, weighted: bool) -> Means:
        """The sums of :meth:`row`, for the parsed metrics ``specs``."""
        row = np.asarray(row, dtype=np.float64)
        n = cls.N_SUMS * len(specs)
        sums = row[:n].reshape(len(specs), cls.N_SUMS)
        return cls(list(specs), sums, int(row[n]), int(row[n + 1]), weighted)

    def result(self, conv, *, stacklevel: int = 4, xp=np) -> list:
        """The mean of each metric under ``conv`` (floats, or 0-d tensors)."""
        why = (
            "no query has a relevant item"
            if self.n_counted or not self.n_queries
            else "no query has a retrieved row"
        )
        out = []
        for sp, (num, den, kept) in zip(self.specs, self.sums, strict=True):
            mean = conv.weighting.finish(
                num, den, kept, all_skipped=conv.all_skipped,
                weighted=self.weighted, name=sp.name, why=why,
                stacklevel=stacklevel + 1,
            )  # fmt: skip
            agg = sp.definition.aggregate
            if agg is not None and kept:
                mean = float(agg.back(mean))
            out.append(mean if xp is np else _like(np.float64(mean), num, xp))
        return np.array(out) if xp is np else out


def _like(a: np.ndarray, ref, xp):
    """``a`` in the array module, device and dtype of ``ref``."""
    if xp is np:
        return np.asarray(a, dtype=np.float64)
    return xp.as_tensor(np.asarray(a), device=ref.device).to(ref.dtype)
