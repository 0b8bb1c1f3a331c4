"""The Lightning gallery example runs and logs the engine's NDCG@10."""

import ast
import re
import runpy
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

pytestmark = pytest.mark.peers_torch

EXAMPLE = Path(__file__).parents[2] / "examples" / "lightning_validation_ndcg.py"


def test_header_and_not_run_by_the_docs_build():
    text = EXAMPLE.read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(text), clean=False)
    over, title, under = doc.strip("\n").splitlines()[:3]
    assert set(over) == {"="} and over == under and len(over) >= len(title)
    # sphinx-gallery executes only files matching /plot_ (docs/conf.py).
    assert not EXAMPLE.name.startswith("plot_")


def test_lightning_example_runs(monkeypatch, capsys):
    pytest.importorskip("lightning", reason="the example needs lightning")
    monkeypatch.setenv("SKNDCG_EXAMPLE_QUICK", "1")
    monkeypatch.chdir(EXAMPLE.parent)
    try:
        runpy.run_path(str(EXAMPLE), run_name="__main__")
        assert plt.get_fignums()
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    logged = float(re.search(r"logged by Lightning: ([0-9.]+)", out).group(1))
    reference = float(re.search(r"on the same rows:\s+([0-9.]+)", out).group(1))
    assert 0.0 < logged == reference
