"""Time skndcg.online on click logs of 10 million rows.

Each case is one public function of :mod:`skndcg.online` on a simulated log
(500,000 logged queries of 20 candidates, 10 shown: 10,000,000 rows). The
yardstick of the same run is ``np.lexsort`` of the rows by query and score,
the one sort any ranking of the candidates needs; every case is reported in
seconds and as a multiple of it (per row, for a case run on fewer rows).
Wall times move with the load of the machine; ratios within one run are what
to compare.

Cases are a list (``CASES``): each names its input and its call, so more
functions of the package are timed by appending to it.

Run from the project root::

    python benchmarks/bench_online.py [--queries 500000] [--repeat 3]
        [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from skndcg.online import (
    ab_test,
    counterfactual_report,
    interleave,
    interleaving_result,
    multileave,
    simulate_click_log,
    simulate_clicks,
)


@dataclass
class Case:
    """One timed call: ``run(inputs)``, with ``inputs`` from ``make(n_queries)``.

    ``share`` scales the number of queries of this case (for a call too slow
    to time on the whole log; ratios are then per row).
    """

    name: str
    make: Callable
    run: Callable
    share: float = 1.0


_CACHE: dict = {}


def click_log(n_queries):
    """The shared simulated log (uniform logger), built once."""
    if ("log", n_queries) not in _CACHE:
        sim = simulate_click_log(n_queries, 20, 10, random_state=0)
        log = sim.log
        cols = {c: log[c].to_numpy() for c in log.columns}
        cols["examination"] = sim.examination
        _CACHE["log", n_queries] = cols
    return _CACHE["log", n_queries]


def interleaved(n_queries):
    if ("lists", n_queries) not in _CACHE:
        log = click_log(n_queries)
        rng = np.random.default_rng(1)
        b = log["feature"] + rng.normal(0, 0.5, log["feature"].size)
        lists = interleave(log["qid"], log["item"], log["feature"], b, random_state=0)
        rel = log["relevance"][lists["row"]]
        click = simulate_clicks(lists["qid"], lists["position"], rel, random_state=0)
        users = lists["qid"].to_numpy() // 5
        _CACHE["lists", n_queries] = (lists, click, users)
    return _CACHE["lists", n_queries]


def ab_values(n_queries):
    """As many per-query values as the log has rows, ten per user, two arms."""
    if ("ab", n_queries) not in _CACHE:
        n = 20 * n_queries
        rng = np.random.default_rng(2)
        user = rng.integers(0, n // 10, n)
        arm = np.where(user % 2 == 0, "A", "B")
        taste = rng.normal(0, 0.15, n // 10)
        value = 0.6 + taste[user] + rng.normal(0, 0.1, n)
        pre = (taste + rng.normal(0, 0.05, n // 10))[user]
        _CACHE["ab", n_queries] = (value, arm, user, pre)
    return _CACHE["ab", n_queries]


def _report(log, **kw):
    return counterfactual_report(
        log["qid"], log["item"], log["position"], log["click"], log["feature"],
        examination=log["examination"],
        logging_probability=log["logging_probability"], random_state=0, **kw,
    )  # fmt: skip


CASES = [
    Case(
        "yardstick: np.lexsort by (qid, score)",
        click_log,
        lambda log: np.lexsort((log["feature"], log["qid"])),
    ),
    Case(
        "simulate_click_log (uniform logger)",
        lambda n: n,
        lambda n: simulate_click_log(n, 20, 10, random_state=1),
    ),
    Case(
        "simulate_click_log (softmax logger)",
        lambda n: n,
        lambda n: simulate_click_log(n, 20, 10, logger="softmax", random_state=1),
    ),
    Case(
        "simulate_clicks (pbm)",
        click_log,
        lambda log: simulate_clicks(
            log["qid"], log["position"], log["relevance"], random_state=0
        ),
    ),
    Case(
        "counterfactual_report ips+snips, 1000 resamples",
        click_log,
        lambda log: _report(log),
    ),
    Case(
        "counterfactual_report ips+snips, no interval",
        click_log,
        lambda log: _report(log, n_resamples=0),
    ),
    Case(
        "counterfactual_report ips+snips+dr (default model), 1000 resamples",
        click_log,
        lambda log: _report(log, estimators=("ips", "snips", "dr")),
    ),
    Case(
        "counterfactual_report cascade, 200 resamples",
        click_log,
        lambda log: _report(log, estimators="cascade", n_resamples=200),
    ),
    Case(
        "interleave team_draft",
        click_log,
        lambda log: interleave(
            log["qid"],
            log["item"],
            log["feature"],
            log["logging_score"],
            random_state=0,
        ),
    ),
    Case(
        "interleave balanced",
        click_log,
        lambda log: interleave(
            log["qid"],
            log["item"],
            log["feature"],
            log["logging_score"],
            method="balanced",
            random_state=0,
        ),
    ),
    Case(
        "multileave, 3 rankers",
        click_log,
        lambda log: multileave(
            log["qid"],
            log["item"],
            np.column_stack([log["feature"], log["logging_score"], log["relevance"]]),
            random_state=0,
        ),
    ),
    Case(
        "interleaving_result (sign test)",
        interleaved,
        lambda x: interleaving_result(x[0], x[1]),
    ),
    Case(
        "interleaving_result (bootstrap over users, 10000 resamples)",
        interleaved,
        lambda x: interleaving_result(x[0], x[1], users=x[2], random_state=0),
    ),
    Case(
        "ab_test (values clustered by user, 10 per user)",
        ab_values,
        lambda x: ab_test(x[0], x[1], x[2]),
    ),
    Case(
        "ab_test, pre= (CUPED), sequential=True",
        ab_values,
        lambda x: ab_test(x[0], x[1], x[2], pre=x[3], sequential=True),
    ),
]


def best_of(func, repeat):
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        runs.append(time.perf_counter() - start)
    return min(runs), float(np.median(runs))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)
    print(
        f"# skndcg.online, {args.queries:,} logged queries x 20 candidates = "
        f"{20 * args.queries:,} rows; best of {args.repeat}"
    )
    print(f"# {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    # compile every kernel on a small input first
    small = 200
    for case in CASES:
        case.run(case.make(small))
    print("| case | rows | best (s) | median (s) | x yardstick |")
    print("|---|---|---|---|---|")
    base = None
    for case in CASES:
        if args.only and not any(o in case.name for o in [*args.only, "yardstick"]):
            continue
        n_queries = int(args.queries * case.share)
        inputs = case.make(n_queries)
        best, median = best_of(lambda c=case, x=inputs: c.run(x), args.repeat)
        base = best if base is None else base
        ratio = best / base / case.share
        print(
            f"| {case.name} | {20 * n_queries:,} | {best:.3f} | {median:.3f} | "
            f"{ratio:.1f}x |"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
