"""The README's shell commands and conventions table hold as written."""

import re
from pathlib import Path

import pytest

from skndcg.metrics import grouped_ndcg_score

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
Y, S, Q = (
    [0, 3, 2, 0, 0, 1, 0],
    [0.9, 0.5, 0.5, 0.3, 0.2, 0.7, 0.7],
    [1, 1, 1, 2, 2, 3, 3],
)
ROWS = re.findall(r'^\| `"(\w+)"` \| (\d\.\d{10}) ', README, flags=re.M)
WORDS = {"eight": 8, "nine": 9, "ten": 10}


@pytest.mark.parametrize(("name", "value"), ROWS, ids=[r[0] for r in ROWS])
def test_conventions_table_values(name, value):
    assert f"{grouped_ndcg_score(Y, S, Q, k=2, convention=name):.10f}" == value


def test_conventions_table_counts_every_preset():
    from skndcg.metrics._conventions import PRESETS

    table = README.split("## Conventions")[1].split("\n## ")[0]
    assert "catboost" in {name for name, _ in ROWS}
    values = set(re.findall(r"\| (\d\.\d{10})", table))
    presets, numbers = re.search(r"\((\w+) presets, (\w+) numbers\)", table).groups()
    assert WORDS[presets] == len(PRESETS)  # the default is the "skndcg" preset
    assert WORDS[numbers] == len(values)
    assert re.search(rf"the same NDCG@10, {numbers} numbers", README)


def test_shell_commands_say_which_environment():
    activate = README.index(". .venv/bin/activate")
    make = README.index("make demo")
    for command in re.finditer(r"^skndcg \w+", README, flags=re.M):
        assert make < activate < command.start(), command.group()
