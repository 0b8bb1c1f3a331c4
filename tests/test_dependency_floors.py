"""Dependency floors stay past known vulnerabilities of the files skndcg reads."""

import re
from pathlib import Path

PYPROJECT = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()


def _version(text):
    return tuple(int(p) for p in text.split("."))


def test_pyarrow_floor_is_past_cve_2023_47248():
    # pyarrow 14.0.0 and older deserialise untrusted Parquet/IPC data unsafely;
    # skndcg reads Parquet files that users supply.
    floors = re.findall(r'"pyarrow>=([\d.]+)"', PYPROJECT)
    assert floors, "pyarrow is named in pyproject.toml"
    assert len(floors) == PYPROJECT.count('"pyarrow')  # every mention has a floor
    assert all(_version(f) >= (14, 0, 1) for f in floors), floors
