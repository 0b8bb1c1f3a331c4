"""Time skndcg.torch.RankingMetric against torchmetrics on CPU, in one run.

NDCG@10 of float32 scores with graded labels, computed by
``skndcg.torch.RankingMetric("ndcg@10")`` and by torchmetrics'
``RetrievalNormalizedDCG(top_k=10)`` (update with the whole batch, then
compute), on the same tensors:

- a dense (8000, 40) validation batch: 8,000 queries of 40 candidates;
- 5,000,000 rows: 125,000 queries of 40 candidates.

The target is skndcg at least 20x faster on both. Both values are printed
too, as a check that the two compute the same thing (torchmetrics breaks ties
by sort order; continuous scores have none). The best of ``--repeat`` runs is
reported for skndcg; torchmetrics, much slower, runs ``--repeat-peer`` times.

Needs torch and torchmetrics (``make bench-torch`` installs them the way
``make test-peers`` does); without them the script says so and exits 0, so
that ``make bench`` runs everywhere.

Run from the project root::

    python benchmarks/bench_torch.py [--repeat 3] [--repeat-peer 1] [--skip-5m]
        [--threads 1,2]

``--threads`` takes a comma-separated list of torch intra-op thread counts
(0: torch's default) and times every batch under each, in the same run, so
that the ratios are comparable. skndcg's path is a few dozen vectorised
operations over all rows, each split across the intra-op threads and joined
again; torchmetrics' per-query loop runs operations on 40 elements, below
torch's grain size, so they stay on one thread. On a machine whose cores are
busy with other work, each join waits for a thread the system has not
scheduled: the threads setting then matters for skndcg and not for
torchmetrics, which is what this option shows. ``--ours-one-thread`` adds,
for each setting above one thread, a row where torchmetrics keeps that
setting and skndcg runs with ``num_threads=1`` (shown as ``2/1``);
``--ours-torch-threads`` one where skndcg uses torch's setting, ``num_threads=None``
(shown as ``2/t``). Plain rows use skndcg's default, ``num_threads="auto"``: one
thread below 2**20 rows, torch's setting above.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
import time


def _missing():
    return [m for m in ("torch", "torchmetrics") if importlib.util.find_spec(m) is None]


def best(func, repeat):
    times, value = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        value = func()
        times.append(time.perf_counter() - t)
    return min(times), value


def case(torch, n_queries, n_items, repeat, repeat_peer, seed=0, ours_threads="auto"):
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    from skndcg.torch import RankingMetric

    g = torch.Generator().manual_seed(seed)
    n = n_queries * n_items
    preds = torch.rand(n, generator=g)
    target = torch.randint(0, 4, (n,), generator=g)
    indexes = torch.arange(n_queries).repeat_interleave(n_items)

    def ours():
        m = RankingMetric("ndcg@10", num_threads=ours_threads)
        m.update(preds, target, indexes)
        return float(m.compute())

    def peer():
        m = RetrievalNormalizedDCG(top_k=10)
        m.update(preds, target, indexes)
        return float(m.compute())

    ours()  # warm-up: first-call imports
    t_ours, v_ours = best(ours, repeat)
    t_peer, v_peer = best(peer, repeat_peer)
    return t_ours, v_ours, t_peer, v_peer


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-peer", type=int, default=1)
    parser.add_argument("--skip-5m", action="store_true")
    parser.add_argument(
        "--threads",
        default="0",
        help="comma-separated torch thread counts (0: torch's default)",
    )
    parser.add_argument(
        "--ours-one-thread",
        action="store_true",
        help="also time skndcg with num_threads=1 under each setting above 1",
    )
    parser.add_argument(
        "--ours-torch-threads",
        action="store_true",
        help="also time skndcg with num_threads=None (torch's setting, shown /t)",
    )
    args = parser.parse_args(argv)
    missing = _missing()
    if missing:
        print(
            f"bench_torch: skipped, {' and '.join(missing)} not installed "
            "(run `make bench-torch`, which installs the peers-torch extra)."
        )
        return 0
    import torch
    import torchmetrics

    default = torch.get_num_threads()
    threads = [int(t) or default for t in str(args.threads).split(",")]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, "
        f"default {default} threads, {os.cpu_count()} cpus, load {load:.1f}, "
        f"{platform.processor() or 'cpu'}"
    )
    cases = [("(8000, 40)", 8000, 40)]
    if not args.skip_5m:
        cases.append(("5M rows", 125_000, 40))
    print(
        f"{'batch':<12} {'threads':>7} {'skndcg s':>9} {'torchmetrics s':>15} "
        f"{'ratio':>7}  values"
    )
    # skndcg's default num_threads="auto" (one thread below 2**20 rows);
    # --ours-one-thread and --ours-torch-threads add the fixed settings.
    settings = [(n, "auto") for n in threads]
    if args.ours_one_thread:
        settings += [(n, 1) for n in threads if n > 1]
    if args.ours_torch_threads:
        settings += [(n, None) for n in threads if n > 1]
    for label, nq, ni in cases:
        for n_threads, ours in settings:
            torch.set_num_threads(n_threads)
            t_ours, v_ours, t_peer, v_peer = case(
                torch, nq, ni, args.repeat, args.repeat_peer, ours_threads=ours
            )
            shown = f"{n_threads}" + {"auto": "", None: "/t"}.get(ours, f"/{ours}")
            print(
                f"{label:<12} {shown:>7} {t_ours:>9.3f} {t_peer:>15.3f} "
                f"{t_peer / t_ours:>6.0f}x  {v_ours:.6f} vs {v_peer:.6f}"
            )
    torch.set_num_threads(default)
    return 0


if __name__ == "__main__":
    sys.exit(main())
