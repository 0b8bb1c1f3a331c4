"""Per-query reports to partial sums, and partial sums to the in-memory means.

A mean over queries is a ratio of two sums, so it can be split over any partition
of the queries: each piece contributes its numerator, its denominator and how many
queries it kept, and the pieces add up. Each convention averages as the in-memory
:func:`skndcg.metrics.grouped_ranking_scores` does:

- ``"mean"`` (every preset but two): the mean, weighted by ``weight`` when given,
  of the values that are not NaN (skipped queries are NaN in the report). When
  every query is skipped the result is NaN with an ``UndefinedMetricWarning``, or
  0 for the presets whose peer returns 0 then.
- LightGBM and XGBoost: every query's weight counts in the denominator, while an
  empty query (no relevant item) adds its value without its weight. XGBoost
  refuses a result above 1 and clamps rounding noise to 1.

The report's ``weight`` column already holds the weights as the convention reads
them (float32 for LightGBM and XGBoost).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..metrics._shared import (
    check_unique,
    ensure_registered,
    finish_mean,
    get_convention,
    parse_metric,
    piece_sums,
)


@dataclass(frozen=True)
class Averaging:
    """What the means need to know about a convention."""

    weighting: str = "mean"  # or "empty_unweighted", "empty_unweighted_clamped"
    all_skipped: str = "nan"  # or "zero": the result when every query is skipped
    empty: str = "skip"  # value of an empty query: "skip" (NaN), "zero", "one"
    empty_rule: str = "ideal"  # or "label_sum": when a query is empty
    # The measures added with define_measure when the rules were made: pickled
    # with the rules, they are registered again in a Dask or Spark worker.
    measures: tuple = field(default=(), compare=False, repr=False)

    def __reduce__(self):
        return (_restore, (self.weighting, self.all_skipped, self.empty,
                           self.empty_rule, self.measures))  # fmt: skip

    @property
    def fill(self) -> float:
        return {"skip": np.nan, "zero": 0.0, "one": 1.0}.get(self.empty, np.nan)

    @classmethod
    def of(cls, conv) -> Averaging:
        """The averaging rules of a :class:`~skndcg.metrics._conventions.Convention`."""
        return cls(
            weighting=conv.weighting,
            all_skipped=conv.all_skipped,
            empty=conv.empty,
            empty_rule=conv.empty_rule,
        )


def _restore(weighting, all_skipped, empty, empty_rule, measures) -> Averaging:
    ensure_registered(measures)
    return Averaging(weighting, all_skipped, empty, empty_rule, measures)


# Partial sums kept per metric: numerator, denominator, queries kept.
N_SUMS = 3


def metric_names(metrics) -> list[str]:
    """``metrics=`` as a list of names, refusing unknown names and duplicates
    (one metric under two names included) as in memory."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics is empty; ask for at least one metric.")
    check_unique(names, [parse_metric(n) for n in names])
    return names


def averaging(convention=None, empty=None, names=()) -> Averaging:
    """How ``convention=`` (a preset name or None) and ``empty=`` average; the
    rules carry the measures of ``names`` added with ``define_measure``."""
    if convention is not None and not isinstance(convention, str):
        raise TypeError(
            "convention must be None or a preset name, got "
            f"{type(convention).__name__}."
        )
    used = dict.fromkeys(parse_metric(n).definition for n in names)
    rules = replace(
        Averaging.of(get_convention(convention)),
        measures=tuple(m for m in used if not m.builtin),
    )
    return rules if empty is None else replace(rules, empty=empty)


def _idcg_column(report, name: str, names: list[str]) -> str:
    """The report column holding the ideal DCG behind a DCG-family metric."""
    sp = parse_metric(name)
    wanted = parse_metric("idcg" if sp.k is None else f"idcg@{sp.k}")
    if wanted.name in report.columns:
        return wanted.name
    # Asked for by the caller under another spelling ("IDCG@10").
    for other in names:
        if parse_metric(other) == wanted:
            return other
    raise KeyError(wanted.name)  # pragma: no cover - the report always has it


def empty_mask(report, name, names, rules: Averaging, label_sum=None) -> np.ndarray:
    """Queries that are empty for one metric, as the convention decides."""
    if rules.empty_rule == "label_sum":
        return np.asarray(label_sum) == 0
    rule = parse_metric(name).definition.empty_when
    if rule == "ideal_zero":
        return report[_idcg_column(report, name, names)].to_numpy() <= 0
    if rule == "never":
        return np.zeros(len(report), dtype=bool)
    return report["n_relevant"].to_numpy() <= 0


def metric_values(report, name, names, rules: Averaging, label_sum=None):
    """Per-query values that enter the mean.

    The report shows DCG and ideal DCG as computed; the mean reads them after the
    empty rule, like every other metric column.
    """
    v = report[name].to_numpy(np.float64)
    if parse_metric(name).measure in ("dcg", "idcg"):
        v = np.where(empty_mask(report, name, names, rules, label_sum), rules.fill, v)
    agg = parse_metric(name).definition.aggregate
    return v if agg is None else np.asarray(agg.term(v), dtype=np.float64)


def partial_sums(report, names, rules: Averaging, *, queries=None, label_sum=None):
    """Sums of one piece: ``N_SUMS`` per metric, then the number of queries in
    the report. ``label_sum`` (per report row) is needed by the label-sum rule."""
    out = np.zeros(N_SUMS * len(names) + 1)
    out[-1] = len(report)
    if "n_retrieved" in report.columns and queries in (None, "retrieved"):
        # Only the queries with a retrieved row count (trec_eval's default).
        counted = report["n_retrieved"].to_numpy() > 0
        report = report[counted]
        label_sum = None if label_sum is None else np.asarray(label_sum)[counted]
    w = report["weight"].to_numpy(np.float64) if "weight" in report.columns else None
    for j, name in enumerate(names):
        v = metric_values(report, name, names, rules, label_sum)
        empty = None
        if rules.weighting != "mean" and w is not None:
            empty = empty_mask(report, name, names, rules, label_sum)
        num, den, kept = piece_sums(v, w, empty, rules.weighting)
        out[N_SUMS * j : N_SUMS * (j + 1)] = num, den, kept
    return out


def combine(parts, names, rules: Averaging, *, weighted: bool) -> dict:
    """Add up the partial sums of every piece and return ``{name: mean}``."""
    parts = np.asarray(parts, dtype=np.float64).reshape(-1, N_SUMS * len(names) + 1)
    result = {}
    for j, name in enumerate(names):
        num, den, kept = (math.fsum(parts[:, N_SUMS * j + i]) for i in range(N_SUMS))
        result[name] = finish_mean(
            np.float64(num), np.float64(den), kept, weighting=rules.weighting,
            all_skipped=rules.all_skipped, weighted=weighted,
            name=parse_metric(name).name, why="no query has a relevant item",
            stacklevel=4,
        )  # fmt: skip
        agg = parse_metric(name).definition.aggregate
        if agg is not None and kept:
            result[name] = float(agg.back(result[name]))
    return result
