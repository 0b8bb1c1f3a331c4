"""Metric names as strings, ir-measures style: ``"ndcg@10"``, ``"map"``, ``"p@5"``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import _blocks as K

_ALIASES = {
    "ndcg": K.NDCG,
    "dcg": K.DCG,
    "idcg": K.IDCG,
    "map": K.AP,
    "ap": K.AP,
    "mrr": K.RR,
    "rr": K.RR,
    "p": K.PRECISION,
    "precision": K.PRECISION,
    "r": K.RECALL,
    "recall": K.RECALL,
    "hit": K.HIT,
    "hit_rate": K.HIT,
    "hitrate": K.HIT,
}

_CANONICAL = {
    K.NDCG: "ndcg",
    K.DCG: "dcg",
    K.IDCG: "idcg",
    K.AP: "map",
    K.RR: "mrr",
    K.PRECISION: "p",
    K.RECALL: "r",
    K.HIT: "hit",
}

# Metrics read from binary relevance (label above a threshold).
BINARY_KINDS = frozenset({K.AP, K.RR, K.PRECISION, K.RECALL, K.HIT})

_PATTERN = re.compile(r"^\s*([a-z_]+)\s*(?:@\s*(\d+))?\s*$")

VALID_FORMS = (
    '"ndcg@10", "ndcg", "dcg@5", "map@10", "ap", "mrr", "rr@10", "p@5", "r@20", '
    '"hit@10" (case-insensitive; without "@k" the whole list counts)'
)


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric: its kind and cut-off (``None`` for the whole list)."""

    kind: int
    k: int | None

    @property
    def name(self) -> str:
        base = _CANONICAL[self.kind]
        return base if self.k is None else f"{base}@{self.k}"


def parse_metric(name) -> MetricSpec:
    """Parse a metric name such as ``"NDCG@10"`` or ``"mrr"``.

    Examples
    --------
    >>> from skndcg.metrics._names import parse_metric
    >>> parse_metric("NDCG@10").name
    'ndcg@10'
    >>> parse_metric("ap").name
    'map'
    """
    if isinstance(name, MetricSpec):
        return name
    if not isinstance(name, str):
        raise TypeError(
            f"metric names must be strings such as 'ndcg@10', got {name!r} "
            f"({type(name).__name__})."
        )
    match = _PATTERN.match(name.lower())
    kind = _ALIASES.get(match.group(1)) if match else None
    if kind is None:
        raise ValueError(f"unknown metric {name!r}; valid forms are {VALID_FORMS}.")
    k = match.group(2)
    if k is not None:
        k = int(k)
        if k < 1:
            raise ValueError(f"metric {name!r} has cut-off {k}; it must be >= 1.")
    return MetricSpec(kind, k)


def check_unique(names: list, specs: list) -> None:
    """Refuse a metric asked for twice, under one name or two (``map@5``, ``ap@5``)."""
    seen: dict = {}
    for name, spec in zip(names, specs, strict=True):
        if spec in seen:
            raise ValueError(
                f"metrics has duplicates: {seen[spec]!r} and {name!r} both name "
                f"{spec.name}; give each metric once."
            )
        seen[spec] = name
