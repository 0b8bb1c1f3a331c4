"""
===============================================
Time-ordered cross-validation with whole groups
===============================================

:class:`~skndcg.model_selection.GroupTimeSeriesSplit` validates a model on
the future while keeping every group (a query, a user session, ...) whole.
Each group is the time interval from its first to its last row; folds are
ordered by when groups start, a group trains a fold only if it ends before
the fold's cutoff, and a group that spans a cutoff is purged from that fold.

This example builds a small interaction log with pandas, then draws the folds
with :func:`~skndcg.plotting.plot_group_time_splits`: one row per fold, time
on the x axis, each group a segment coloured by its role.
"""

# %%
# A small interaction log
# -----------------------
# Forty users rate items during 2023. A query is one user in one month
# (``qid``), the unit a ranking metric averages over. Rows are shuffled, so
# neither row order nor query labels say anything about time.
import numpy as np
import pandas as pd

pd.set_option("display.width", 150)

from skndcg.model_selection import GroupTimeSeriesSplit
from skndcg.plotting import plot_group_time_splits

rng = np.random.default_rng(0)
n_rows = 3000
user = rng.integers(0, 40, n_rows)
first_seen = pd.Timestamp("2023-01-01") + pd.to_timedelta(
    rng.integers(0, 340, 40), unit="D"
)
delay = pd.to_timedelta(rng.exponential(20, n_rows), unit="D")
timestamp = (first_seen[user] + delay).floor("h")
log = pd.DataFrame(
    {
        "user": user,
        "timestamp": timestamp,
        "feature": rng.normal(size=n_rows),
        "rating": rng.integers(1, 6, n_rows),
    }
).sample(frac=1.0, random_state=0, ignore_index=True)
log = log[log["timestamp"] < pd.Timestamp("2024-01-01")].reset_index(drop=True)
log["qid"] = log["user"].astype(str) + "-" + log["timestamp"].dt.strftime("%Y-%m")
print(f"{len(log)} rows, {log['qid'].nunique()} queries")

# %%
# Four folds of equal numbers of queries
# --------------------------------------
# The columns are named once; ``split`` and ``split_info`` read them from
# the DataFrame. ``split_info`` tells what each fold contains.
cv = GroupTimeSeriesSplit(n_splits=4, group_col="qid", time_col="timestamp")
info = cv.split_info(log)
print(info[["fold", "cutoff", "n_train_groups", "n_test_groups", "n_purged_groups"]])

# %%
# Most queries end within their month, so few are purged. The plot shows
# every query as a segment in each fold's row.
ax = plot_group_time_splits(cv, log)
ax.figure.tight_layout()

# %%
# Rolling window, gap and calendar test periods
# ---------------------------------------------
# ``test_size="60D"`` makes fixed 60-day test windows anchored at the latest
# data, ``gap="7D"`` leaves a week between training and testing and
# ``max_train_size="120D"`` keeps only the last four months of training data.
cv_rolling = GroupTimeSeriesSplit(
    n_splits=3,
    test_size="60D",
    gap="7D",
    max_train_size="120D",
    group_col="qid",
    time_col="timestamp",
)
ax = plot_group_time_splits(cv_rolling, log)
ax.figure.tight_layout()

# %%
# Long-lived groups are purged
# ----------------------------
# With one query per *user*, a user active across a cutoff cannot be in
# training (their later rows are in the future) nor in the test fold (their
# earlier rows are in the past): the splitter purges them. Test users are
# then new users, a cold-start evaluation.
cv_users = GroupTimeSeriesSplit(n_splits=2, group_col="user", time_col="timestamp")
print(cv_users.split_info(log)[["fold", "n_train_groups", "n_purged_groups"]])
ax = plot_group_time_splits(cv_users, log)
ax.figure.tight_layout()
