"""Agreement with torchmetrics (needs torch: the ``peers-torch`` extra).

Collected only with ``pytest --peers-torch`` (``make test-peers``), so that
``make test`` never needs torch; here a missing torch is an error, not a skip.
"""

import numpy as np
import pytest
import torch  # noqa: F401  (fails loudly when the peers-torch extra is missing)
from cases import random_case
from peers import torchmetrics_metric

from skndcg.metrics import (
    grouped_hit_rate_score,
    grouped_map_score,
    grouped_mrr_score,
    grouped_ndcg_score,
    grouped_precision_score,
    grouped_recall_score,
)

pytestmark = pytest.mark.peers_torch

SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("empty", "action"), [("zero", "neg"), ("one", "pos"), ("skip", "skip")]
)
def test_torchmetrics_preset(seed, empty, action):
    y, s, q, k = random_case(seed)
    want = torchmetrics_metric(y, s, q, "ndcg", k, empty_target_action=action)
    got = grouped_ndcg_score(y, s, q, k=k, convention="torchmetrics", empty=empty)
    # torchmetrics accumulates in float32.
    assert got == pytest.approx(want, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("seed", range(0, 40, 4))
def test_torchmetrics_preset_family(seed):
    # torchmetrics' other retrieval metrics break ties by torch's sort order and
    # treat rows scored <= 0 as not relevant: compare on distinct positive scores.
    y, s, q, k = random_case(seed, labels=(0, 2))
    s = np.random.default_rng(seed).uniform(0.01, 1.0, s.size)
    kw = {"convention": "torchmetrics", "k": k}
    pairs = [
        (grouped_map_score(y, s, q, **kw), "map"),
        (grouped_mrr_score(y, s, q, **kw), "mrr"),
        (grouped_precision_score(y, s, q, **kw), "p"),
        (grouped_recall_score(y, s, q, **kw), "r"),
        (grouped_hit_rate_score(y, s, q, **kw), "hit"),
    ]
    for got, name in pairs:
        want = torchmetrics_metric(y, s, q, name, k)
        assert got == pytest.approx(want, rel=1e-5, abs=1e-6), name
