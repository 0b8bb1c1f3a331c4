"""The engine's parallel layer: chunks of ``nogil`` kernels on a pool of Python
threads (a forked child gets a new pool), capped by ``SKNDCG_NUM_THREADS``."""

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
    """``[fn(t, *args) for t in range(n_chunks)]``, chunks run on the thread pool
    (each writes only its own part of any output)."""
    # (Python kernels hold the GIL: one thread)
    if n_chunks <= 1 or plain() or (n_workers := min(n_chunks, num_threads())) == 1:
        return [fn(t, *args) for t in range(n_chunks)]
    results: list = [None] * n_chunks
    tickets = itertools.count()  # next() is atomic under the GIL

    def work():
        for t in iter(tickets.__next__, None):
            if t >= n_chunks:
                return
            results[t] = fn(t, *args)

    pool = _get_pool(n_workers - 1)
    futures = [pool.submit(work) for _ in range(n_workers - 1)]
    work()
    for f in futures:
        f.result()
    return results


def row_chunks(n: int) -> int:
    """Number of row chunks a whole-array pass over ``n`` rows is split into."""
    return num_threads() if n >= PARALLEL_ROWS else 1
