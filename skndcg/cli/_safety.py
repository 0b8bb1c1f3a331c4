"""How the command line ends: exit codes, signals, and copies of pipes.

130 or 143 on SIGINT or SIGTERM, after removing the temporary files and
half-written outputs; 141, printing nothing, when stdout's reader went away.
"""

import contextlib
import os
import re
import select
import signal
import sys
import time
import zlib

from ._errors import UsageError, integer, number
from ._language import prog

#: Default cap on what is copied from a pipe or device, in MiB.
PIPE_LIMIT_MB = 2048
#: Default wait, in seconds, for the first byte (or end) of a pipe.
PIPE_TIMEOUT = 30.0

EXIT_INTERRUPTED, EXIT_PIPE, EXIT_TERMINATED = 130, 141, 143


# Errors in the data or the command line: exit code 2 with one line (the
# readers' ValueErrors name file and line, these others at least the message).
DATA_ERRORS = (
    ValueError, TypeError, OSError, ImportError, OverflowError, EOFError,
    zlib.error, MemoryError,
)  # fmt: skip


def add_arguments(score):
    """The ``--pipe-limit-mb`` and ``--pipe-timeout`` options of ``skndcg score``."""
    score.add_argument(
        "--pipe-limit-mb",
        metavar="MiB",
        type=integer(),
        default=PIPE_LIMIT_MB,
        help="refuse an input pipe or device longer than this (default: "
        f"{PIPE_LIMIT_MB})",
    )
    score.add_argument(
        "--pipe-timeout",
        metavar="SECONDS",
        type=number("a positive number", 0),
        default=PIPE_TIMEOUT,
        help="refuse an input pipe with no data and no end within this time "
        f"(default: {PIPE_TIMEOUT:g})",
    )


def write_per_query(shown, path):
    """The per-query CSV, to stdout for ``-``, else written atomically."""
    if path == "-":
        shown.to_csv(sys.stdout, index=False)
        return
    from ..utils._atomic import atomic_write

    try:
        with atomic_write(path, newline="") as fh:
            shown.to_csv(fh, index=False)
    except OSError as exc:
        # (the error may name the hidden temporary file beside the target)
        raise UsageError(
            f"cannot write --per-query file {str(path)!r}: {exc.strerror or exc}"
        ) from None
    except ValueError as exc:
        raise UsageError(f"--per-query: {exc}") from None


class Terminated(BaseException):
    """Raised in the main thread when SIGTERM arrives."""


def _on_sigterm(signum, frame):
    raise Terminated


@contextlib.contextmanager
def sigterm_raises():
    """Turn SIGTERM into :class:`Terminated` so ``finally`` blocks clean up."""
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread: leave the handler alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def guarded(prog, func, *args):
    """Run ``func(*args)`` and turn interruptions into quiet exit codes."""
    try:
        with sigterm_raises():
            code = func(*args)
            sys.stdout.flush()
            return code
    except BrokenPipeError:
        # Python would report the pipe again when flushing stdout at exit.
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print(f"{prog}: terminated", file=sys.stderr)
        return EXIT_TERMINATED


def copy_stream(path, dest, *, limit_mb, timeout):
    """Copy the pipe or device ``path`` to the file ``dest``; a ValueError if
    more than ``limit_mb`` MiB arrive, or neither data nor the end of the
    stream within ``timeout`` seconds of opening."""
    limit = int(limit_mb) << 20
    # Opening a FIFO for reading blocks until a writer comes: open without
    # blocking, wait for the first event with a time-out, then read normally.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        deadline = time.monotonic() + timeout
        while not poller.poll(max(0, int((deadline - time.monotonic()) * 1000))):
            if time.monotonic() >= deadline:
                raise ValueError(
                    f"{path}: no data and no end of stream within {timeout:g} s "
                    "(a pipe nobody writes to?); start its writer first or raise "
                    "--pipe-timeout."
                )
        os.set_blocking(fd, True)
        copied = 0
        with open(dest, "wb") as out:
            while chunk := os.read(fd, 1 << 20):
                copied += len(chunk)
                if copied > limit:
                    raise ValueError(
                        f"{path}: a pipe or device that gave more than {limit_mb} "
                        "MiB (the --pipe-limit-mb cap on what is copied from "
                        "a pipe); save it to a file first or raise --pipe-limit-mb."
                    )
                out.write(chunk)
    finally:
        os.close(fd)


def refuse_stdin(paths):
    """Refuse ``-`` as any of ``paths`` (pairs of the argument's name and its
    value): a command other than ``skndcg score`` reads files only."""
    for what, path in paths:
        if path == "-":
            raise UsageError(
                f"{what} '-': {prog()} does not read standard input ('-'); save "
                "it to a file and give its path (skndcg score reads '-')"
            )


def cli_hint(message):
    """Replace a hint meant for the Python API by what works on the command line."""
    return re.sub(
        r"pass a callable gain[^.]*",
        "from the command line, --convention trec_eval counts them as "
        "non-relevant (gain 0); scoring negative gains as they are needs the "
        "Python API (gain=lambda y: y)",
        message,
    )
