"""Sampled hold-out numbers read three ways: raw, adjusted and BV.

Each hold-out query ranks its user's rated items among ``N`` sampled
negatives drawn from a larger pool. Read one held-out item at a time, its
sampled rank gives the raw metric and the two corrections of Krichene and
Rendle (2020), which estimate the metric the item would get against the
whole pool (:func:`skndcg.evaluation.sampled_metric_estimates`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..evaluation import sampled_metric_estimates
from ._data import months
from ._report import render

ITEM_METRICS = ("ndcg@10", "recall@10")
SPLIT = "hold-out per item"
BV_LAMBDA = 0.1


def pools(ratings, X):
    """Per query of ``X``: the pool size and its total popularity weight.

    The pool of a query (user ``u``, month ``w``) is what its negatives were
    drawn from (:func:`~skndcg.datasets.make_ranking_task`): the items rated
    by anyone before ``w`` that ``u`` had not rated by the end of ``w``; an
    item's popularity weight is its number of ratings before ``w``.
    """
    month = months(ratings["timestamp"]).astype("int64").to_numpy()
    item = ratings["item_id"].to_numpy()
    user = ratings["user_id"].to_numpy()
    first = pd.Series(month).groupby(item).transform("min").to_numpy()
    q = X.groupby("qid")[["user_id", "window_start"]].first()
    q_month = q["window_start"].dt.to_period("M").astype("int64").to_numpy()
    sorted_first = np.sort(first[np.unique(item, return_index=True)[1]])
    sorted_month = np.sort(month)
    n_pool = np.searchsorted(sorted_first, q_month, side="left")
    weight = np.searchsorted(sorted_month, q_month, side="left").astype(np.float64)
    first_month = pd.Series(first, index=item).groupby(level=0).min()
    by_user = pd.DataFrame({"user": user, "item": item, "month": month})
    by_user = by_user.groupby("user")
    for i, (u, w) in enumerate(zip(q["user_id"], q_month, strict=True)):
        mine = by_user.get_group(u)
        rated = np.unique(mine["item"].to_numpy()[mine["month"].to_numpy() <= w])
        in_pool = rated[first_month.reindex(rated).to_numpy() < w]
        n_pool[i] -= in_pool.size
        weight[i] -= ((month < w) & np.isin(item, in_pool)).sum()
    return pd.DataFrame({"n": n_pool, "weight": weight}, index=q.index)


def estimates(scores, X, y, pool, mode):
    """Long rows (model, metric, estimate, value) for every model's scores."""
    qid = X["qid"].to_numpy()
    n_neg = pool["n"]
    prob = None
    if mode == "popularity":
        m = X.assign(neg=y == 0).groupby("qid")["neg"].sum()
        w = np.expm1(X["item_log_ratings"].to_numpy())
        prob = np.minimum(w * (m / pool["weight"]).reindex(qid).to_numpy(), 1.0)
        prob[y > 0] = 1.0
    rows = []
    for name, s in scores.items():
        report = sampled_metric_estimates(
            y,
            s,
            qid,
            n_neg,
            metrics=list(ITEM_METRICS),
            bv_lambda=BV_LAMBDA,
            inclusion_probability=prob,
        )
        means = report.groupby("estimate", sort=False)[list(ITEM_METRICS)].mean()
        for est, values in means.iterrows():
            rows += [
                (name, metric, est, float(values[metric])) for metric in values.index
            ]
    return pd.DataFrame(rows, columns=["model", "metric", "estimate", "value"])


def orders(table, metric="ndcg@10"):
    """One line per estimate: the order of the models it implies."""
    lines = []
    part = table[table["metric"] == metric]
    for est, rows in part.groupby("estimate", sort=False):
        ranked = rows.sort_values("value", ascending=False)
        order = " > ".join(f"{r.model} ({r.value:.3f})" for r in ranked.itertuples())
        lines.append(f"{metric} {est}: {order}")
    return lines


def text_table(table, models):
    """Models as rows, (metric, estimate) as columns."""
    wide = table.pivot_table(
        index="model", columns=["metric", "estimate"], values="value", sort=False
    )
    wide = wide.reindex(models)
    header = ["model", *(f"{m} {e}" for m, e in wide.columns)]
    body = [[name, *(f"{v:.3f}" for v in row)] for name, row in wide.iterrows()]
    return render(header, body)
