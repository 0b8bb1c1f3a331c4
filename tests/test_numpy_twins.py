"""Each kernel's numpy twin (what the no-compile backend runs instead of the
kernel's Python loop) gives the loop's result to the last bit.

The engine-level suites (``test_numpy_blocks.py``, ``test_cli_plain.py``) run
the twins too, but mostly on inputs smaller than the row count at which the
chunked checks start (``PARALLEL_ROWS``), so each twin is compared with its
kernel's Python function here, on random inputs with ties, NaN and infinities.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg._native._jit import no_compile
from skndcg.metrics._core import _group_kernels, _perquery, _validate
from skndcg.metrics._measures import _iprec

KERNELS = [
    _iprec.iprec,
    _perquery._rank_spans,
    _validate._first_nonfinite,
    _validate._float_label_range,
    _group_kernels.run_starts,
]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.py_func.__name__)
def test_the_twin_is_declared(kernel):
    assert kernel.twin is not kernel.py_func


def _same(a, b):
    assert type(a) is type(b) or {type(a), type(b)} <= {float, np.float64}
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), strict=False)
        assert np.signbit(a).all() == np.signbit(b).all()


@settings(max_examples=300, deadline=None)
@given(
    labels=st.lists(st.sampled_from([0.0, 1.0, 2.0, 0.5, -1.0, np.nan]), max_size=40),
    threshold=st.sampled_from([0.5, 1.0, 2.0]),
    recall=st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.5, 0.7, 0.9, 1.0]),
    extra=st.integers(0, 4),
)
def test_iprec(labels, threshold, recall, extra):
    y = np.array(labels, dtype=np.float64)
    n_relevant = int((y >= threshold).sum()) + extra
    args = (y, None, n_relevant, threshold, recall)
    try:
        expected = _iprec.iprec.py_func(*args)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            _iprec.iprec.twin(*args)
        return
    _same(_iprec.iprec.twin(*args), expected)


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 12), min_size=1, max_size=8),
    seed=st.integers(0, 2**32 - 1),
)
def test_rank_spans(sizes, seed):
    rng = np.random.default_rng(seed)
    ends = np.cumsum(sizes).astype(np.int64)
    starts = ends - np.array(sizes, dtype=np.int64)
    pool = np.array([0.0, -0.0, 1.0, 2.5, -np.inf, np.inf, np.nan])
    s = rng.choice(pool, ends[-1])
    got = [np.full(ends[-1], -7, np.int64), np.full(ends[-1], 7.0)]
    want = [np.full(ends[-1], -7, np.int64), np.full(ends[-1], 7.0)]
    _perquery._rank_spans.py_func(s, starts, ends, *want)
    with no_compile():
        _perquery._rank_spans(s, starts, ends, *got)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert (np.signbit(got[1]) == np.signbit(want[1])).all()


@pytest.mark.parametrize("n_chunks", [1, 2, 3, 5])
@pytest.mark.parametrize("seed", range(20))
def test_chunked_label_checks(n_chunks, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(n_chunks, 60))
    x = rng.choice([0.0, 1.0, 3.0, 0.5, -2.0, -0.0], n)
    if seed % 2:
        x[rng.integers(0, n, 2)] = rng.choice([np.nan, np.inf, -np.inf], 2)
    for t in range(n_chunks):
        args = (t, x, n_chunks)
        _same(
            _validate._first_nonfinite.twin(*args),
            _validate._first_nonfinite.py_func(*args),
        )
        got = _validate._float_label_range.twin(*args)
        want = _validate._float_label_range.py_func(*args)
        assert bool(got[2]) == bool(want[2])
        if not np.isnan(x).any():  # with a NaN only the flag is read
            assert (got[0], got[1]) == (want[0], want[1])
