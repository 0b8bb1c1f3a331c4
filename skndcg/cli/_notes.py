"""One line before the first compile of the kernels, when stderr is a terminal
(files and pipes stay clean; the library itself never prints)."""

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
