"""Conventions: the choices that make two NDCG implementations disagree.

A :class:`Convention` fixes the gain, the tie rule, what an empty query scores,
the precision the scores are ranked in, which labels are accepted and how they
are read, and how per-query values are averaged. Each of these is a rule object
(``_rules.py``) whose methods the engines call, with the array module they work
in. The presets (``_presets.py``) reproduce the numbers of the libraries they
are named after on the same ``(y_true, y_score, qid, k)``; the measurements
behind each one are summarised in the user guide. The options of one call are
checked once, by :func:`call_options` (``_options.py``).
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
