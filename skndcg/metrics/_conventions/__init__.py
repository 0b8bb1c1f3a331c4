"""Conventions: the choices that make two NDCG implementations disagree, as
rule objects (``_rules.py``), presets (``_presets.py``) and the checked
options of one call (``_options.py``)."""

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
