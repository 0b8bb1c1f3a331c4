"""Metrics on sampled candidates, raw and corrected: :func:`sampled_metric_estimates`.

Notation. A held-out item is ranked among ``m`` negatives drawn without
replacement from the ``N`` negatives of its user's catalogue. ``K`` of the
``N`` rank above it in the full ranking (its full rank is ``K + 1``) and ``j``
of the ``m`` sampled ones do (its sampled rank is ``j + 1``). Under uniform
sampling ``j`` given ``K`` is hypergeometric. A metric of one held-out item is
a function ``M`` of its rank; the raw sampled metric reads ``M(j + 1)``, a
corrected one reads ``x[j]`` from a table ``x`` built so that ``x[j]`` says
what ``M`` of the full rank is, on average, when ``j`` is seen.
"""

from __future__ import annotations

import re
from functools import lru_cache
from numbers import Real

import numpy as np
import pandas as pd
from scipy.special import gammaln

from .._compare._inputs import metric_names

ESTIMATES = ("raw", "adjusted", "bv")
_METRIC = re.compile(r"^\s*(ndcg|recall|r|hit|mrr|rr|map|ap)\s*@\s*(\d+)\s*$", re.I)
_KIND = {"r": "recall", "rr": "mrr", "ap": "mrr", "map": "mrr"}


def metric_of_rank(kind, k, rank):
    """``M(rank)`` of one relevant item at 1-based ``rank`` (array)."""
    rank = np.asarray(rank, dtype=np.float64)
    inside = rank <= k
    if kind == "ndcg":
        value = 1.0 / np.log2(rank + 1.0)
    elif kind == "mrr":
        value = 1.0 / rank
    else:  # recall, hit
        value = np.ones_like(rank)
    return np.where(inside, value, 0.0)


@lru_cache(maxsize=8)
def _transition(n_negatives, m):
    """``A[K, j] = P(j sampled above | K above)``, K = 0..N, j = 0..m."""
    N = n_negatives
    K = np.arange(N + 1)[:, None]
    j = np.arange(m + 1)[None, :]
    possible = (j <= K) & (m - j <= N - K)
    log_fact = gammaln(np.arange(1, N + 2, dtype=np.float64))  # log(a!), a = 0..N

    def log_comb(a, b):
        return log_fact[a] - log_fact[b] - log_fact[np.clip(a - b, 0, None)]

    log_p = (
        log_comb(K, j)
        + log_comb(np.clip(N - K, 0, None), np.clip(m - j, 0, None))
        - log_comb(N, m)
    )
    return np.where(possible, np.exp(np.where(possible, log_p, 0.0)), 0.0)


@lru_cache(maxsize=16384)
def correction_table(kind, k, n_negatives, m, estimate, bv_lambda=0.1):
    """Table ``x`` of length ``m + 1``: the ``estimate`` read for each ``j``, as
    :func:`sampled_metric_estimates` defines them. ``"bv"`` solves
    ``((1 - l) A'A + l diag(A'1)) x = A'b`` with ``A`` the hypergeometric
    :func:`_transition`, ``b`` the metric of each full rank and ``l = bv_lambda``:
    ``l = 0`` is the least-bias table, ``l = 1`` the posterior mean of ``M``
    given ``j`` under a uniform prior on ``K``."""
    m_plus = m + 1
    if estimate == "raw":
        return metric_of_rank(kind, k, np.arange(1, m_plus + 1))
    b = metric_of_rank(kind, k, np.arange(1, n_negatives + 2))
    if estimate == "adjusted":
        block = (np.arange(n_negatives + 1) * m_plus) // (n_negatives + 1)
        sums = np.bincount(block, weights=b, minlength=m_plus)
        return sums / np.bincount(block, minlength=m_plus)
    A = _transition(n_negatives, m)
    lam = float(bv_lambda)
    lhs = (1.0 - lam) * (A.T @ A) + lam * np.diag(A.sum(axis=0))
    return np.linalg.lstsq(lhs, A.T @ b, rcond=None)[0]


