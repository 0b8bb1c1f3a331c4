"""The engine's parallel layer: chunks of work on a pool of Python threads.

The kernels release the GIL, so plain threads run them in parallel, safe with
``fork`` (a child gets a new pool) and with calls from several user threads,
and with no native threading library. ``SKNDCG_NUM_THREADS`` caps the threads
(default: the usable CPUs); whole-array passes use all of them from
``PARALLEL_ROWS`` rows on (:func:`row_chunks`).
"""

from __future__ import annotations

import itertools
import os
import threading
from typing import TYPE_CHECKING

from ._jit import plain

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_pid = -1
_cpus = [-1, 1]  # (pid, usable CPUs), read once per process

# Whole-array passes run on all threads from this many rows on.
PARALLEL_ROWS = 1 << 16


def _reset_after_fork() -> None:
    # The parent's lock may have been held by another thread at the fork.
    global _lock, _pool, _pool_pid
    _lock = threading.Lock()
    _pool, _pool_pid = None, -1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def num_threads() -> int:
    """Threads the engine uses: ``SKNDCG_NUM_THREADS``, else the usable CPUs."""
    env = os.environ.get("SKNDCG_NUM_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            raise ValueError(
                f"SKNDCG_NUM_THREADS must be a positive integer, got {env!r}."
            ) from None
        if n < 1:
            raise ValueError(f"SKNDCG_NUM_THREADS must be >= 1, got {env!r}.")
        return n
    pid = os.getpid()
    if _cpus[0] != pid:
        try:
            n = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # not on Linux
            n = os.cpu_count() or 1
        _cpus[:] = [pid, max(1, n)]
    return _cpus[1]


def _get_pool(n: int) -> ThreadPoolExecutor:
    from concurrent.futures import ThreadPoolExecutor  # not needed on one thread

    global _pool, _pool_pid
    with _lock:
        # A forked child inherits the pool object but none of its threads.
        if _pool is None or _pool_pid != os.getpid() or _pool._max_workers < n:
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="skndcg")
            _pool_pid = os.getpid()
        return _pool


def run_chunks(fn, n_chunks: int, *args) -> list:
    """``[fn(t, *args) for t in range(n_chunks)]``, chunks run on the thread pool.

    At most ``num_threads()`` workers (the caller one) take the next chunk
    until none is left; each chunk writes only its own part of any output.
    """
    if n_chunks <= 1 or plain():  # (Python kernels hold the GIL: one thread)
        return [fn(t, *args) for t in range(n_chunks)]
    n_workers = min(n_chunks, num_threads())
    results: list = [None] * n_chunks
    tickets = itertools.count()  # next() is atomic under the GIL

    def work():
        for t in iter(tickets.__next__, None):
            if t >= n_chunks:
                return
            results[t] = fn(t, *args)

    if n_workers == 1:
        work()
        return results
    pool = _get_pool(n_workers - 1)
    futures = [pool.submit(work) for _ in range(n_workers - 1)]
    work()
    for f in futures:
        f.result()
    return results


def row_chunks(n: int) -> int:
    """Number of row chunks a whole-array pass over ``n`` rows is split into."""
    return num_threads() if n >= PARALLEL_ROWS else 1
