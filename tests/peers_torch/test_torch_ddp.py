"""RankingMetric under torch.distributed: two processes, states joined by cat."""

import socket

import numpy as np
import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from skndcg.metrics import grouped_ranking_scores

pytestmark = pytest.mark.peers_torch

METRICS = ["ndcg@5", "map", "mrr"]


def _data():
    rng = np.random.default_rng(0)
    n = 600
    q = rng.integers(0, 40, n)
    y = rng.integers(0, 3, n).astype(float)
    s = np.round(rng.normal(size=n), 1)
    return y, s, q


def _worker(rank, world, port, out):
    from skndcg.torch import RankingMetric

    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world
    )
    try:
        y, s, q = _data()
        mine = np.arange(len(y)) % world == rank  # every query split over ranks
        metric = RankingMetric(METRICS)
        metric.update(torch.tensor(s[mine]), torch.tensor(y[mine]),
                      torch.tensor(q[mine]))  # fmt: skip
        values = metric.compute()
        out[rank] = {k: float(v) for k, v in values.items()}
    finally:
        dist.destroy_process_group()


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_two_processes_score_all_queries_together():
    with mp.Manager() as manager:
        out = manager.dict()
        mp.spawn(_worker, args=(2, _free_port(), out), nprocs=2, join=True)
        results = dict(out)
    y, s, q = _data()
    # Row order differs after the gather, which averaged ties do not see.
    want = grouped_ranking_scores(y, s, q, METRICS)
    for rank in (0, 1):
        for name in METRICS:
            assert results[rank][name] == pytest.approx(want[name], rel=1e-12)
