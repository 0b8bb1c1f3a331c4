"""
=================================================
An LLM judge and a few human labels: honest NDCG
=================================================

A model (say an LLM) labels every (query, document) pair; humans label the
documents of a random tenth of the queries. Scoring with the model's labels
alone is precise but biased by the model's errors; scoring with the human
labels alone is unbiased but rests on few queries.
:func:`~skndcg.evaluation.prediction_powered_report` combines the two: the
estimate stays unbiased, and the interval is narrower than the human-only one
when the model's labels track the humans'.

The data are simulated, so the value every human label would give is known
and drawn as a dashed line.
"""

# %%
# A simulated judge, biased and noisy by grade
# --------------------------------------------
# Human grades 0-3 are the truth. The judge over-grades non-relevant
# documents, under-grades the best ones, and adds noise.
import os

import matplotlib.pyplot as plt
import numpy as np

from skndcg.evaluation import (
    judge_agreement,
    prediction_powered_queries,
    prediction_powered_report,
)
from skndcg.metrics import ranking_report

quick = os.environ.get("SKNDCG_EXAMPLE_QUICK") == "1"
rng = np.random.default_rng(0)
n_queries, n_docs = (600 if quick else 2000), 20
qid = np.repeat(np.arange(n_queries), n_docs)
share = rng.beta(1.2, 3.0, n_queries)[qid]
grade = rng.choice([1, 2, 3], p=[0.5, 0.3, 0.2], size=qid.size)
y = np.where(rng.random(qid.size) < share, grade, 0).astype(float)
bias = np.array([0.35, 0.3, -0.2, -0.6])
y_llm = np.clip(np.round(y + bias[y.astype(int)] + rng.normal(0, 0.3, y.size)), 0, 3)
score = y + rng.gamma(2.0, 0.6, n_queries)[qid] * rng.normal(0, 1.6, qid.size)

judged = np.isin(qid, rng.choice(n_queries, n_queries // 10, replace=False))
y_human = np.where(judged, y, np.nan)  # humans judged a random 10% of queries

# %%
# How far can the judge be trusted?
# ---------------------------------
# Agreement on the rows both labelled: weighted kappa, the bias at each human
# grade, and the correlation of per-query NDCG@10 under the two sources.
agreement = judge_agreement(y_human, y_llm, qid, y_score=score)
print(f"quadratic kappa {agreement.kappa:.2f}")
print(agreement.bias.round(2))
print("per-query NDCG@10 correlation", round(agreement.correlation["ndcg@10"], 2))

# %%
# Three estimates of each metric
# ------------------------------
metrics = ["ndcg@10", "map", "p@10"]
report = prediction_powered_report(y_human, y_llm, score, qid, metrics=metrics)
print(report[["metric", "estimate", "low", "high", "variance_removed"]].round(3))
truth = ranking_report(y, score, qid, metrics=metrics)[metrics].mean()

fig, ax = plt.subplots(figsize=(7, 3.6))
sources = [
    ("model only", "model_only", "model_only_", "tab:red"),
    ("human only", "human_only", "human_only_", "tab:blue"),
    ("PPI++", "estimate", "", "tab:green"),
]
for i, row in report.iterrows():
    for j, (label, est, pre, color) in enumerate(sources):
        at = i + (j - 1) * 0.22
        ax.errorbar(
            row[est],
            at,
            xerr=[[row[est] - row[f"{pre}low"]], [row[f"{pre}high"] - row[est]]],
            fmt="o",
            color=color,
            capsize=4,
            label=label if i == 0 else None,
        )
    ax.plot([truth[row["metric"]]] * 2, [i - 0.4, i + 0.4], "k--", lw=1)
ax.set_yticks(range(len(metrics)), metrics)
ax.invert_yaxis()
ax.set_xlabel("mean over queries (95% interval); dashed: every label human")
ax.legend(loc="lower right", fontsize=8)
ax.set_title(f"{judged.sum() // n_docs} human-judged queries of {n_queries}")
fig.tight_layout()

# %%
# The model-only intervals are narrow but sit where the judge's bias puts
# them, far from the truth for P@10. The human-only intervals are centred
# right but wide. The prediction-powered ones are centred right and narrower
# than the human-only ones.
#
# How many queries should humans judge?
# -------------------------------------
# With this pilot, the human-judged queries needed for an interval of width
# 0.05, prediction-powered and human-only (``inf``: not even by judging them all):
print(prediction_powered_queries(report, 0.05))
