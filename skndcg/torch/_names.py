"""Measure names and the tensor implementation of each measure family."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import _families as F

#: Canonical family name -> its tensor implementation. Each takes the ranked
#: blocks (:class:`skndcg.torch._ranked.Ranked`), the cut-off and the options
#: and returns one value per query; skipping and averaging happen elsewhere.
FAMILIES = {
    "ndcg": F.ndcg,
    "dcg": F.dcg,
    "map": F.average_precision,
    "mrr": F.reciprocal_rank,
    "p": F.precision,
    "r": F.recall,
    "hit": F.hit_rate,
}

_ALIASES = {
    "ndcg": "ndcg",
    "dcg": "dcg",
    "map": "map",
    "ap": "map",
    "mrr": "mrr",
    "rr": "mrr",
    "p": "p",
    "precision": "p",
    "r": "r",
    "recall": "r",
    "hit": "hit",
    "hit_rate": "hit",
    "hitrate": "hit",
}

#: Families read from binary relevance (label above a threshold).
BINARY = frozenset({"map", "mrr", "p", "r", "hit"})

_PATTERN = re.compile(r"^\s*([a-z_]+)\s*(?:@\s*(\d+))?\s*$")


@dataclass(frozen=True)
class Measure:
    """A parsed measure name: canonical family and cut-off (None: whole list)."""

    family: str
    k: int | None

    @property
    def name(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}"


def parse(name) -> Measure:
    """Parse ``"NDCG@10"``, ``"map"``, ``"p@5"``... as :mod:`skndcg.metrics` does."""
    if not isinstance(name, str):
        raise TypeError(
            f"metric must be a name such as 'ndcg@10', got {name!r} "
            f"({type(name).__name__})."
        )
    match = _PATTERN.match(name.lower())
    family = _ALIASES.get(match.group(1)) if match else None
    if family is None:
        raise ValueError(
            f"unknown metric {name!r}; expected one of {sorted(set(_ALIASES))}, "
            "optionally with a cut-off such as '@10'."
        )
    k = match.group(2)
    if k is not None:
        k = int(k)
        if k < 1:
            raise ValueError(f"metric {name!r} has cut-off {k}; it must be >= 1.")
    return Measure(family, k)
