"""Metric names as strings, read from the measure registry.

The grammar is ``name``, ``name@k``, ``name(param=value, ...)`` and
``name(param=value)@k``, case-insensitive: ``"ndcg@10"``, ``"map"``,
``"rbp(p=0.8)"``. Which names exist, which parameters they take and whether they
accept a cut-off is the registry's (``_registry.py``) to say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...utils._number_text import number_text
from .. import _measures  # noqa: F401  (registers the built-in measures)
from .._beyond import _by_name  # noqa: F401  (and the beyond-accuracy ones)
from . import _registry as R
from ._trec_params import plain_number

# Kind of every measure that has no block kernel (``_registry.Measure.per_query``).
CUSTOM = -1

_PATTERN = re.compile(
    r"^\s*([a-z][a-z0-9_]*)\s*(?:\(([^()]*)\))?\s*(?:@\s*(-?[0-9]+))?\s*$"
)

VALID_FORMS = (
    '"ndcg@10", "ndcg", "dcg@5", "map@10", "ap", "mrr", "rr@10", "p@5", "r@20", '
    '"hit@10", "rbp(p=0.8)" (case-insensitive; without "@k" the whole list '
    "counts; the user guide lists every measure)"
)


# Metrics read from binary relevance (label above a threshold).
BINARY_KINDS = frozenset(
    m.block_kind for m in R.measures() if m.block_kind is not None and m.binary
)


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric: its kind, cut-off (``None`` for the whole list), measure
    name and parameter values (``(name, value)`` pairs, in declared order)."""

    kind: int
    k: int | None
    measure: str = field(default="")
    params: tuple = ()

    def __post_init__(self):
        if not self.measure:
            object.__setattr__(self, "measure", R.by_kind(self.kind).name)

    @property
    def definition(self) -> R.Measure:
        m = R.lookup(self.measure)
        if m is None:
            raise ValueError(
                f"the measure {self.measure!r} is no longer registered (it was "
                "unregistered after this metric name was read)."
            )
        return m

    def param(self, name: str):
        return dict(self.params)[name]

    @property
    def name(self) -> str:
        m = self.definition
        shown = [
            f"{p.name}={plain_number(v)}"
            for p, (_, v) in zip(m.params, self.params, strict=True)
            if v != p.default
        ]
        base = m.name + (f"({', '.join(shown)})" if shown else "")
        return base if self.k is None else f"{base}@{self.k}"


def _params(measure: R.Measure, text: str | None, name: str) -> tuple:
    given: dict = {}
    if text is not None and text.strip():
        for part in text.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise ValueError(
                    f"metric {name!r}: parameters are written name=value, as in "
                    f"'rbp(p=0.8)'; got {part.strip()!r}."
                )
            p = measure.param(key)
            try:
                number = float(number_text(value))
            except ValueError:
                raise ValueError(
                    f"metric {name!r}: parameter {key}={value.strip()!r} must be "
                    "a number."
                ) from None
            if key in given:
                raise ValueError(f"metric {name!r} gives parameter {key!r} twice.")
            given[key] = p.check(measure.name, number)
    return tuple((p.name, given.get(p.name, p.default)) for p in measure.params)


def parse_metric(name, shown=None) -> MetricSpec:
    """Parse a metric name such as ``"NDCG@10"``, ``"mrr"`` or ``"rbp(p=0.9)"``;
    messages name it as ``shown`` (the user's name, when ``name`` translates it).

    Examples
    --------
    >>> from skndcg.metrics._catalogue._names import parse_metric
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
    shown = name if shown is None else shown
    match = _PATTERN.match(name.lower())
    measure = R.lookup(match.group(1)) if match else None
    if measure is None:
        # trec_eval's and ir_measures' names (``P_10``, ``recip_rank``).
        from . import _trec_names

        other = _trec_names.translate(name)
        if other is not None:
            return parse_metric(other, shown)
        stripped, rel = _trec_names.split_rel(name)
        if rel is not None:
            raise ValueError(_rel_message(shown, stripped, rel))
        from .._beyond._names import lookup

        beyond = lookup(match.group(1) if match else name)
        if beyond is not None:
            raise ValueError(beyond.refusal(shown))
        raise ValueError(
            f"unknown metric {shown!r}; valid forms are {VALID_FORMS}, and "
            f"trec_eval's or ir_measures' names.{_trec_names.suggestion(name)}"
        )
    k = match.group(3)
    if k is not None:
        k = int(k)
        if not measure.cutoff:
            raise ValueError(
                f"metric {shown!r}: {measure.name} takes no cut-off; drop '@{k}'."
            )
        if k < 1:
            raise ValueError(f"metric {shown!r} has cut-off {k}; it must be >= 1.")
    if match.group(2) is not None and "rel" in match.group(2).replace(" ", ""):
        from ._trec_names import split_rel

        stripped, rel = split_rel(name)
        if rel is not None and not any(p.name == "rel" for p in measure.params):
            raise ValueError(_rel_message(shown, stripped, rel))
    params = _params(measure, match.group(2), shown)
    kind = CUSTOM if measure.block_kind is None else measure.block_kind
    return MetricSpec(kind, k, measure.name, params)


def _rel_message(name, stripped, rel) -> str:
    level = plain_number(rel)
    return (
        f"metric {name!r}: rel={level} sets the relevance level, which skndcg "
        f"sets for every metric of a call: ask for {stripped!r} with "
        f"rel_threshold={level} (skndcg score: -l {level})."
    )


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
