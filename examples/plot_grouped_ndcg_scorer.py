"""
==================================
Grouped NDCG@k and ranking scorers
==================================

A ranking metric is a mean over *queries*: each query ranks its own
candidates, and NDCG@k asks how close that ranking is to the ideal one.
scikit-learn's :func:`~sklearn.metrics.ndcg_score` wants a dense
``(n_queries, n_candidates)`` matrix; real data come as one row per
(query, candidate) with queries of different sizes, in any order.

This example scores such flat data with
:func:`~skndcg.metrics.grouped_ndcg_score`, checks it against scikit-learn
query by query, looks at the per-query breakdown, and then uses
:func:`~skndcg.metrics.make_ranking_scorer` as ``scoring=`` in
cross-validation, with a bootstrap interval over queries at the end.
"""

# %%
# Flat ranking data
# -----------------
# 300 queries with 5 to 40 candidates each. A hidden relevance drives the
# graded labels (0 to 3); two features carry a noisy view of it. Rows are
# shuffled: queries are not contiguous.
import os

import numpy as np
import pandas as pd

quick = os.environ.get("SKNDCG_EXAMPLE_QUICK") == "1"
rng = np.random.default_rng(0)
n_queries = 60 if quick else 300
sizes = rng.integers(5, 41, n_queries)
qid = np.repeat(np.arange(n_queries), sizes)
hidden = rng.normal(size=qid.size)
X = pd.DataFrame(
    {
        "qid": qid,
        "f1": hidden + rng.normal(0, 1.0, qid.size),
        "f2": hidden + rng.normal(0, 2.0, qid.size),
    }
)
y = np.digitize(hidden + rng.normal(0, 0.5, qid.size), [0.5, 1.2, 1.8])
order = rng.permutation(len(X))
X, y = X.iloc[order].reset_index(drop=True), y[order]
print(f"{len(X)} rows, {n_queries} queries, labels {np.bincount(y)}")

# %%
# NDCG@10 over queries
# --------------------
# One call on the flat arrays; the score of a single feature used as the
# ranking score.
from skndcg.metrics import grouped_ndcg_score

score = grouped_ndcg_score(y, X["f1"], X["qid"], k=10)
print(f"NDCG@10 of ranking by f1: {score:.4f}")

# %%
# The same number from scikit-learn, one query at a time (its averaged
# handling of ties is the default here too):
from sklearn.metrics import ndcg_score

per_query = []
for rows in X.groupby("qid").groups.values():
    labels = y[rows]
    if labels.sum() > 0:  # queries with nothing relevant are skipped
        per_query.append(ndcg_score([labels], [X.loc[rows, "f1"]], k=10))
print(f"mean of per-query sklearn ndcg_score: {np.mean(per_query):.4f}")

# %%
# Per-query breakdown
# -------------------
# :func:`~skndcg.metrics.ranking_report` gives one row per query: sizes,
# DCG and ideal DCG, the metrics, and why a query was skipped.
from skndcg.metrics import ranking_report

report = ranking_report(y, X["f1"], X["qid"], metrics=["ndcg@10", "mrr"])
print(report.head())
print(f"skipped queries: {(report['skipped'] != '').sum()}")

# %%
# A scorer for model selection
# ----------------------------
# ``make_ranking_scorer`` reads the query ids from the ``qid`` column and
# drops it before the model predicts. The model here is a plain regressor
# scoring candidates one by one; ``GroupKFold`` keeps queries whole.
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, cross_val_score, cross_validate

from skndcg.metrics import make_ranking_scorer
from skndcg.ranker import QueryRanker

model = QueryRanker(Ridge())
cv = GroupKFold(n_splits=3)
ndcg10 = make_ranking_scorer("ndcg@10")
scores = cross_val_score(model, X, y, groups=X["qid"], cv=cv, scoring=ndcg10)
print("NDCG@10 per fold:", np.round(scores, 4))

# %%
# Several metrics at once: a list of names gives one scorer that predicts
# once per fold and returns a dict, which ``cross_validate`` (or
# ``GridSearchCV`` with ``refit="ndcg@10"``) accepts.
multi = make_ranking_scorer(["ndcg@5", "ndcg@10", "map@10"])
res = cross_validate(model, X, y, groups=X["qid"], cv=cv, scoring=multi)
print({k: np.round(v, 4) for k, v in res.items() if k.startswith("test_")})

# %%
# How sure are we?
# ----------------
# A difference of a hundredth of NDCG may be noise. A bootstrap over queries
# gives an interval for a model's mean, and a paired bootstrap for the
# difference between two rankings of the same queries.
from skndcg.evaluation import bootstrap_ci, paired_bootstrap

by_f1 = ranking_report(y, X["f1"], X["qid"])["ndcg@10"]
by_f2 = ranking_report(y, X["f2"], X["qid"])["ndcg@10"]
for name, values in (("f1", by_f1), ("f2", by_f2)):
    ci = bootstrap_ci(values, random_state=0)
    print(f"rank by {name}: NDCG@10 {ci.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]")
diff = paired_bootstrap(by_f1, by_f2, random_state=0)
print(
    f"f1 - f2: {diff.difference:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}], "
    f"p = {diff.p_value:.3f}"
)

# %%
# NDCG@k against k
# ----------------
# Small cut-offs judge the top of the list only.
import matplotlib.pyplot as plt

ks = range(1, 21)
fig, ax = plt.subplots(figsize=(6, 4))
for feature in ("f1", "f2"):
    values = [grouped_ndcg_score(y, X[feature], X["qid"], k=k) for k in ks]
    ax.plot(ks, values, marker="o", ms=3, label=f"rank by {feature}")
ax.set_xlabel("k")
ax.set_ylabel("NDCG@k")
ax.legend()
fig.tight_layout()
