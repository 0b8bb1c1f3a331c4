"""How the engine's kernels are compiled: numba, cached on disk when it can be.

Every kernel is compiled on first use for the one set of argument types the engine
gives it (float64 labels and scores, int64 positions), so a process compiles only
what its calls need, once, and later processes load it from numba's on-disk cache.
Where no cache directory is writable (a read-only install with no writable home),
the kernels are compiled in memory instead, and one warning says so.
"""

from __future__ import annotations

import os
import tempfile
import warnings

from numba import njit

_cache_ok = True
_probed: dict[str, bool] = {}


def _writable(disp) -> bool:
    """Whether the cache folder numba picked for ``disp`` really takes files.

    numba checks some of its candidate folders only when it first writes, and
    then fails the call; a folder is probed once here instead.
    """
    path = getattr(getattr(disp, "_cache", None), "_cache_path", None)
    if path is None:
        return True
    if path not in _probed:
        try:
            os.makedirs(path, exist_ok=True)
            tempfile.TemporaryFile(dir=path).close()
            _probed[path] = True
        except OSError:
            _probed[path] = False
    return _probed[path]


def _warn_no_cache(name: str) -> None:
    warnings.warn(
        "skndcg cannot cache its compiled kernels (no writable numba cache "
        f"directory for {name!r}); they are compiled in memory in every new "
        "process. Set NUMBA_CACHE_DIR to a writable folder to keep them.",
        RuntimeWarning,
        stacklevel=3,
    )


def jit(fn=None, **options):
    """``numba.njit(cache=True, nogil=True)``, compiled in memory without a cache."""
    global _cache_ok

    def wrap(f):
        global _cache_ok
        if _cache_ok:
            try:
                disp = njit(cache=True, nogil=True, **options)(f)
                if _writable(disp):
                    return disp
            except RuntimeError as exc:  # numba: "no locator available"
                if "cannot cache" not in str(exc):
                    raise
            _cache_ok = False
            _warn_no_cache(f.__qualname__)
        return njit(cache=False, nogil=True, **options)(f)

    return wrap if fn is None else wrap(fn)


def compile_times(fn, *args, **kwargs):
    """Call ``fn`` and return ``(result, {function: seconds})`` of what it compiled.

    The times are inclusive (a kernel's time contains that of the kernels it
    calls); ``benchmarks/jit.py`` uses this to show where the first call goes.
    """
    from numba.core import event

    rec = event.RecordingListener()
    with event.install_listener("numba:compile", rec):
        result = fn(*args, **kwargs)
    times: dict[str, float] = {}
    open_: dict = {}
    for ts, ev in rec.buffer:
        disp = ev.data.get("dispatcher")
        name = getattr(getattr(disp, "py_func", None), "__qualname__", str(disp))
        key = (name, str(ev.data.get("args")))
        if ev.is_start:
            open_[key] = ts
        elif key in open_:
            times[name] = times.get(name, 0.0) + ts - open_.pop(key)
    return result, times
