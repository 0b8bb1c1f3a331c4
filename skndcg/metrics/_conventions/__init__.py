"""Conventions: the choices that make two NDCG implementations disagree.

A :class:`Convention` is a set of rule objects (``_rules.py``: gain, ties,
empty queries, score precision, labels, weighting); the presets
(``_presets.py``) reproduce the libraries they are named after; the options of
one call are checked once by :func:`call_options` (``_options.py``).
"""

from ._convention import Convention
from ._options import DATA_OPTIONS, OPTIONS, CallOptions, call_options, pick
from ._presets import PRESETS, TREC_RUN_CONVENTION, get_convention, resolve_convention
from ._rules import Gain, TieRule

__all__ = [
    "DATA_OPTIONS",
    "OPTIONS",
    "PRESETS",
    "TREC_RUN_CONVENTION",
    "CallOptions",
    "Convention",
    "Gain",
    "TieRule",
    "call_options",
    "get_convention",
    "pick",
    "resolve_convention",
]
