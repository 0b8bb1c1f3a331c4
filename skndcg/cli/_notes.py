"""One line before the first compile of the kernels, on a terminal.

The ranking kernels are compiled by numba on first use and cached on disk, so
a first ``skndcg score`` or ``skndcg demo`` on a new install may spend half a
minute compiling, silently. When stderr is a terminal, the command line says
so once, when the first kernel compile starts; output to files and pipes stays
clean, and the library itself never prints (its compile times can be read
with ``skndcg.metrics._jit.compile_times``).
"""

from __future__ import annotations

import contextlib
import sys
import threading

MESSAGE = (
    "compiling skndcg's ranking kernels: this happens once, later runs load them "
    "from numba's on-disk cache"
)


def _listener(prog, stream):
    """A numba compile listener printing :data:`MESSAGE` at the first compile
    of a skndcg kernel (numba is imported here, on a terminal only)."""
    from numba.core import event

    class FirstCompile(event.Listener):
        def __init__(self):
            self.said = False
            self._lock = threading.Lock()

        def on_start(self, ev):
            disp = ev.data.get("dispatcher")
            module = getattr(getattr(disp, "py_func", None), "__module__", "") or ""
            if not module.startswith("skndcg."):
                return
            with self._lock:
                if self.said:
                    return
                self.said = True
            print(f"{prog}: {MESSAGE}", file=stream, flush=True)

        def on_end(self, ev):
            pass

    return event, FirstCompile()


@contextlib.contextmanager
def announce_first_compile(prog, stream=None):
    """Print :data:`MESSAGE` once if a kernel compiles and ``stream`` is a tty."""
    stream = sys.stderr if stream is None else stream
    if not getattr(stream, "isatty", lambda: False)():
        yield
        return
    event, listener = _listener(prog, stream)
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)
