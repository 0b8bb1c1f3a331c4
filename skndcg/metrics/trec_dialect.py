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

from ._catalogue import _trec_names as _T
from ._catalogue._trec_names import (
    TrecMeasure,
    expand,
    gain_function,
    resolve,
    split_rel,
    to_trec,
)

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
