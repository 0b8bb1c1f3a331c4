"""Every module's source can be read by Sphinx's source reader, so that the
docs' source pages (sphinx.ext.viewcode) exist for every module they list:
a module it cannot read is listed in ``_modules/index.html`` and linked from
it, but its page is never written (a broken link)."""

import importlib
import pkgutil

import pytest

import skndcg

pycode = pytest.importorskip("sphinx.pycode")


def _modules():
    # walk_packages imports each package to list its modules: skip those of
    # the optional back ends whose dependencies are not installed.
    names = []
    for info in pkgutil.walk_packages(
        skndcg.__path__, "skndcg.", onerror=lambda name: None
    ):
        names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules())
def test_sphinx_reads_every_module(name):
    try:
        importlib.import_module(name)
    except ImportError as exc:  # torch, pyspark: optional extras
        pytest.skip(f"{name}: an optional dependency is not installed ({exc})")
    pycode.ModuleAnalyzer.for_module(name).find_tags()
