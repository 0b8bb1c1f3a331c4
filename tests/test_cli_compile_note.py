"""On a terminal, the first kernel compile is announced once; a warm cache is quiet."""

import io
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from skndcg.cli._notes import MESSAGE, announce_first_compile

ROOT = Path(__file__).resolve().parents[1]


def _on_a_terminal(argv, cache):
    """Run ``skndcg`` with stderr on a pseudo-terminal; return (code, stderr)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "skndcg", *map(str, argv)],
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=600), b"".join(chunks).decode()


def test_first_compile_is_announced_once_then_never(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("q,y,s\na,1,0.9\na,0,0.5\nb,2,0.1\nb,0,0.3\n")
    argv = ["score", path, "--qid", "q", "--label", "y", "--score", "s"]
    argv += ["--metrics", "p@1"]
    code, err = _on_a_terminal(argv, tmp_path / "cold")
    assert code == 0
    assert err.count(MESSAGE) == 1, err
    code, err = _on_a_terminal(argv, tmp_path / "cold")  # now warm
    assert code == 0 and MESSAGE not in err, err


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def _fresh_kernel():
    def add_one(x):
        return x + 1

    add_one.__module__ = "skndcg.metrics._example"
    return numba.njit(add_one)


@pytest.mark.parametrize("tty", [True, False])
def test_said_only_on_a_terminal_and_only_for_skndcg(tty):
    stream = _Stream(tty)
    with announce_first_compile("skndcg score", stream):
        numba.njit(lambda x: x * 2)(3)  # not skndcg's: nothing
        assert stream.getvalue() == ""
        _fresh_kernel()(1)
        _fresh_kernel()(2.0)
    expected = f"skndcg score: {MESSAGE}\n" if tty else ""
    assert stream.getvalue() == expected
