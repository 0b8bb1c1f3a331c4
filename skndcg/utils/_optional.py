"""Lazy imports of optional dependencies with an error naming the extra."""

from __future__ import annotations

import importlib
import json
from types import ModuleType

#: The extras named otherwise than their top-level module.
_EXTRA_OF = {"matplotlib": "plot", "pyarrow": "parquet"}


def _install_hint(top: str, extra: str) -> str:
    """How to install ``top`` given how skndcg itself was installed: the extra
    (quoted for every shell) from a package index, the extra on the folder or
    the module alone from a local folder (``pip install -e .``), the module
    alone from a source tree on ``sys.path``."""
    from importlib import metadata  # slow to import, needed only here

    dists = list(metadata.distributions(name="skndcg"))
    if not dists:
        return f"`pip install {top}`"
    for dist in dists:
        info = json.loads(dist.read_text("direct_url.json") or "{}")
        if "dir_info" in info:
            flag = "-e " if info["dir_info"].get("editable") else ""
            return (
                f"`pip install {top}`, or `pip install {flag}'.[{extra}]'` in the "
                "skndcg source folder"
            )
    return f"`pip install 'skndcg[{extra}]'` (or `pip install {top}`)"


def import_optional(name: str, *, purpose: str | None = None) -> ModuleType:
    """Import the module ``name`` (``"lightgbm"``) or raise an ImportError
    naming its extra and what it is needed for (``purpose``)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        top = name.split(".")[0]
        extra = _EXTRA_OF.get(name, _EXTRA_OF.get(top, top))
        why = f" for {purpose}" if purpose else ""
        raise ImportError(
            f"{top} is required{why} but is not installed; install it with "
            f"{_install_hint(top, extra)}."
        ) from exc
