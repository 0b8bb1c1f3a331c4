"""
====================================================
Monitoring NDCG on live traffic, with drop alerts
====================================================

Near-line monitoring aggregates NDCG over short windows of shadow traffic
and alerts when it drops. :func:`~skndcg.evaluation.metric_over_time`
computes any measure per window with an interval over the window's queries,
compares each window with a baseline (here the hour before it) and flags
drops that are significant after a Holm correction *and* at least 5%.
:func:`~skndcg.plotting.plot_metric_over_time` draws the result.

The simulated day below has a stable ranker until 15:00, when a broken
feature makes 40% of its queries rank at random.
"""

# %%
# A day of logged queries, rows in arrival order (not sorted by query)
# ---------------------------------------------------------------------
import os

import numpy as np
import pandas as pd

quick = os.environ.get("SKNDCG_EXAMPLE_QUICK") == "1"
rng = np.random.default_rng(0)
n_queries, n_items = (12_000 if quick else 40_000), 10
start = pd.Timestamp("2024-05-06") + pd.to_timedelta(
    np.sort(rng.uniform(0, 86_400, n_queries)), unit="s"
)
qid = np.repeat(np.arange(n_queries), n_items)
label = rng.choice(4, size=qid.size, p=[0.6, 0.25, 0.1, 0.05])
score = label + rng.normal(0, 1.2, qid.size)
broken = (start >= pd.Timestamp("2024-05-06 15:00")) & (rng.random(n_queries) < 0.4)
score = np.where(broken[qid], rng.normal(0, 1, qid.size), score)
log = pd.DataFrame(
    {
        "qid": qid,
        "label": label,
        "score": score,
        "time": start[qid] + pd.to_timedelta(rng.uniform(0, 5, qid.size), unit="s"),
    }
).sample(frac=1.0, random_state=0)
print(f"{len(log)} rows, {n_queries} queries")

# %%
# NDCG@10 per 30 minutes against the previous hour
# ------------------------------------------------
from skndcg.evaluation import metric_over_time

result = metric_over_time(
    "label",
    "score",
    "qid",
    "time",
    data=log,
    freq="30min",
    metrics=["ndcg@10", "mrr"],
    baseline_windows=2,
)
alerts = result[result["alert"]]
print(alerts[["window", "metric", "value", "baseline", "change", "p_adjusted"]].head())
print(f"{alerts['window'].nunique()} windows alert, from {alerts['window'].min()}")

# %%
# Every window from 15:00 on alerts on both measures: windows that dropped are
# held out of later baselines, so the reference stays the level before the
# break (``baseline="previous"`` would compare each window with the two just
# before it, and stop alerting once they hold broken traffic themselves). A
# daily job would use ``baseline="week"`` instead, against the same weekday a
# week earlier.
import matplotlib.pyplot as plt

from skndcg.plotting import plot_metric_over_time

fig, ax = plt.subplots(figsize=(9, 3.5))
plot_metric_over_time(result, metric="ndcg@10", ax=ax)
ax.set_title("NDCG@10 per 30 minutes")
fig.tight_layout()
