"""Imports only go downward (DESIGN.md §2)."""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "skndcg"
# What each sub-package may import from skndcg.
ALLOWED = {
    "metrics": {"metrics", "utils"},
    "utils": {"utils"},
    "model_selection": {"model_selection", "metrics", "utils"},
    "ranker": {"ranker", "metrics", "utils"},
    "datasets": {"datasets", "metrics", "utils"},
    # dask: metric_over_time scores a Dask frame through skndcg.dask (lazily).
    "evaluation": {"evaluation", "dask", "metrics", "utils"},
    "io": {"io", "metrics", "utils"},
    "_partial": {"_partial", "metrics", "utils"},
    "dask": {"dask", "_partial", "metrics", "utils"},
    "streaming": {"streaming", "_partial", "io", "metrics", "utils"},
    "spark": {"spark", "_partial", "metrics", "utils"},
    "plotting": {"plotting", "evaluation", "model_selection", "metrics", "utils"},
    "torch": {"torch", "metrics", "utils"},
    "demo": {
        "demo",
        "datasets",
        "evaluation",
        "metrics",
        "model_selection",
        "plotting",
        "ranker",
        "utils",
    },
}


def _imports(path: Path, pkg: str):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = path.relative_to(PKG).parts[:-1]
                base = list(parts[: len(parts) - (node.level - 1)])
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("skndcg."):
                target = node.module[len("skndcg.") :]
            else:
                continue
            yield target.split(".")[0] if target else pkg
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("skndcg."):
                    yield alias.name.split(".")[1]


@pytest.mark.parametrize("pkg", sorted(ALLOWED))
def test_imports_go_downward(pkg):
    bad = []
    for path in (PKG / pkg).rglob("*.py"):
        for target in _imports(path, pkg):
            if target not in ALLOWED[pkg]:
                bad.append(f"{path.relative_to(PKG)} imports skndcg.{target}")
    assert not bad, bad


def test_metrics_import_no_estimator_or_plotting_library():
    import subprocess
    import sys

    code = (
        "import sys, skndcg.metrics; "
        "print(sorted(m for m in ('lightgbm', 'xgboost', 'matplotlib', 'polars') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_scoring_alone_does_not_import_scikit_learn():
    # scikit-learn's import is most of the start-up; the metrics load it only for
    # the scorers (on first use) and for the all-skipped warning.
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from skndcg.metrics import grouped_ndcg_score\n"
        "v = grouped_ndcg_score([1, 0, 2], [0.1, 0.2, 0.3], [7, 7, 7])\n"
        "assert 0 < v < 1, v\n"
        "assert 'sklearn' not in sys.modules\n"
        "assert 'pandas' not in sys.modules  # numpy input needs no pandas\n"
        "import skndcg.metrics as m\n"
        "assert callable(m.make_ndcg_scorer) and 'sklearn' in sys.modules\n"
        "assert 'make_ranking_scorer' in dir(m)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
