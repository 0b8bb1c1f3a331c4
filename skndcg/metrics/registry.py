"""The measure registry, read-only: which measures exist and what they need.

Every measure skndcg knows, built in or added with
:func:`skndcg.metrics.define_measure`, is one :class:`Measure` here. Other
packages (the command line, the tensor backend, the scale-out driver) and users
read the registry through these functions rather than through the engine's
modules.

Examples
--------
>>> from skndcg.metrics import registry
>>> registry.describe("ndcg").cutoff
True
>>> spec = registry.parse("RBP(p=0.9)@10")
>>> spec.name, spec.k, spec.params
('rbp(p=0.9)@10', 10, (('p', 0.9),))
>>> "err" in registry.names()
True
"""

from __future__ import annotations

from . import _names
from ._names import MetricSpec
from ._registry import Aggregate, Measure, Param
from ._registry import lookup as _lookup
from ._registry import measures as _measures

__all__ = [
    "Aggregate",
    "Measure",
    "MetricSpec",
    "Param",
    "describe",
    "measures",
    "names",
    "parse",
]


def measures() -> tuple[Measure, ...]:
    """Every registered measure, built-in ones first, each once.

    Returns
    -------
    tuple of Measure
        Frozen descriptions: name, aliases, parameters, whether ``@k`` is
        accepted, which labels and extra inputs the measure reads, what it does
        with unjudged rows and when a query counts as empty.
    """
    return tuple(_measures())


def names() -> tuple[str, ...]:
    """Every registered measure's canonical name, in :func:`measures` order."""
    return tuple(m.name for m in _measures())


def describe(name: str) -> Measure:
    """The measure a family name or alias stands for (``"ndcg"``, ``"ap"``).

    Parameters
    ----------
    name : str
        A measure's name or alias, any case, without ``@k`` or parameters.

    Returns
    -------
    Measure

    Raises
    ------
    ValueError
        When no registered measure has that name.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'ndcg', got {name!r}.")
    m = _lookup(name.strip().lower())
    if m is None:
        raise ValueError(
            f"no measure is registered as {name!r}; registered measures are "
            f"{list(names())}."
        )
    return m


def parse(name) -> MetricSpec:
    """Read a metric name: ``"ndcg@10"``, ``"map"``, ``"rbp(p=0.8)@5"``.

    trec_eval's and ir_measures' spellings (``"P_10"``, ``"recip_rank"``,
    ``"nDCG@10"``) are read too.

    Parameters
    ----------
    name : str or MetricSpec

    Returns
    -------
    MetricSpec
        With ``name`` (canonical), ``k`` (None for the whole list), ``params``
        (``(name, value)`` pairs) and ``definition`` (the :class:`Measure`).

    Raises
    ------
    ValueError
        For an unknown name, a cut-off the measure does not take, or a bad
        parameter; the message says what is accepted.
    """
    return _names.parse_metric(name)
