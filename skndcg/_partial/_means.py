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
import re
import warnings
from dataclasses import dataclass, replace

import numpy as np

from ..metrics._conventions import PRESETS as CONVENTION_PRESETS


@dataclass(frozen=True)
class Averaging:
    """What the means need to know about a convention."""

    weighting: str = "mean"  # or "empty_unweighted", "empty_unweighted_clamped"
    all_skipped: str = "nan"  # or "zero": the result when every query is skipped
    empty: str = "skip"  # value of an empty query: "skip" (NaN), "zero", "one"
    empty_rule: str = "ideal"  # or "label_sum": when a query is empty

    @property
    def fill(self) -> float:
        return {"skip": np.nan, "zero": 0.0, "one": 1.0}.get(self.empty, np.nan)


# How each preset averages, read off the in-memory conventions themselves.
_PRESETS = {
    name: Averaging(
        weighting=c.weighting,
        all_skipped=c.all_skipped,
        empty=c.empty,
        empty_rule=c.empty_rule,
    )
    for name, c in CONVENTION_PRESETS.items()
}
_NAME = re.compile(r"^\s*([a-z_]+)\s*(?:@\s*(\d+))?\s*$")
_ALIASES = {
    "ap": "map",
    "rr": "mrr",
    "precision": "p",
    "recall": "r",
    "hit_rate": "hit",
    "hitrate": "hit",
}
_DCG_FAMILY = frozenset({"ndcg", "dcg", "idcg"})
# Partial sums kept per metric: numerator, denominator, queries kept.
N_SUMS = 3


def metric_names(metrics) -> list[str]:
    """``metrics=`` as a list of names, refusing duplicates as in memory."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if len(set(names)) != len(names):
        raise ValueError(f"metrics has duplicate names: {names!r}.")
    if not names:
        raise ValueError("metrics is empty; ask for at least one metric.")
    return names


def averaging(convention=None, empty=None) -> Averaging:
    """How ``convention=`` (a preset name or None) and ``empty=`` average."""
    if convention is None:
        rules = _PRESETS["skndcg"]
    elif isinstance(convention, str):
        key = convention.lower().replace("-", "_")
        if key not in _PRESETS:
            raise ValueError(
                f"convention={convention!r} is not a known preset; expected None "
                f"or one of {sorted(_PRESETS)}."
            )
        rules = _PRESETS[key]
    else:
        raise TypeError(
            "convention must be None or a preset name, got "
            f"{type(convention).__name__}."
        )
    return rules if empty is None else replace(rules, empty=empty)


def _idcg_column(report, name: str, names: list[str]) -> str:
    """The report column holding the ideal DCG behind a DCG-family metric."""
    k = _NAME.match(name.lower()).group(2)
    wanted = "idcg" if k is None else f"idcg@{int(k)}"
    if wanted in report.columns:
        return wanted
    # Asked for by the caller under another spelling ("IDCG@10").
    for other in names:
        if _canonical(other) == wanted:
            return other
    raise KeyError(wanted)  # pragma: no cover - the report always has it


def _canonical(name: str) -> str:
    match = _NAME.match(name.lower())
    kind, k = _ALIASES.get(match.group(1), match.group(1)), match.group(2)
    return kind if k is None else f"{kind}@{int(k)}"


def _is_dcg_family(name: str) -> bool:
    match = _NAME.match(name.lower())
    return bool(match) and match.group(1) in _DCG_FAMILY


def empty_mask(report, name, names, rules: Averaging, label_sum=None) -> np.ndarray:
    """Queries that are empty for one metric, as the convention decides."""
    if rules.empty_rule == "label_sum":
        return np.asarray(label_sum) == 0
    if _is_dcg_family(name):
        return report[_idcg_column(report, name, names)].to_numpy() <= 0
    return report["n_relevant"].to_numpy() <= 0


def metric_values(report, name, names, rules: Averaging, label_sum=None):
    """Per-query values that enter the mean.

    The report shows DCG and ideal DCG as computed; the mean reads them after the
    empty rule, like every other metric column.
    """
    v = report[name].to_numpy(np.float64)
    match = _NAME.match(name.lower())
    if match and match.group(1) in ("dcg", "idcg"):
        v = np.where(empty_mask(report, name, names, rules, label_sum), rules.fill, v)
    return v


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
        if rules.weighting != "mean":
            if w is None:
                num, den = np.sum(v), float(v.shape[0])
            else:
                empty = empty_mask(report, name, names, rules, label_sum)
                num, den = np.sum(np.where(empty, v, v * w)), np.sum(w)
            kept = v.shape[0]
        else:
            keep = ~np.isnan(v)
            if w is None:
                num, den = np.sum(v[keep]), float(keep.sum())
            else:
                num, den = np.sum(v[keep] * w[keep]), np.sum(w[keep])
            kept = keep.sum()
        out[N_SUMS * j : N_SUMS * (j + 1)] = num, den, kept
    return out


def combine(parts, names, rules: Averaging, *, weighted: bool) -> dict:
    """Add up the partial sums of every piece and return ``{name: mean}``."""
    parts = np.asarray(parts, dtype=np.float64).reshape(-1, N_SUMS * len(names) + 1)
    result = {}
    for j, name in enumerate(names):
        num, den, kept = (math.fsum(parts[:, N_SUMS * j + i]) for i in range(N_SUMS))
        result[name] = _mean(name, num, den, kept, rules, weighted)
    return result


def _mean(name, num, den, kept, rules: Averaging, weighted: bool) -> float:
    if rules.weighting != "mean":
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(np.float64(num) / np.float64(den))
        if weighted and rules.weighting == "empty_unweighted_clamped":
            if value > 1.0 + 1e-6:
                raise ValueError(
                    f"convention='xgboost' gives {value!r} > 1 with these query "
                    "weights (XGBoost raises 'Invalid output score' here): empty "
                    "queries are counted without their weight."
                )
            value = min(value, 1.0)
        return value
    if kept == 0:
        if rules.all_skipped == "zero":
            return 0.0
        from sklearn.exceptions import UndefinedMetricWarning

        warnings.warn(
            f"{_canonical(name)}: every query was skipped (no query has a relevant "
            "item); the score is undefined and nan is returned. Pass empty='zero' "
            "or empty='one' to score such queries.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
        return float("nan")
    if weighted and den <= 0:
        raise ValueError(
            "sample_weight sums to zero over the queries that are scored; "
            "at least one scored query needs a positive weight."
        )
    return num / den
