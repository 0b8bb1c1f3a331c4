"""The measure registry, read-only: which measures exist and what they need.

Every measure skndcg knows, built in or added with
:func:`skndcg.metrics.define_measure`, is one :class:`Measure` here. The
beyond-accuracy measures, which read items (popularity, features, the
catalogue) rather than ``(y_true, y_score, qid)`` alone, are listed by
:func:`beyond_accuracy` with the function that computes each; those that are
per-user sums over the top ``k`` are also measures by name, given ``item_id``
and ``popularity`` (their :class:`Measure` has ``side_inputs``). Other
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
>>> [m.function for m in registry.beyond_accuracy() if m.name == "novelty"]
['novelty_score']
>>> registry.describe("novelty").side_inputs
('item_id', 'popularity')
>>> [m.name for m in registry.beyond_accuracy() if m.by_name]
['novelty', 'arp', 'aplt', 'aclt', 'long_tail_recall', 'serendipity']
"""

from __future__ import annotations

from ._beyond._names import BEYOND_ACCURACY, BeyondAccuracy
from ._beyond._names import lookup as _beyond_lookup
from ._catalogue._names import MetricSpec, parse_metric
from ._catalogue._registry import Aggregate, Measure, Param
from ._catalogue._registry import lookup as _lookup
from ._catalogue._registry import measures as _measures
from ._core._side import check_side_inputs as _check_side_inputs

__all__ = [
    "Aggregate",
    "BeyondAccuracy",
    "Measure",
    "MetricSpec",
    "Param",
    "beyond_accuracy",
    "check_side_inputs",
    "describe",
    "measures",
    "names",
    "parse",
]


def measures() -> tuple[Measure, ...]:
    """Every registered measure read from ``(y_true, y_score, qid)`` alone,
    built-in ones first, each once.

    The beyond-accuracy measures that read ``item_id`` and ``popularity`` too
    are listed by :func:`beyond_accuracy`.

    Returns
    -------
    tuple of Measure
        Frozen descriptions: name, aliases, parameters, whether ``@k`` is
        accepted, which labels and extra inputs the measure reads, what it does
        with unjudged rows and when a query counts as empty.
    """
    return tuple(_measures())


def names() -> tuple[str, ...]:
    """Every registered measure's canonical name, in :func:`measures` order.

    Returns
    -------
    tuple of str
    """
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
        When no registered measure has that name; for a beyond-accuracy
        measure, the message names the function that computes it.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'ndcg', got {name!r}.")
    m = _lookup(name.strip().lower())
    if m is None:
        beyond = _beyond_lookup(name)
        if beyond is not None:
            raise ValueError(beyond.refusal(name))
        raise ValueError(
            f"no measure is registered as {name!r}; registered measures are "
            f"{list(names())}."
        )
    return m


def beyond_accuracy() -> tuple[BeyondAccuracy, ...]:
    """The beyond-accuracy measures, and which of them are named as metrics.

    They read item popularity, item features or categories, a user's history
    or the catalogue, and each is computed by its own function. Those that
    are per-user sums over the top ``k`` of one value per row (``by_name``,
    for example ``"novelty@10"``) are also measures of the registry, named
    among the metrics of a call that passes ``item_id`` and ``popularity``.
    The others (``why`` says why) are refused as metric names with a message
    naming their function.

    Returns
    -------
    tuple of BeyondAccuracy
        Each with its ``name``, ``aliases``, the ``function`` of
        :mod:`skndcg.metrics` that computes it, what it ``needs``, whether
        it is ``per_query`` (a mean of one value per query) or one value for
        all the lists together, and ``by_name`` or ``why``.
    """
    return BEYOND_ACCURACY


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
    return parse_metric(name)


def check_side_inputs(metrics, given, *, hint="") -> list[str]:
    """Check the side inputs of a call against the metrics that read them.

    The per-user beyond-accuracy measures read the item of each row and its
    training popularity. Every door into the engine (the metric functions,
    the scorers, Dask, Spark, streaming, the command line) applies this one
    rule, each naming the inputs as its own arguments: a side input given
    while no metric reads it is refused (a misspelt metric name would
    otherwise go unnoticed), and so is a missing one when a metric reads it.

    Parameters
    ----------
    metrics : sequence of str or MetricSpec
        The metric names of the call.
    given : dict
        Each side input, named as the caller's argument (``"item_col="``,
        ``"--popularity FILE"``), mapped to its value, or None when not given.
    hint : str, default=""
        Said after the names of the missing inputs.

    Returns
    -------
    list of str
        The canonical names of the metrics that read side inputs.

    Raises
    ------
    ValueError
        Naming the unused or the missing inputs.

    Examples
    --------
    >>> from skndcg.metrics import registry
    >>> registry.check_side_inputs(["ndcg@10", "novelty@10"],
    ...                            {"item_id=": [7, 8], "popularity=": {7: 3}})
    ['novelty@10']
    >>> registry.check_side_inputs(["ndcg@10"], {"popularity=": None})
    []
    >>> registry.check_side_inputs(["ndcg@10"], {"popularity=": {7: 3}})
    Traceback (most recent call last):
    ...
    ValueError: popularity= is read by the beyond-accuracy measures only ...
    """
    return _check_side_inputs(metrics, given, hint=hint)
