"""One line before the first compile of the kernels, on a terminal.

The ranking kernels are compiled by numba on first use and cached on disk, so
a first ``skndcg score`` or ``skndcg demo`` on a new install may spend half a
minute compiling, silently. When stderr is a terminal, the command line says
so once, when the first kernel compile starts; output to files and pipes stays
clean, and the library itself never prints (its compile times can be read
with ``skndcg.metrics._jit.compile_times``).
"""

import contextlib
import sys
import threading

MESSAGE = (
    "compiling skndcg's ranking kernels: this happens once, later runs load them "
    "from numba's on-disk cache"
)


@contextlib.contextmanager
def announce_first_compile(prog, stream=None):
    """Print :data:`MESSAGE` once if a skndcg kernel compiles and ``stream`` is
    a tty (numba is imported then only)."""
    stream = sys.stderr if stream is None else stream
    if not getattr(stream, "isatty", lambda: False)():
        yield
        return
    from numba.core import event

    class FirstCompile(event.Listener):
        def __init__(self):
            self._once = threading.Lock()  # taken at the first compile, for good

        def on_start(self, ev):
            disp = ev.data.get("dispatcher")
            module = getattr(getattr(disp, "py_func", None), "__module__", "") or ""
            if module.startswith("skndcg.") and self._once.acquire(blocking=False):
                print(f"{prog}: {MESSAGE}", file=stream, flush=True)

        def on_end(self, ev):
            pass

    listener = FirstCompile()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)
