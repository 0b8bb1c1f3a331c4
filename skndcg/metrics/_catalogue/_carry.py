"""Pickling a user's :class:`Measure`, as :func:`define_measure` describes it;
one that cannot be pickled is refused when the measure is, never later as an
unknown name (scikit-learn would turn that into a NaN score).
"""

from __future__ import annotations

import pickle
import sys


def _cloudpickle():
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - installed with joblib>=1.5
        try:
            from joblib.externals import cloudpickle
        except ImportError:
            return None
    return cloudpickle


def _importable(fn) -> bool:
    """Whether ``fn`` is found again by name in another process."""
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if not module or not qualname or module == "__main__" or "<" in qualname:
        return False
    obj = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj is fn


def pack_function(fn, measure: str):
    """``(kind, payload)`` that pickles with plain :mod:`pickle`."""
    if _importable(fn):
        return "ref", fn
    cp = _cloudpickle()
    why = "cloudpickle is not installed" if cp is None else None
    if cp is not None:
        try:
            return "value", cp.dumps(fn)
        except Exception as exc:  # any failure is reported
            why = f"{type(exc).__name__}: {exc}"
    raise pickle.PicklingError(
        f"measure {measure!r} cannot be sent to another process (n_jobs > 1, "
        f"Dask, Spark): its per_query function {fn!r} cannot be pickled ({why}). "
        "Define per_query with def at the top level of a module the workers can "
        "import, without references to open files, locks or connections, and "
        "call define_measure again; or run with n_jobs=1."
    )


def unpack_function(kind: str, payload):
    if kind == "ref":
        return payload
    cp = _cloudpickle()
    if cp is None:  # pragma: no cover - the sender had it
        raise ImportError(
            "a measure's per_query function was pickled by value; install "
            "cloudpickle in the worker's environment to load it."
        )
    return cp.loads(payload)
