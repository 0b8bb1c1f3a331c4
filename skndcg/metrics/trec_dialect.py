"""trec_eval's names for the registry's measures, and how skndcg reads them.

trec_eval names its measures its own way (``P_10``, ``ndcg_cut_10``,
``recip_rank``), takes families with parameters after ``-m`` (``P.5,10``,
``ndcg.1=0.5,2=3``) and nicknames for sets of families (``official``,
``all_trec``, ``set``), and prints its lines in a fixed order. This module
reads those names into the registry's measures (:func:`expand`,
:func:`resolve`), writes a registry measure back in trec_eval's name
(:func:`to_trec`), and lists the names and the order: a front end that speaks
trec_eval (``skndcg score --format trec``, a user's own report) reads them
here.

Examples
--------
>>> from skndcg.metrics import trec_dialect
>>> [(m.trec_name, m.metric) for m in trec_dialect.resolve(["P.5,10"])[0]]
[('P_5', 'p@5'), ('P_10', 'p@10')]
>>> trec_dialect.to_trec("ndcg@10")[0]
'ndcg_cut_10'
"""

from __future__ import annotations

from types import MappingProxyType

from ._catalogue import _names
from ._catalogue import _trec_names as _T
from ._catalogue._trec_names import TrecMeasure

__all__ = [
    "COUNTS",
    "NICKNAMES",
    "SUMMED",
    "TABLE_ORDER",
    "TrecMeasure",
    "expand",
    "gain_function",
    "resolve",
    "split_rel",
    "to_trec",
]

#: trec_eval's counts, which no measure computes: the run's tag, the number of
#: queries, and per query the numbers of retrieved, relevant and relevant
#: retrieved documents.
COUNTS = _T.COUNTS
#: trec_eval's nicknames (``official``, ``all_trec``, ``set``) and the
#: families each stands for, skndcg's or not (read-only).
NICKNAMES = MappingProxyType(_T.NICKNAMES)
#: The measures trec_eval prints as whole numbers, summed over the queries.
SUMMED = _T.SUMMED
#: trec_eval's families and counts in the order it prints them.
TABLE_ORDER = _T.TABLE_ORDER


def expand(arg: str) -> tuple[list[TrecMeasure], list[str]]:
    """The measures one trec_eval ``-m`` argument asks for.

    Parameters
    ----------
    arg : str
        A family with optional parameters (``"P"``, ``"P.5,10"``,
        ``"ndcg.1=0.5,2=3"``), one measure (``"P_10"``, ``"recip_rank"``) or
        a nickname (``"official"``), spelled as trec_eval spells it.

    Returns
    -------
    measures : list of TrecMeasure
        One per line of trec_eval's output.
    missing : list of str
        The families of a nickname that skndcg does not compute.

    Raises
    ------
    ValueError
        For a name trec_eval does not know or bad parameters; the message
        suggests the nearest valid name.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import expand
    >>> [(m.trec_name, m.metric) for m in expand("P.5,10")[0]]
    [('P_5', 'p@5'), ('P_10', 'p@10')]
    >>> expand("recip_rank")[0][0].metric
    'mrr'
    """
    return _T.expand(arg)


def resolve(args) -> tuple[list[TrecMeasure], list[str]]:
    """The measures several ``-m`` arguments ask for, as trec_eval reads them.

    Each family comes once, with the parameters of its first argument that
    gives some (``-m official -m P.10`` is ``P_10`` alone), else with its
    defaults; the measures are in the order trec_eval prints them.

    Parameters
    ----------
    args : list of str
        trec_eval's ``-m`` arguments (see :func:`expand`).

    Returns
    -------
    measures : list of TrecMeasure
    missing : list of str
        The families of a nickname that skndcg does not compute.

    Raises
    ------
    ValueError
        For a name trec_eval does not know or bad parameters.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import resolve
    >>> [m.trec_name for m in resolve(["P.5", "map", "P.10"])[0]]
    ['map', 'P_5']
    """
    return _T.resolve(args)


def split_rel(name: str) -> tuple[str, float | None]:
    """An ir_measures name without its ``rel=`` parameter, and that level.

    Parameters
    ----------
    name : str
        A metric name, such as ir_measures' ``"P(rel=2)@5"``.

    Returns
    -------
    name : str
        ``name`` without ``rel=``.
    level : float or None
        The relevance level ``rel=`` gives, or None when it gives none.

    Raises
    ------
    ValueError
        When ``rel=`` is not a number.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import split_rel
    >>> split_rel("P(rel=2)@5")
    ('P@5', 2.0)
    >>> split_rel("ndcg@10")
    ('ndcg@10', None)
    """
    return _T.split_rel(name)


def to_trec(metric) -> tuple[str, tuple] | None:
    """trec_eval's name of a metric and its place in trec_eval's order.

    Parameters
    ----------
    metric : str or MetricSpec
        A metric name (``"ndcg@10"``), or one read by
        :func:`skndcg.metrics.registry.parse`.

    Returns
    -------
    (str, tuple) or None
        trec_eval's name and a sort key that puts it where trec_eval prints
        it (its family's place in :data:`TABLE_ORDER` first), or None when
        trec_eval has no such measure.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import to_trec
    >>> to_trec("ndcg@10")
    ('ndcg_cut_10', (26, 10))
    >>> to_trec("map")[0], to_trec("err@5")
    ('map', None)
    """
    return _T.to_trec(_names.parse_metric(metric))


def gain_function(gains):
    """The ``gain=`` function of trec_eval's custom ndcg gains.

    Parameters
    ----------
    gains : sequence of (level, gain) pairs
        As a :class:`TrecMeasure` carries them (``ndcg.1=0.5,2=3``).

    Returns
    -------
    callable
        Labels to gains: each listed level its gain, every other level its
        own value; labels below 0 count as 0.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import expand, gain_function
    >>> measure = expand("ndcg.1=0.5,2=3")[0][0]
    >>> measure.gains
    ((1, 0.5), (2, 3.0))
    >>> gain_function(measure.gains)([0, 1, 2, 4]).tolist()
    [0.0, 0.5, 3.0, 4.0]
    """
    return _T.gain_function(gains)
