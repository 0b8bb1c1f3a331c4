"""benchmarks/agreement.py, the README's proof of agreement: every peer is
compared with its own preset, and a peer that is not installed is skipped
with a word instead of a crash."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "agreement.py"

#: The preset that reproduces each peer (docs/user_guide/conventions.rst).
OWN_PRESET = {
    "scikit-learn": "sklearn",
    "LightGBM": "lightgbm",
    "XGBoost": "xgboost",
    "pytrec_eval": "pytrec_eval",
    "ranx": "ranx",
    "CatBoost": "catboost",
    "torchmetrics": "torchmetrics",
}


@pytest.fixture(scope="module")
def agreement():
    spec = importlib.util.spec_from_file_location("agreement", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_peer_is_compared_with_its_own_preset(agreement):
    peers = {row[0] for row in agreement.ROWS}
    assert peers == set(OWN_PRESET)  # every peer of the README's table
    for peer, metric, _, _, ours in agreement.ROWS:
        assert agreement._preset(ours) == OWN_PRESET[peer], (peer, metric)


def test_a_missing_peer_is_skipped_with_a_word(agreement, monkeypatch, capsys):
    def absent(*args):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    rows = [agreement.ROWS[0], ("torchmetrics", "ndcg", {}, absent,
                                agreement.ROWS[-1][4])]  # fmt: skip
    monkeypatch.setattr(agreement, "ROWS", rows)
    assert agreement.main(["--cases", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("| scikit-learn | ndcg_score | `sklearn` | 3 | ")
    assert out[3] == (
        "| torchmetrics | ndcg | `torchmetrics` | 0 | skipped: torch is not installed |"
    )


def test_a_disagreement_fails_the_run(agreement, monkeypatch, capsys):
    peer, metric, opts, theirs, _ = agreement.ROWS[0]
    rows = [(peer, metric, opts, theirs, lambda y, s, q, k: np.nan)]
    monkeypatch.setattr(agreement, "ROWS", rows)
    assert agreement.main(["--cases", "2"]) == 1
    assert "disagreement beyond tolerance: scikit-learn" in capsys.readouterr().err
