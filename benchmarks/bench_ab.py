"""Time the A/B test and the monitoring functions on 10 million logged rows.

Targets: each handles 10M rows in seconds.

- ``ab_test``: 10M per-query values of 1M users in two arms, plain, with
  CUPED (``pre=``), sequential, and with a balance check of one covariate;
  against a baseline in the same run, the per-arm means and Welch's test on
  per-user means with pandas and scipy (the least any such test must do).
- ``explain_change``: two periods of 5M per-query values each, four
  segments; against pandas' per-segment means of the two periods.
- ``metric_over_time``: 1M queries of 10 rows (10M rows) in 5-minute
  windows, the default (stable) baseline against ``baseline="previous"``.
- ``compare_over_time``: two models on 1M queries of 10 rows, 5-minute
  windows (288), paired t-tests and 200 bootstrap resamples per window;
  against ``compare`` on the same per-query values as one segment.

Run from the project root::

    python benchmarks/bench_ab.py [--rows 10000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
import pandas as pd
from scipy import stats

from skndcg.evaluation import (
    compare,
    compare_over_time,
    explain_change,
    metric_over_time,
)
from skndcg.metrics import ranking_report
from skndcg.online import ab_test


def best_of(func, repeat):
    """Best wall time and the CPU time (all threads) of that run."""
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        func()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(runs)


def _baseline_ab(value, arm, user):
    frame = pd.DataFrame({"v": value, "u": user})
    per_user = frame.groupby("u")["v"].mean()
    arm_of = pd.Series(arm).groupby(user).first()
    a, b = per_user[arm_of == "A"], per_user[arm_of == "B"]
    return stats.ttest_ind(b, a, equal_var=False).pvalue


def _baseline_explain(before, after):
    return (
        before.groupby("segment")["ndcg@10"].agg(["mean", "size"]),
        after.groupby("segment")["ndcg@10"].agg(["mean", "size"]),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    n, rep = args.rows, args.repeat
    print(f"python {sys.version.split()[0]}, {platform.machine()}, "
          f"{os.cpu_count()} cpus, {n:,} rows, best of {rep}")  # fmt: skip
    rng = np.random.default_rng(0)
    out = []

    # ab_test: per-query values clustered by user.
    n_users = n // 10
    user = rng.integers(0, n_users, n)
    arm = np.where(user % 2 == 0, "A", "B")
    taste = rng.normal(0, 0.15, n_users)
    value = 0.6 + taste[user] + rng.normal(0, 0.1, n) + 0.002 * (arm == "B")
    pre = (taste + rng.normal(0, 0.05, n_users))[user]
    age = rng.normal(40, 10, n_users)[user]
    base = best_of(lambda: _baseline_ab(value, arm, user), rep)
    out.append(("pandas+scipy Welch on user means (baseline)", base, base))
    for label, kw in (
        ("ab_test", {}),
        ("ab_test, pre= (CUPED)", {"pre": pre}),
        ("ab_test, sequential=True", {"sequential": True}),
        ("ab_test, covariates= (KS)", {"covariates": {"age": age}}),
    ):
        t = best_of(lambda kw=kw: ab_test(value, arm, user, **kw), rep)
        out.append((label, t, base))

    # explain_change: two periods of per-query values.
    half = n // 2
    frames = [
        pd.DataFrame({
            "qid": np.arange(half) + p * half,
            "ndcg@10": rng.random(half),
            "segment": rng.choice(["new", "1-9", "10-99", ">= 100"], half),
        })
        for p in range(2)
    ]  # fmt: skip
    base = best_of(lambda: _baseline_explain(*frames), rep)
    out.append(("pandas per-segment means (baseline)", base, base))
    t = best_of(lambda: explain_change(*frames, by="segment"), rep)
    out.append(("explain_change", t, base))

    # metric_over_time and compare_over_time: 10 rows per query over a day.
    n_q = n // 10
    qid = np.repeat(np.arange(n_q), 10)
    y = rng.integers(0, 3, n)
    s1 = y + rng.normal(0, 1, n)
    s2 = y + rng.normal(0, 0.9, n)
    start = np.sort(rng.uniform(0, 86_400, n_q))
    when = pd.Series(pd.Timestamp("2024-06-03") + pd.to_timedelta(start[qid], "s"))
    ranking_report(y[:1000], s1[:1000], qid[:1000], metrics=["ndcg@10"])  # compile
    prev = best_of(
        lambda: metric_over_time(y, s1, qid, when, freq="5min", baseline="previous"),
        rep,
    )
    out.append(("metric_over_time, baseline='previous'", prev, prev))
    t = best_of(lambda: metric_over_time(y, s1, qid, when, freq="5min"), rep)
    out.append(("metric_over_time, default (stable) baseline", t, prev))

    reports = {
        "live": ranking_report(y, s1, qid, metrics=["ndcg@10"]),
        "new": ranking_report(y, s2, qid, metrics=["ndcg@10"]),
    }
    one = best_of(
        lambda: compare(reports, baseline="live", test="t", n_resamples=200,
                        random_state=0),
        rep,
    )  # fmt: skip
    out.append(("compare, all queries at once (baseline)", one, one))
    t = best_of(
        lambda: compare_over_time(
            y, {"live": s1, "new": s2}, qid, when, freq="5min", baseline="live",
            test="t", n_resamples=200, random_state=0,
        ),
        rep,
    )  # fmt: skip
    out.append(("compare_over_time, 288 windows", t, one))

    width = max(len(label) for label, *_ in out)
    for label, (wall, cpu), (bwall, _) in out:
        print(f"{label:<{width}}  {wall:7.2f} s wall  {cpu:7.2f} s cpu  "
              f"{wall / bwall:5.2f}x baseline")  # fmt: skip


if __name__ == "__main__":
    main()
