"""Lazy imports of optional dependencies with an error naming the extra."""

from __future__ import annotations

import importlib
from types import ModuleType

_EXTRA_OF = {
    "lightgbm": "lightgbm",
    "xgboost": "xgboost",
    "matplotlib": "plot",
    "matplotlib.pyplot": "plot",
    "polars": "polars",
    "pyarrow": "parquet",
}


def import_optional(name: str, *, purpose: str | None = None) -> ModuleType:
    """Import an optional dependency or raise an ImportError naming the extra.

    Parameters
    ----------
    name : str
        Module to import, e.g. ``"lightgbm"``.
    purpose : str, optional
        What the module is needed for, used in the error message.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        top = name.split(".")[0]
        extra = _EXTRA_OF.get(name, _EXTRA_OF.get(top, top))
        why = f" for {purpose}" if purpose else ""
        raise ImportError(
            f"{top} is required{why} but is not installed; install it with "
            f"`pip install skndcg[{extra}]` (or `pip install {top}`)."
        ) from exc
