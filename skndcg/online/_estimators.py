"""Per-query terms of the off-policy estimators under the position-based model.

Notation, per row ``i`` of a logged query: ``t_i`` the target's weight of the
row's rank in the new ranking (its examination for expected clicks, 0 beyond
``k``), ``s_i`` whether it was shown, ``e_i`` the examination of its logged
position, ``p_i`` the chance the logger showed it, ``c_i`` its click and
``m_i = min(1 / (e_i p_i), clip)`` its inverse propensity. Under the
position-based model ``E[s_i c_i / (e_i p_i)] = r_i``, the row's relevance, so

- IPS, per query: ``sum_i t_i s_i c_i m_i``;
- SNIPS divides the total by the sum over queries of ``G_q``, the mean of
  ``s_i / p_i`` weighted by ``t_i`` over the rows the logger could show
  (expectation 1);
- DR, per query: ``sum_i t_i rhat_i + sum_i t_i s_i m_i (c_i - e_i rhat_i)``.
"""

from __future__ import annotations

import numpy as np


def default_relevance(log, items, exam_at):
    """Cross-fitted relevance per row: each half of the queries (by code parity)
    gets the item's ``(clicks + rbar) / (examination + 1)`` fitted on the other
    half, ``rbar`` that half's overall rate."""
    n_items = int(items.max()) + 1
    fold = log.codes & 1
    out = np.empty(log.codes.size)
    for f in (0, 1):
        train = log.shown & (fold != f)
        c = np.bincount(items[train], weights=log.click[train], minlength=n_items)
        e = np.bincount(items[train], weights=exam_at[train], minlength=n_items)
        rbar = c.sum() / e.sum() if e.sum() > 0 else 0.0
        rate = (c + rbar) / (e + 1.0)
        rows = fold == f
        out[rows] = rate[items[rows]]
    return out


def pbm_terms(log, exam_at, p, t, clip, relevance):
    """Per-query ``num`` and ``den`` (dicts by estimator), the unclipped
    numerators, the row weights ``t * m`` and the share of clipped weights."""
    n_q, codes, s = log.n_queries, log.codes, log.shown
    inv = np.zeros(codes.size)
    inv[s] = 1.0 / (exam_at[s] * p[s])
    m = inv if clip is None else np.minimum(inv, clip)
    target = t > 0
    clipped = (m < inv) & target
    weight = t * m
    click_w = weight * log.click
    support = np.bincount(codes, weights=np.where(p > 0, t, 0.0), minlength=n_q)
    shown_w = np.zeros(codes.size)
    shown_w[s] = t[s] / p[s]
    g = np.bincount(codes, weights=shown_w, minlength=n_q)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(support > 0, g / support, 1.0)
    num = {"ips": np.bincount(codes, weights=click_w, minlength=n_q)}
    raw = {"ips": np.bincount(codes, weights=t * inv * log.click, minlength=n_q)}
    num["snips"], raw["snips"] = num["ips"], raw["ips"]
    den = {"ips": np.ones(n_q), "snips": g}
    if relevance is not None:
        direct = np.bincount(codes, weights=t * relevance, minlength=n_q)
        resid = log.click - exam_at * relevance
        num["dr"] = direct + np.bincount(codes, weights=weight * resid, minlength=n_q)
        raw["dr"] = direct + np.bincount(codes, weights=t * inv * resid, minlength=n_q)
        den["dr"] = np.ones(n_q)
    share = float(clipped.sum() / target.sum())  # (rank 1 of a query has t > 0)
    return num, den, raw, weight, share
