"""Float64 labels cost no more memory than int64 labels (no hidden label copy).

Measured with tracemalloc (numpy reports its allocations to it): deterministic,
unlike timings. benchmarks/bench_memory.py reports the same on larger inputs.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_memory import measure


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_float_labels_need_no_more_memory_than_int_labels(order):
    peaks = measure(200_000)
    assert peaks[order, "float64"] <= peaks[order, "int64"] + 0.05, peaks
    # And neither copies the inputs when they are already sorted by query.
    assert peaks["sorted", "float64"] < 0.3, peaks
