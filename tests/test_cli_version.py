"""``skndcg --version`` and install hints that fit how skndcg was installed."""

import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import skndcg
from skndcg.utils import _optional

ROOT = Path(__file__).resolve().parents[1]


def test_version_flag_prints_the_package_version():
    out = subprocess.run(
        [sys.executable, "-m", "skndcg", "--version"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert out.stdout.strip() == f"skndcg {skndcg.__version__}"
    declared = re.search(
        r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M
    )
    assert declared.group(1) == skndcg.__version__


def test_version_flag_imports_no_numpy():
    """``skndcg --version`` (and the parser behind every command) starts
    without numpy: the shared number-text rule lives in a module that
    imports nothing."""
    code = (
        "import sys\n"
        "from skndcg.cli import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('numpy' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=ROOT,
    )  # fmt: skip
    assert out.stdout.strip().splitlines()[-1] == "False"


class _Dist:
    """An installed distribution's metadata, as importlib.metadata gives it."""

    def __init__(self, direct_url):
        self._text = None if direct_url is None else json.dumps(direct_url)

    def read_text(self, name):
        return self._text if name == "direct_url.json" else None


@pytest.mark.parametrize(
    ("dists", "hint"),
    [
        ([_Dist(None)], "`pip install 'skndcg[lightgbm]'` (or `pip install lightgbm`)"),
        (
            [_Dist({"url": "file:///src", "dir_info": {"editable": True}})],
            "`pip install lightgbm`, or `pip install -e '.[lightgbm]'` in the "
            "skndcg source folder",
        ),
        (
            [_Dist({"url": "file:///src", "dir_info": {}})],
            "`pip install lightgbm`, or `pip install '.[lightgbm]'` in the",
        ),
        ([], "install it with `pip install lightgbm`."),
    ],
)
def test_missing_module_hint_follows_the_install(monkeypatch, dists, hint):
    monkeypatch.setattr(metadata, "distributions", lambda name: dists)
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # import fails
    with pytest.raises(ImportError, match=re.escape(hint)):
        _optional.import_optional("lightgbm", purpose="the demo")