def sampled_metric_estimates(
    y_true,
    y_score,
    qid,
    n_negatives,
    *,
    metrics=("ndcg@10", "recall@10"),
    estimates=ESTIMATES,
    bv_lambda=0.1,
    rel_threshold=None,
    inclusion_probability=None,
):
    """Raw and corrected metrics from sampled candidates (Krichene & Rendle).

    Each query holds a user's held-out (relevant) items and ``m`` sampled
    negatives. Each relevant item is ranked among the negatives alone (one
    held-out item at a time, the setting of the paper); its sampled rank
    ``j + 1`` gives, per ``estimate``, the raw metric or a corrected one that
    estimates the metric of its rank among all ``n_negatives`` negatives of
    the catalogue. A query's value is the mean over its relevant items.

    Parameters
    ----------
    y_true, y_score, qid : array-like of shape (n_rows,)
        Labels (relevant when ``> 0``, or ``>= rel_threshold``), scores and
        query ids of the sampled candidates.
    n_negatives : int, mapping or pandas.Series
        ``N``: the number of negatives each query's negatives were drawn from
        (its eligible catalogue minus its relevant items); one number, or one
        per query id.
    metrics : str or sequence of str, default=("ndcg@10", "recall@10")
        ``"ndcg@k"``, ``"recall@k"``, ``"hit@k"``, ``"mrr@k"``, ``"map@k"``.
    estimates : sequence of {"raw", "adjusted", "bv"}, default=all three
        Which estimates to compute (see the Notes).
    bv_lambda : float in [0, 1], default=0.1
        Weight of the variance against the squared bias in the BV estimator.
    rel_threshold : float or None, default=None
        Relevance threshold of the labels.
    inclusion_probability : array-like of shape (n_rows,) or None, default=None
        For negatives drawn in proportion to a weight (popularity): each
        negative row's probability of being drawn, about ``m w / W`` for an
        item of weight ``w`` in a pool of total weight ``W`` (the value of
        relevant rows is not read). A relevant item's number ``K`` of
        negatives above is then estimated by the Horvitz-Thompson sum of
        ``1 / probability`` over the sampled negatives above it, which the
        corrections read as the sampled position ``round(K m / N)``; the raw
        estimate stays the plain sampled metric. None means uniform draws,
        where this mapping is the identity.

    Returns
    -------
    report : pandas.DataFrame
        One row per (query, estimate) with a relevant item: columns ``qid``,
        ``estimate`` and one per metric.

    Notes
    -----
    ``"raw"`` is the metric on the sampled list. ``"adjusted"`` maps each
    sampled rank to the block of full ranks it stands for (the ``N + 1``
    positions cut into ``m + 1`` equal blocks) and averages the metric over
    it. ``"bv"`` is the table ``x`` that minimises, over full ranks taken as
    equally likely, ``bias^2 + bv_lambda * variance`` of ``x[j]`` (Krichene and
    Rendle, section 5); the draws are modelled as uniform without replacement
    (hypergeometric). Negatives tied with a relevant item are taken in random
    order: its value is the mean over the positions the ties allow.

    References
    ----------
    .. [1] W. Krichene and S. Rendle, "On Sampled Metrics for Item
       Recommendation", KDD 2020.

    Examples
    --------
    One user, one held-out item ranked second among three sampled negatives
    out of 300: the raw recall@10 is 1, but a sampled rank of 2 stands for
    full ranks near 100. A single query's corrected value can fall outside
    [0, 1]; the mean over many users is the estimate.

    >>> from skndcg.evaluation import sampled_metric_estimates
    >>> report = sampled_metric_estimates(
    ...     [1, 0, 0, 0], [0.5, 0.9, 0.1, 0.2], [7, 7, 7, 7], n_negatives=300,
    ...     metrics="recall@10")
    >>> report.round(3)
       qid  estimate  recall@10
    0    7       raw      1.000
    1    7  adjusted      0.000
    2    7        bv     -0.174
    """
    specs = []
    for name in metric_names(metrics):
        match = _METRIC.match(str(name))
        if match is None:
            raise ValueError(
                f"metric {name!r} is not supported for sampled estimates; use "
                "'ndcg@k', 'recall@k', 'hit@k', 'mrr@k' or 'map@k' (one held-out "
                "item at a time, so recall@k = hit@k and map@k = mrr@k)."
            )
        kind = match.group(1).lower()
        specs.append((name, _KIND.get(kind, kind), int(match.group(2))))
    estimates = [estimates] if isinstance(estimates, str) else list(estimates)
    bad = [e for e in estimates if e not in ESTIMATES]
    if bad or not estimates:
        raise ValueError(f"estimates must be among {list(ESTIMATES)}, got {bad}.")
    if isinstance(bv_lambda, bool) or not isinstance(bv_lambda, Real):
        raise ValueError(f"bv_lambda must be a number in [0, 1], got {bv_lambda!r}.")
    if not 0 <= bv_lambda <= 1:
        raise ValueError(f"bv_lambda must be in [0, 1], got {bv_lambda!r}.")
    y_true = np.asarray(y_true, dtype=np.float64)
    y_score = np.asarray(y_score, dtype=np.float64)
    qid = np.asarray(qid)
    if not (y_true.shape == y_score.shape == qid.shape) or y_true.ndim != 1:
        raise ValueError(
            "y_true, y_score and qid must be 1-D of one length, got shapes "
            f"{y_true.shape}, {y_score.shape}, {qid.shape}."
        )
    if not np.all(np.isfinite(y_score)):
        raise ValueError("y_score must be finite.")
    # Per relevant row: query, ``j`` above, ties, ``m`` and the estimated ``K``.
    frame = pd.DataFrame({"q": qid, "y": y_true, "s": y_score})
    frame["rel"] = y_true >= rel_threshold if rel_threshold is not None else y_true > 0
    frame["w"] = (
        1.0
        if inclusion_probability is None
        else np.asarray(inclusion_probability, dtype=np.float64)
    )
    rows = []
    for q, g in frame.groupby("q", sort=True):
        neg = g[~g["rel"]]
        pos = g[g["rel"]]
        if pos.empty:
            continue
        m = len(neg)
        if m == 0:
            raise ValueError(f"query {q!r} has no sampled negative to rank against.")
        s_neg, w_neg = neg["s"].to_numpy(), neg["w"].to_numpy()
        for s in pos["s"].to_numpy():
            above, tied = s_neg > s, s_neg == s
            # Sampled negatives above (tied ones half), each standing for
            # 1 / (inclusion probability) catalogue negatives.
            mass = None
            if inclusion_probability is not None:
                mass = float(
                    (1.0 / w_neg[above]).sum() + 0.5 * (1.0 / w_neg[tied]).sum()
                )
            rows.append((q, int(above.sum()), int(tied.sum()), m, mass))
    if not rows:
        raise ValueError("no query has a relevant item: nothing to estimate.")
    n_of = {}
    for q, _, _, m, _ in rows:
        if q not in n_of:
            n_of[q] = _n_for(n_negatives, q)
            if n_of[q] < m:
                raise ValueError(
                    f"query {q!r} has {m} sampled negatives but n_negatives="
                    f"{n_of[q]}: the sample cannot be larger than the pool it was "
                    "drawn from."
                )
    qids = [r[0] for r in rows]
    j, ties, m = (np.array([r[i] for r in rows], dtype=np.int64) for i in (1, 2, 3))
    n = np.array([n_of[q] for q in qids], dtype=np.int64)
    j_est, ties_est = j, ties
    if inclusion_probability is not None:
        mass = np.array([r[4] for r in rows], dtype=np.float64)
        j_est = np.minimum(m, np.rint(mass * m / n).astype(np.int64))
        ties_est = np.zeros_like(ties)
    out = {name: {e: np.empty(j.size) for e in estimates} for name, _, _ in specs}
    # One hypergeometric table per distinct (N, m), every correction from it.
    pairs, where = np.unique(np.column_stack([n, m]), axis=0, return_inverse=True)
    for p, (n_p, m_p) in enumerate(pairs.tolist()):
        idx = np.flatnonzero(where.ravel() == p)
        for name, kind, k in specs:
            for e in estimates:
                jj, tt = (j, ties) if e == "raw" else (j_est, ties_est)
                jj, tt = jj[idx], tt[idx]
                table = correction_table(kind, k, n_p, m_p, e, float(bv_lambda))
                # Tied negatives: the mean over the positions a random order
                # of the ties gives (j + 0, ..., j + ties).
                cum = np.r_[0.0, np.cumsum(table)]
                out[name][e][idx] = (cum[jj + tt + 1] - cum[jj]) / (tt + 1)
    per_item = pd.DataFrame({"qid": qids})
    frames = []
    for e in estimates:
        f = per_item.assign(**{name: out[name][e] for name, _, _ in specs})
        f = f.groupby("qid", sort=True).mean().reset_index()
        frames.append(f.assign(estimate=e, _order=estimates.index(e)))
    result = pd.concat(frames, ignore_index=True)
    result = result.sort_values(["qid", "_order"], kind="stable", ignore_index=True)
    return result[["qid", "estimate"] + [name for name, _, _ in specs]]


def _n_for(n_negatives, q):
    if isinstance(n_negatives, pd.Series | dict):
        try:
            value = n_negatives[q]
        except KeyError:
            raise ValueError(f"n_negatives has no entry for query {q!r}.") from None
    else:
        value = n_negatives
    if isinstance(value, bool) or not float(value).is_integer() or value < 1:
        raise ValueError(
            f"n_negatives must be a whole number >= 1, got {value!r} for query {q!r}."
        )
    return int(value)
