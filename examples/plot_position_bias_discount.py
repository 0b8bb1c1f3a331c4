"""
=====================================================
Which discount makes offline NDCG track online clicks
=====================================================

NDCG's logarithmic discount is a guess at how much attention each position
gets. The position-based model (PBM) measures it instead: a document at
position ``k`` is clicked with probability ``p_k * r``, the propensity that
the user examines position ``k`` times the document's relevance. A common
recipe is to fit ``p_k`` on historical click logs and use that curve as the
discount.

This example replays that claim on simulated data. Users examine positions
more steeply than ``1/log2(k+1)``. We estimate the curve from a click log with
:func:`~skndcg.evaluation.estimate_position_bias`, then score a set of rankers
offline with three discounts (log2, the estimated curve, the true curve) and
ask which offline NDCG@10 follows the rankers' simulated online click-through
rate best, by correlation across rankers.
"""

# %%
# A world with a known position curve
# -----------------------------------
# Queries with 20 candidates and graded relevance (0 to 3); a click at
# position ``k`` happens with probability ``p_k * label / 3``.
import os

import numpy as np

quick = os.environ.get("SKNDCG_EXAMPLE_QUICK") == "1"
rng = np.random.default_rng(0)
K, n_docs = 10, 20
n_queries = 400 if quick else 2000
true_curve = 1.0 / np.arange(1, K + 1) ** 1.4
labels = rng.choice(4, size=(n_queries, n_docs), p=[0.55, 0.25, 0.12, 0.08])
print("true propensities:", np.round(true_curve, 3))

# %%
# Estimate the curve from a click log
# -----------------------------------
# The logging system showed each query many times, ranked by a few noisy
# rankers, so the same document appears at different positions: intervention
# harvesting can compare its click rates there.
n_lists = 40_000 if quick else 200_000
q = rng.integers(0, n_queries, n_lists)
noisy = labels[q] + rng.normal(0, 1.5, (n_lists, n_docs))
shown = np.argsort(-noisy, axis=1)[:, :K]
log_qid = np.repeat(q, K)
log_doc = shown.ravel()
log_pos = np.tile(np.arange(1, K + 1), n_lists)
log_click = rng.random(log_qid.size) < true_curve[log_pos - 1] * (
    labels[log_qid, log_doc] / 3
)

from skndcg.evaluation import estimate_position_bias

bias = estimate_position_bias(
    log_pos, log_click, qid=log_qid, doc=log_doc, n_resamples=30, random_state=0
)
print(f"method: {bias.method}")
print("estimated:          ", np.round(bias.propensity, 3))

# %%
# Rankers and their online click-through rate
# -------------------------------------------
# Rankers differ in *where* they err: some shuffle their top three, others
# only the tail of the list, others add noise everywhere. Their online CTR is
# the expected number of clicks per query on the top 10, under the true curve.
from skndcg.metrics import grouped_ndcg_score

qid = np.repeat(np.arange(n_queries), n_docs)
y = labels.ravel()


def ranker_scores(noise, top_shuffle, tail_shuffle):
    s = labels + rng.normal(0, noise, labels.shape)
    order = np.argsort(-s, axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(n_docs)[None, :], axis=1)
    jitter = np.where(ranks < 3, top_shuffle, np.where(ranks < K, tail_shuffle, 0))
    return (-ranks + rng.normal(0, 1, labels.shape) * jitter).ravel()


rankers = [
    (noise, top, tail)
    for noise in (0.3, 1.0, 2.0)
    for top in (0.0, 3.0)
    for tail in (0.0, 6.0)
]
ctr, ndcg = [], {"log2": [], "estimated PBM": [], "true PBM": []}
discounts = {
    "log2": "log2",
    "estimated PBM": bias,
    "true PBM": true_curve,
}
for params in rankers:
    s = ranker_scores(*params)
    top = np.argsort(-s.reshape(n_queries, n_docs), axis=1)[:, :K]
    gains = np.take_along_axis(labels, top, axis=1) / 3
    ctr.append(float((gains * true_curve).sum(axis=1).mean()))
    for name, disc in discounts.items():
        ndcg[name].append(grouped_ndcg_score(y, s, qid, k=K, discount=disc))

# %%
# Which offline number follows the online one
# -------------------------------------------
from scipy.stats import kendalltau, pearsonr

print(f"{'discount':<15} {'Pearson r':>10} {'Kendall tau':>12}")
corr = {}
for name, values in ndcg.items():
    r = pearsonr(values, ctr)[0]
    tau = kendalltau(values, ctr)[0]
    corr[name] = r
    print(f"{name:<15} {r:>10.3f} {tau:>12.3f}")

# %%
# The estimated curve sits on the true one, and NDCG with either discount
# follows the online click-through rate more closely than NDCG with the log2
# discount, which overweights the lower positions.
import matplotlib.pyplot as plt

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
pos = np.arange(1, K + 1)
ax1.plot(pos, 1 / np.log2(pos + 1), "o-", label="log2 discount")
ax1.plot(pos, true_curve, "k--", label="true PBM")
ax1.errorbar(
    pos,
    bias.propensity,
    yerr=[bias.propensity - bias.low, bias.high - bias.propensity],
    fmt="s",
    capsize=3,
    label="estimated (95% interval)",
)
ax1.set(xlabel="position", ylabel="weight", title="Discount curves")
ax1.legend()
for name, values in ndcg.items():
    ax2.scatter(ctr, values, label=f"{name} (r={corr[name]:.2f})")
ax2.set(xlabel="simulated online CTR", ylabel="offline NDCG@10", title="Rankers")
ax2.legend()
fig.tight_layout()
