"""Every gallery example runs (quick settings) and has a gallery header."""

import ast
import runpy
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("plot_*.py"))


def test_examples_found():
    names = {p.name for p in EXAMPLES}
    assert {
        "plot_grouped_ndcg_scorer.py",
        "plot_lgbm_gridsearch.py",
        "plot_group_time_series_split.py",
    } <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_gallery_header(path):
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
    assert doc is not None, "module docstring missing"
    over, title, under = doc.strip("\n").splitlines()[:3]
    assert set(over) == {"="} and over == under, "title must be over- and underlined"
    assert len(over) >= len(title.strip()) > 0
    assert "# %%" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(path, monkeypatch, capsys):
    monkeypatch.setenv("SKNDCG_EXAMPLE_QUICK", "1")
    monkeypatch.chdir(path.parent)
    try:
        runpy.run_path(str(path), run_name="__main__")
        assert plt.get_fignums(), "the example draws no figure"
    finally:
        plt.close("all")
    assert capsys.readouterr().out.strip(), "the example prints nothing"
