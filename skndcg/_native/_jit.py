"""How the engine's kernels are compiled: numba on first use, cached on disk
(in memory, with one warning, where no cache folder is writable)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import warnings

_cache_ok = True
_probed: dict[str, bool] = {}
_plain = threading.local()  # .on: kernels run as Python (see no_compile)


def takes_files(path) -> bool:
    """Whether the folder ``path`` (made when missing) takes files."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _dispatcher(f, options):
    """``numba.njit(cache=True, nogil=True)`` of ``f``, in memory without a cache."""
    global _cache_ok
    from numba import njit

    if _cache_ok:
        try:
            disp = njit(cache=True, nogil=True, **options)(f)
            # Whether numba's cache folder takes files: it checks some only when
            # it first writes, then fails the call.
            path = getattr(getattr(disp, "_cache", None), "_cache_path", None)
            if path is not None and path not in _probed:
                _probed[path] = takes_files(path)
            if path is None or _probed[path]:
                return disp
        except RuntimeError as exc:  # numba: "no locator available"
            if "cannot cache" not in str(exc):
                raise
        _cache_ok = False
        warnings.warn(
            "skndcg cannot cache its compiled kernels (no writable numba cache "
            f"directory for {f.__qualname__!r}); they are compiled in memory in "
            "every new process. Set NUMBA_CACHE_DIR to a writable folder to keep "
            "them.",
            RuntimeWarning,
            stacklevel=2,
        )
    return njit(cache=False, nogil=True, **options)(f)


def _names_used(code):
    """Global names a function's code (and the code nested in it) reads."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_used(const)
    return names


_making = threading.RLock()


class Kernel:
    """A function made numba's dispatcher on first use, after the kernels it
    reads as globals (put in its module's namespace, where numba looks)."""

    __slots__ = ("__wrapped__", "_disp", "_options", "py_func", "python", "twin")

    def __init__(self, f, options, python=True):
        self.py_func = f
        self.__wrapped__ = f
        self._options = options
        self._disp = None
        self.python = python  # whether Python gives numba's result
        self.twin = f  # what runs under no_compile (see numpy_twin)

    @property
    def dispatcher(self):
        if self._disp is None:
            with _making:  # one dispatcher per kernel, whichever thread asks
                if self._disp is None:
                    g = self.py_func.__globals__
                    for name in _names_used(self.py_func.__code__):
                        value = g.get(name)
                        if isinstance(value, Kernel):
                            g[name] = value.dispatcher
                    self._disp = _dispatcher(self.py_func, self._options)
        return self._disp

    def __call__(self, *args, **kwargs):
        if self.python and getattr(_plain, "on", False):
            return self.twin(*args, **kwargs)
        return self.dispatcher(*args, **kwargs)

    def __getattr__(self, name):
        if name in Kernel.__slots__:  # not set yet (as while unpickling)
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __reduce__(self):
        # By name, as functions are pickled: the receiving process imports it.
        return _kernel_named, (self.py_func.__module__, self.py_func.__qualname__)

    def __repr__(self):
        return f"<skndcg kernel {self.py_func.__qualname__}>"


def _kernel_named(module, qualname):
    import importlib

    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


@contextlib.contextmanager
def no_compile(on: bool = True):
    """Run every :class:`Kernel` called in this thread as its Python function
    (``on=False``: a context that does nothing). Kernels called by kernels
    follow, unless numba has put its dispatchers in their module's namespace.
    """
    before = getattr(_plain, "on", False)
    _plain.on = bool(on) or before
    try:
        yield
    finally:
        _plain.on = before


#: Work (rows times the passes over them) up to which a process that has not
#: loaded numba runs the kernels as Python (:func:`plain_road`);
#: SKNDCG_PLAIN_CELLS sets another limit (0: always compiled).
PLAIN_CELLS = 1_200_000


def plain_road(cells: int) -> bool:
    """Whether work of ``cells`` rows-times-passes runs with no compiler:
    inside :func:`no_compile`, or while numba is not loaded and the work is
    at most ``PLAIN_CELLS`` (the one rule of the engine and the readers)."""
    if plain():
        return True
    if numba_loaded():
        return False
    text = os.environ.get("SKNDCG_PLAIN_CELLS", "")
    limit = int(text) if text.isdigit() else PLAIN_CELLS
    return cells <= limit


def plain() -> bool:
    """Whether kernels run as Python in this thread (:func:`no_compile`)."""
    return getattr(_plain, "on", False)


def numba_loaded() -> bool:
    """Whether this process has imported numba already."""
    return "numba" in sys.modules


def numpy_twin(kernel):
    """Declare the decorated function what runs of ``kernel`` under
    :func:`no_compile`; it must give the same results to the last bit."""

    def wrap(f):
        kernel.twin = f
        return f

    return wrap


def native(f):
    """numba's dispatcher of a :class:`Kernel` (to pass it compiled), else ``f``."""
    return f.dispatcher if isinstance(f, Kernel) else f


def jit(fn=None, *, python=True, **options):
    """``numba.njit(cache=True, nogil=True)`` as a lazy :class:`Kernel`;
    ``python=False``: its Python function gives another result (numpy's
    ``argsort`` ties), so it runs compiled even under :func:`no_compile`."""
    if fn is None:
        return lambda f: Kernel(f, options, python)
    return Kernel(fn, options, python)


def compile_times(fn, *args, **kwargs):
    """Call ``fn`` and return ``(result, {function: seconds})`` of what it
    compiled (inclusive of the kernels each calls)."""
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
