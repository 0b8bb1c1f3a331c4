"""A simulator of human and model relevance labels with known truth.

Human labels are the truth: grades 0-3, each query with its own share of
relevant items (so metrics vary between queries). The model's labels are
biased and noisy by grade (a "decent" judge: per-query NDCG@10 under the two
label sources correlates at about 0.8), or drawn without looking at the item
(a "useless" judge). Two systems rank every query with noisy scores.
"""

from __future__ import annotations

import numpy as np

from skndcg.metrics import ranking_report

#: Mean shift of the decent judge's label for each human grade.
BIAS = np.array([0.35, 0.3, -0.2, -0.6])


def simulate(n_queries, rng, *, n_docs=20, judge="decent", judged_share=0.1):
    """One collection: ``dict`` of row arrays and the judged mask.

    Keys: ``qid``, ``y`` (every human label), ``y_true`` (human labels on the
    judged queries, NaN elsewhere), ``y_model``, ``score_a``, ``score_b``
    (two systems; ``a`` is better), ``judged`` (per row).
    """
    qid = np.repeat(np.arange(n_queries), n_docs)
    share = rng.beta(1.2, 3.0, n_queries)[qid]
    relevant = rng.random(qid.size) < share
    grade = rng.choice([1, 2, 3], p=[0.5, 0.3, 0.2], size=qid.size)
    y = np.where(relevant, grade, 0).astype(float)
    if judge == "decent":
        noisy = y + BIAS[y.astype(int)] + rng.normal(0, 0.3, qid.size)
        y_model = np.clip(np.round(noisy), 0, 3)
    elif judge == "useless":
        y_model = rng.permutation(y)
    else:
        raise ValueError(judge)
    hard = rng.gamma(2.0, 0.6, n_queries)[qid]
    score_a = y + hard * rng.normal(0, 1.6, qid.size)
    score_b = y + hard * rng.normal(0, 2.0, qid.size)
    n_judged = max(2, round(judged_share * n_queries))
    chosen = rng.choice(n_queries, n_judged, replace=False)
    judged = np.isin(qid, chosen)
    y_true = np.where(judged, y, np.nan)
    return {
        "qid": qid,
        "y": y,
        "y_true": y_true,
        "y_model": y_model,
        "score_a": score_a,
        "score_b": score_b,
        "judged": judged,
    }


def truth(metrics, *, n_queries=20_000, seed=12345, n_docs=20):
    """Population values of each metric under human labels for both systems,
    and of the difference ``a - b``: ``{(metric, "a"|"b"|"a-b"): value}``."""
    sim = simulate(n_queries, np.random.default_rng(seed), n_docs=n_docs)
    out = {}
    reps = {}
    for s in ("a", "b"):
        reps[s] = ranking_report(
            sim["y"], sim[f"score_{s}"], sim["qid"], metrics=metrics
        )
    for m in metrics:
        a, b = reps["a"][m].to_numpy(), reps["b"][m].to_numpy()
        out[m, "a"] = np.nanmean(a)
        out[m, "b"] = np.nanmean(b)
        ok = ~np.isnan(a) & ~np.isnan(b)
        out[m, "a-b"] = np.mean(a[ok] - b[ok])
    return out
