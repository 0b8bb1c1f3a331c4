"""skndcg.torch without torch: an ImportError that names the extra.

torch is blocked in a child process (``sys.modules["torch"] = None``), so this
runs in ``make test`` and never imports torch, installed or not.
"""

import subprocess
import sys


def test_import_without_torch_names_the_extra():
    code = (
        "import sys\n"
        "sys.modules['torch'] = None\n"
        "try:\n"
        "    import skndcg.torch\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "skndcg.torch needs torch" in out.stdout
    assert "skndcg[torch]" in out.stdout


def test_evaluation_plotting_and_cli_do_not_import_torch():
    code = (
        "import sys, skndcg.evaluation, skndcg.plotting, skndcg.cli\n"
        "from skndcg.cli import _build_parser\n"
        "_build_parser()\n"
        "print(sorted(m for m in ('torch', 'torchmetrics') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr
