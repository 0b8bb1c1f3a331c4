"""The metric engine's internals that other layers (``skndcg._partial``,
``skndcg.torch``) may use, named once so that no other package imports the
engine's private modules.
"""

from ._api._report import report_with_means
from ._catalogue._names import check_unique, parse_metric
from ._catalogue._registry import ensure_registered
from ._conventions import Convention, Gain, TieRule, call_options
from ._core._aggregate import Means
from ._core._engine import evaluate
from ._core._labels import label_max_of
from ._core._reorder import quicksort_order
from ._core._side import check_side_inputs
from ._core._validate import RowsError, as_1d
from ._core._validate import discount as discount_weights

__all__ = [
    "Convention",
    "Gain",
    "Means",
    "RowsError",
    "TieRule",
    "as_1d",
    "call_options",
    "check_side_inputs",
    "check_unique",
    "discount_weights",
    "ensure_registered",
    "evaluate",
    "label_max_of",
    "parse_metric",
    "quicksort_order",
    "report_with_means",
]
