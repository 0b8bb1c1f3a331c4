"""Options for the whole checkout (tests/ and the doctests in skndcg/)."""

from pathlib import Path

_TORCH_PKG = Path(__file__).parent / "skndcg" / "torch"


def pytest_addoption(parser):
    parser.addoption(
        "--peers-torch",
        action="store_true",
        help="collect tests/peers_torch and the doctests of skndcg/torch "
        "(torchmetrics agreement; needs the peers-torch extra, see make test-peers)",
    )


def pytest_ignore_collect(collection_path, config):
    # skndcg/torch imports torch, which make test never installs: its doctests
    # run with --peers-torch (make test-peers) only.
    if collection_path == _TORCH_PKG and not config.getoption("--peers-torch"):
        return True
    return None
