"""Imports only go downward, and no module reaches into another's private parts.

The layer map, the rooms and the rules are drawn in docs/architecture.rst
("Layers"); LAYERS below is that map, and ALLOWED lists exactly what each
sub-package imports.
"""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "skndcg"
# The numbered layers of docs/architecture.rst, lowest first: a package imports
# only packages of lower layers (the top-level modules, layer 9, are TOP_LEVEL).
LAYERS = [
    {"utils", "_native"},
    {"metrics", "io"},
    {"model_selection", "ranker", "datasets", "_partial", "torch"},
    {"dask", "spark", "streaming"},
    {"evaluation"},
    {"online", "recommend", "plotting"},
    {"demo"},
    {"cli"},
]
# What each sub-package may import from skndcg.
ALLOWED = {
    "_native": {"_native"},
    "metrics": {"metrics", "_native", "utils"},
    "utils": {"utils"},
    "model_selection": {"model_selection", "metrics", "utils"},
    "ranker": {"ranker", "metrics", "utils"},
    "datasets": {"datasets", "metrics", "utils"},
    # dask: metric_over_time scores a Dask frame through skndcg.dask (lazily).
    "evaluation": {"evaluation", "_native", "dask", "metrics", "utils"},
    "io": {"io", "_native", "utils"},
    "online": {"online", "_native", "evaluation", "io", "metrics", "utils"},
    "_partial": {"_partial", "metrics", "utils"},
    "dask": {"dask", "_partial", "metrics", "utils"},
    "streaming": {"streaming", "_partial", "io", "metrics", "utils"},
    "spark": {"spark", "_partial", "metrics", "utils"},
    "cli": {"cli", "demo", "evaluation", "io", "metrics", "streaming", "utils"},
    "plotting": {"plotting", "evaluation", "model_selection", "metrics", "utils"},
    "torch": {"torch", "metrics", "utils"},
    "recommend": {
        "recommend",
        "datasets",
        "evaluation",
        "metrics",
        "model_selection",
        "ranker",
        "utils",
    },
    "demo": {
        "demo",
        "datasets",
        "evaluation",
        "metrics",
        "model_selection",
        "plotting",
        "ranker",
        "recommend",
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


def test_allowed_follows_the_numbered_layers():
    layer = {pkg: i for i, floor in enumerate(LAYERS) for pkg in floor}
    assert sorted(layer) == sorted(ALLOWED), "every package sits on one layer"
    upward = [
        f"{pkg} -> {target}"
        for pkg, targets in ALLOWED.items()
        for target in targets - {pkg}
        if layer[target] >= layer[pkg]
    ]
    assert not upward, upward


def test_every_package_has_a_line_on_the_architecture_page():
    page = (PKG.parent / "docs" / "architecture.rst").read_text()
    missing = [pkg for pkg in ALLOWED if f"``{pkg}/``" not in page]
    assert not missing, f"name these in docs/architecture.rst: {missing}"


@pytest.mark.parametrize("pkg", sorted(ALLOWED))
def test_imports_go_downward(pkg):
    bad = []
    for path in (PKG / pkg).rglob("*.py"):
        for target in _imports(path, pkg):
            if target not in ALLOWED[pkg]:
                bad.append(f"{path.relative_to(PKG)} imports skndcg.{target}")
    assert not bad, bad


# What each top-level module (skndcg/*.py) may import from skndcg.
TOP_LEVEL = {"__init__.py": set(), "__main__.py": {"cli"}}


def test_top_level_modules_import_only_what_they_may():
    found = sorted(p.name for p in PKG.glob("*.py"))
    assert found == sorted(TOP_LEVEL), "list every top-level module in TOP_LEVEL"
    bad = []
    for name, allowed in TOP_LEVEL.items():
        path = PKG / name
        for target in _imports(path, ""):
            if target and target not in allowed:
                bad.append(f"{name} imports skndcg.{target}")
    assert not bad, bad


# Packages whose private modules are the project's shared internals, meant to
# be imported by the packages ALLOWED to use them.
INTERNAL = {"utils", "_partial", "_native"}
# A package's internal facade: its private module that names what the packages
# ALLOWED to import that package may use of its internals.
FACADES = {"evaluation._shared", "metrics._shared"}
# Private modules of another package still imported, each with its way out:
# ``{(importing file, "package._module"): "the public module that will replace
# it"}``. None are left: what another package needs of a package's private
# modules gets a public module (metrics.registry, metrics.conventions,
# metrics.trec_dialect). The list stays so that a needed exception is written
# down with its way out.
KNOWN_PRIVATE: dict = {}


def _from_imports(path, root=PKG):
    """``(node, module parts)`` of every ``from ... import`` of skndcg in ``path``."""
    rel = path.relative_to(root).parts
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = list(rel[:-1])[: len(rel) - node.level]
            module = base + (node.module.split(".") if node.module else [])
        elif (node.module or "").startswith("skndcg."):
            module = node.module.split(".")[1:]
        else:
            continue
        yield node, module


def _private_targets(path, root=PKG):
    """``package.module`` of every private module of skndcg ``path`` imports."""
    for node, module in _from_imports(path, root):
        names = [alias.name for alias in node.names]
        targets = [[*module, n] for n in names] if len(module) == 1 else [module]
        for target in targets:
            private = len(target) >= 2 and target[1].startswith("_")
            if private and not target[1].startswith("__"):
                yield ".".join(target[:2])


def test_no_package_imports_another_packages_private_modules():
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        own = rel.parts[0] if len(rel.parts) > 1 else None
        for target in _private_targets(path):
            package = target.split(".")[0]
            if package in (own, *INTERNAL) or target in FACADES:
                continue
            if (rel.as_posix(), target) not in KNOWN_PRIVATE:
                bad.append(f"{rel.as_posix()} imports skndcg.{target}")
    assert not bad, bad


def test_every_known_private_import_is_still_there():
    # An entry whose import is gone must leave the list, so that it only shrinks.
    stale = [
        key
        for key in KNOWN_PRIVATE
        if key[1] not in set(_private_targets(PKG / key[0]))
    ]
    assert not stale, f"remove from KNOWN_PRIVATE: {stale}"


# Private names (``_x``) imported from another module. None are left: a name
# that another module needs gets a public name in its (private) module. The
# list stays so that a needed exception is written down with its way out.
KNOWN_PRIVATE_NAMES: dict = {}


def _private_names(path, root=PKG):
    """``(module, name)`` of every private name ``path`` imports from another
    module of skndcg (a private module imported as a name does not count)."""
    for node, module in _from_imports(path, root):
        where = root.joinpath(*module)
        for alias in node.names:
            name = alias.name
            if not name.startswith("_") or name.startswith("__"):
                continue
            if (where / f"{name}.py").exists() or (where / name).is_dir():
                continue
            yield ".".join(module), name


def test_no_module_imports_another_modules_private_names():
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        for module, name in _private_names(path):
            if name not in KNOWN_PRIVATE_NAMES.get((rel, module), ()):
                bad.append(f"{rel} imports {name} from skndcg.{module}")
    assert not bad, bad


def test_every_known_private_name_is_still_imported():
    stale = []
    for (rel, module), names in KNOWN_PRIVATE_NAMES.items():
        found = {n for m, n in _private_names(PKG / rel) if m == module}
        stale += [f"{rel}: {module}.{n}" for n in sorted(names - found)]
    assert not stale, f"remove from KNOWN_PRIVATE_NAMES: {stale}"


def test_the_private_name_check_catches_one(tmp_path):
    fake = tmp_path / "skndcg"
    (fake / "io").mkdir(parents=True)
    (fake / "io" / "_columns.py").write_text("def _sniff(): pass\n")
    (fake / "io" / "_x.py").write_text(
        "from . import _columns\nfrom ._columns import _sniff\n"
    )
    found = list(_private_names(fake / "io" / "_x.py", fake))
    assert found == [("io._columns", "_sniff")]


def test_the_private_import_check_catches_one(tmp_path):
    # A package reaching into io's reader: the kind of import refused above.
    fake = tmp_path / "skndcg"
    (fake / "cli").mkdir(parents=True)
    (fake / "cli" / "_x.py").write_text("from ..io._text import scan\n")
    targets = list(_private_targets(fake / "cli" / "_x.py", fake))
    assert targets == ["io._text"]


def test_metrics_import_no_estimator_or_plotting_library():
    import subprocess
    import sys

    code = (
        "import sys, skndcg.metrics; "
        "print(sorted(m for m in ('lightgbm', 'xgboost', 'matplotlib', 'polars', "
        "'torch') if m in sys.modules))"
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
