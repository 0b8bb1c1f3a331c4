"""
===============================================
Tuning LGBMRanker with GridSearchCV, no leakage
===============================================

The full pattern behind ``skndcg demo``, step by step:

1. turn a ratings log into queries (one user in one month), candidates
   (rated items plus sampled unrated ones) and features computed only from
   earlier months, with :func:`~skndcg.datasets.make_ranking_task`;
2. hold out the latest queries;
3. tune ``QueryRanker(LGBMRanker(), time_col=..., drop_cols=[...])`` with
   ``GridSearchCV`` over time-ordered folds
   (:class:`~skndcg.model_selection.GroupTimeSeriesSplit`), scoring three
   ranking metrics and refitting on NDCG@10;
4. score the chosen model and a popularity baseline on the hold-out, with a
   paired bootstrap over queries.
"""

# %%
# Ratings and the ranking task
# ----------------------------
import os

import numpy as np

from skndcg.datasets import make_movielens_like, make_ranking_task

quick = os.environ.get("SKNDCG_EXAMPLE_QUICK") == "1"
size = (200, 2000, 20_000) if quick else (600, 9000, 100_000)
ratings = make_movielens_like(*size, random_state=0)
X, y = make_ranking_task(ratings, window="M", n_negatives=50, random_state=0)
print(X.iloc[:3, :7])
labels = dict(zip(*(v.tolist() for v in np.unique(y, return_counts=True)), strict=True))
print(f"{X['qid'].nunique()} queries, {len(X)} rows, label counts {labels}")

# %%
# ``window_start`` is the time of a query; ``user_id`` and ``item_id`` are
# identifiers. The features (``item_log_ratings`` onwards) use only ratings
# from before the query's month, so a model cannot peek at the future.
#
# Hold-out and folds
# ------------------
# A one-split ``GroupTimeSeriesSplit`` keeps the latest 20 % of the queries
# apart; the search runs on the rest. Both take their groups from the
# ``qid`` column and read the time column the model declares below.
from skndcg.model_selection import GroupTimeSeriesSplit

time_col = "window_start"
dev, hold = next(GroupTimeSeriesSplit(1, test_size=0.2, time_col=time_col).split(X))
X_dev, y_dev, X_hold, y_hold = X.iloc[dev], y[dev], X.iloc[hold], y[hold]
cv = GroupTimeSeriesSplit(n_splits=3, time_col=time_col)
print(cv.split_info(X_dev)[["fold", "cutoff", "n_train_groups", "n_test_groups"]])

# %%
# The model
# ---------
# ``QueryRanker`` keeps the query, time and id columns away from LightGBM,
# sorts the rows by query and hands LightGBM the group sizes, whatever rows
# a fold selects.
from lightgbm import LGBMRanker

from skndcg.ranker import QueryRanker

ranker = LGBMRanker(
    n_estimators=50 if quick else 150,
    learning_rate=0.05,
    n_jobs=1,
    random_state=0,
    verbose=-1,
)
model = QueryRanker(ranker, time_col=time_col, drop_cols=["user_id", "item_id"])

# %%
# The search
# ----------
# One multi-metric scorer predicts once per fold; ``refit="ndcg@10"``
# picks the parameters on NDCG@10 and refits on all development queries.
from sklearn.model_selection import GridSearchCV

from skndcg.metrics import make_ranking_scorer

grid = {"estimator__num_leaves": [7, 31]}
search = GridSearchCV(
    model,
    grid,
    scoring=make_ranking_scorer(["ndcg@5", "ndcg@10", "map@10"]),
    refit="ndcg@10",
    cv=cv,
    error_score="raise",
)
search.fit(X_dev, y_dev)
print("best:", search.best_params_, f"CV NDCG@10 = {search.best_score_:.3f}")
results = search.cv_results_
for name in ("ndcg@5", "ndcg@10", "map@10"):
    print(name, np.round(results[f"mean_test_{name}"], 3))

# %%
# The hold-out, against a baseline
# --------------------------------
# The baseline ranks by how often an item was rated before the month. Both
# are scored per query; the paired bootstrap gives the gain's interval.
from skndcg.evaluation import bootstrap_ci, paired_bootstrap
from skndcg.metrics import ranking_report

qid_hold = X_hold["qid"].to_numpy()
ks = [f"ndcg@{k}" for k in range(1, 21)]
scores = {
    "LGBMRanker": search.predict(X_hold),
    "most popular": X_hold["item_log_ratings"].to_numpy(),
}
reports = {
    n: ranking_report(y_hold, s, qid_hold, metrics=ks) for n, s in scores.items()
}
for name, report in reports.items():
    ci = bootstrap_ci(report["ndcg@10"], random_state=0)
    print(f"{name:13s} NDCG@10 {ci.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]")
gain = paired_bootstrap(
    reports["LGBMRanker"]["ndcg@10"], reports["most popular"]["ndcg@10"], random_state=0
)
print(f"gain {gain.difference:+.3f} [{gain.low:+.3f}, {gain.high:+.3f}]")

# %%
# NDCG@k on the hold-out for k = 1..20:
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 4))
for name, report in reports.items():
    ax.plot(range(1, 21), report[ks].mean(), marker="o", ms=3, label=name)
ax.set_xlabel("k")
ax.set_ylabel("mean NDCG@k")
ax.set_ylim(0, 1)
ax.legend()
fig.tight_layout()
