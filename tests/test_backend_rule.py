"""The rule that picks the no-compile road for small calls (``_core/_backend``).

Both roads give the same numbers to the last bit (``test_registry_measures``);
the rule only decides which is sooner. It weighs a call by its rows times the
passes its measures cost as Python.
"""

import numpy as np
import pytest

from skndcg._native import _jit
from skndcg.metrics._core import _backend
from skndcg.metrics.registry import parse


@pytest.fixture
def fresh_process(monkeypatch):
    """As in a process that has not loaded numba yet, at the default limit."""
    monkeypatch.setattr(_jit, "numba_loaded", lambda: False)
    monkeypatch.delenv("SKNDCG_PLAIN_CELLS", raising=False)


def _plain(rows, names, average):
    with _backend.road(np.zeros(rows), [parse(n) for n in names], average):
        return _jit.plain()


def _largest_plain(passes):
    return _jit.PLAIN_CELLS // passes


@pytest.mark.usefixtures("fresh_process")
def test_query_by_query_measures_weigh_more_under_averaged_ties():
    names = ["rbp", "bpref", "rprec"]
    for average, per_measure in ((False, 1), (True, _backend.AVERAGED_QUERY_PASSES)):
        rows = _largest_plain(1 + len(names) * per_measure)
        assert _plain(rows, names, average)
        assert not _plain(rows + 1, names, average)


@pytest.mark.usefixtures("fresh_process")
def test_block_measures_weigh_their_averaged_tie_walk():
    rows = _largest_plain(1 + _backend.AVERAGED_BLOCK_PASSES)
    assert _plain(rows, ["ndcg@10", "map"], True)
    assert not _plain(rows + 1, ["ndcg@10", "map"], True)
    assert _plain(_largest_plain(1), ["ndcg@10", "map"], False)


def test_once_numba_is_loaded_every_call_is_compiled(monkeypatch):
    monkeypatch.setattr(_jit, "numba_loaded", lambda: True)
    assert not _plain(10, ["ndcg@10"], False)
