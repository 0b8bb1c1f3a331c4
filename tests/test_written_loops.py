"""The per-query loops numba caches across processes.

A measure without a block kernel (ERR, RBP, bpref, ...) runs in a loop built
from source around its kernel. The loop is written to a module of its own so
that numba caches it: a second process loads it instead of compiling it.
"""

import os
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from skndcg._native import _written

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from skndcg.metrics import grouped_ranking_scores
    from skndcg.metrics._core import _perquery

    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(50), 8)
    y = rng.integers(0, 4, q.size).astype(float)
    s = np.round(rng.random(q.size), 1)  # ties: the averaging loop runs too
    got = grouped_ranking_scores(y, s, q, ["err@5", "rbp(p=0.8)"])
    hits = misses = 0
    for (loop, takes_f) in _perquery._loops.values():
        assert not takes_f, "a built-in kernel's loop is a written module"
        hits += sum(loop.stats.cache_hits.values())
        misses += sum(loop.stats.cache_misses.values())
    print(repr(got), hits, misses)
    """
)


def _run(env):
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    got, hits, misses = out.stdout.rsplit(" ", 2)
    return got, int(hits), int(misses)


def test_a_second_process_loads_the_loops_from_the_cache(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), SKNDCG_PLAIN_CELLS="0")
    first = _run(env)
    second = _run(env)
    assert first[1:] == (0, 4)  # two measures, each a plain and an averaging loop
    assert second[1:] == (4, 0)
    assert first[0] == second[0]
    written = list((tmp_path / "skndcg_written").glob("skndcg_written_*.py"))
    assert len(written) == 4


def test_a_changed_dependency_gives_another_module(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_written, "_folder_found", [])
    dep = tmp_path / "kernel.py"
    dep.write_text("x = 1\n")
    source = "VALUE = 41 + 1\n"
    one = _written.written_module(source, [dep])
    assert one.VALUE == 42
    assert _written.written_module(source, [dep]) is one
    dep.write_text("x = 2\n")
    two = _written.written_module(source, [dep])
    assert two is not one and two.VALUE == 42
    assert one.__file__.startswith(str(tmp_path / "cache" / "skndcg_written"))


def test_another_version_of_the_package_gives_another_module(tmp_path, monkeypatch):
    # A loop compiled with the kernels it calls is not reused once any module
    # of the package has another size or time (an upgrade, an edit).
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_written, "_folder_found", [])
    source = "VALUE = 7\n"
    monkeypatch.setattr(_written, "_stamp", [b"skndcg/a.py:10:1"])
    one = _written.written_module(source)
    monkeypatch.setattr(_written, "_stamp", [b"skndcg/a.py:10:2"])
    two = _written.written_module(source)
    assert one is not two and one.__name__ != two.__name__


def test_the_stamp_covers_every_module_of_the_package(monkeypatch):
    monkeypatch.setattr(_written, "_stamp", [])
    lines = _written._package_stamp().decode().splitlines()
    names = {line.split(":")[0] for line in lines}
    assert {"metrics/_measures/_err.py", "metrics/_core/_tie_orders.py"} <= names
    assert all(len(line.split(":")) == 3 for line in lines)


def test_no_folder_that_takes_files_means_no_module(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(_written, "_folder_found", [])
    monkeypatch.setattr(_written, "_candidates", lambda: iter([blocker / "x"]))
    assert _written.written_module("VALUE = 1\n") is None


def test_without_a_folder_the_loops_compile_in_memory(monkeypatch):
    # An install with nowhere to write (read-only, no writable home): the
    # loops take the kernel as an argument and give the same numbers.
    import numpy as np

    from skndcg.metrics import grouped_ranking_scores
    from skndcg.metrics._core import _perquery

    monkeypatch.setenv("SKNDCG_PLAIN_CELLS", "0")  # the compiled road
    rng = np.random.default_rng(1)
    q = np.repeat(np.arange(40), 6)
    y = rng.integers(0, 3, q.size).astype(float)
    s = np.round(rng.random(q.size), 1)  # ties: the averaging loop too
    names = ["err@5", "bpref", "rbp(p=0.8)"]
    want = grouped_ranking_scores(y, s, q, names)
    monkeypatch.setattr(_perquery, "_loops", {})
    monkeypatch.setattr(_written, "_folder_found", [None])
    got = grouped_ranking_scores(y, s, q, names)
    assert got == want
    assert _perquery._loops and all(takes_f for _, takes_f in _perquery._loops.values())


def test_threads_asking_for_one_module_all_get_it_whole(tmp_path, monkeypatch):
    # A second thread was given the module while the first still ran its code
    # (AttributeError: no attribute 'loop' on a cold first run under Dask).
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_written, "_folder_found", [])
    source = f"import time\ntime.sleep(0.3)\nloop = {tmp_path.name!r}\n"

    def loop():  # read at once, as the per-query runner reads it
        return getattr(_written.written_module(source), "loop", None)

    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(loop)
        time.sleep(0.15)  # the first thread is running the module's code
        rest = [pool.submit(loop) for _ in range(3)]
        assert [f.result() for f in [first, *rest]] == [tmp_path.name] * 4


def test_a_module_whose_code_fails_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_written, "_folder_found", [])
    source = f"raise RuntimeError({tmp_path.name!r})\n"
    for _ in range(2):  # the second call runs the code again, not a half module
        with pytest.raises(RuntimeError, match=tmp_path.name):
            _written.written_module(source)
