"""The compiled-code layer ``skndcg._native``: its place below the engine and the
readers, and its row-chunk policy."""

import subprocess
import sys

import pytest

from skndcg._native import _threads


def _loaded(code):
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_the_layer_package_loads_nothing():
    code = "import sys, skndcg._native; print('numba' in sys.modules)"
    assert _loaded(code) == "False"


def test_the_readers_do_not_load_the_metric_engine():
    # skndcg.io builds on the compiled-code layer only, not on skndcg.metrics.
    code = (
        "import sys, skndcg.io; "
        "print(sorted(m for m in sys.modules if m.startswith('skndcg.metrics')))"
    )
    assert _loaded(code) == "[]"


def test_row_chunks_split_only_large_passes(monkeypatch):
    monkeypatch.setenv("SKNDCG_NUM_THREADS", "3")
    assert _threads.row_chunks(0) == 1
    assert _threads.row_chunks(_threads.PARALLEL_ROWS - 1) == 1
    assert _threads.row_chunks(_threads.PARALLEL_ROWS) == 3
    monkeypatch.setenv("SKNDCG_NUM_THREADS", "1")
    assert _threads.row_chunks(10 * _threads.PARALLEL_ROWS) == 1


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_bad_thread_count_is_refused_by_name(monkeypatch, value):
    monkeypatch.setenv("SKNDCG_NUM_THREADS", value)
    with pytest.raises(ValueError, match=f"SKNDCG_NUM_THREADS.*{value!r}"):
        _threads.row_chunks(_threads.PARALLEL_ROWS)


def test_run_chunks_returns_every_chunk_in_order(monkeypatch):
    monkeypatch.setenv("SKNDCG_NUM_THREADS", "4")
    assert _threads.run_chunks(lambda t, a: t * a, 9, 10) == [t * 10 for t in range(9)]


def test_the_engine_and_the_readers_share_one_compiler_and_pool():
    from skndcg._native import _jit
    from skndcg.io import _fastjoin, _scan
    from skndcg.metrics import _jit as metrics_jit
    from skndcg.metrics._core import _validate

    assert metrics_jit.jit is _jit.jit and _scan.jit is _jit.jit
    assert _fastjoin.run_chunks is _threads.run_chunks
    assert _validate.row_chunks is _threads.row_chunks
