"""The sampled modes' hold-out against the whole catalogue, for every model.

A query ranks every item rated by anyone before its month and not by its
user before it (:func:`skndcg.evaluation.full_catalogue_report`); its
positives are those of the sampled task, and every model reads the task's
own features (:class:`skndcg.datasets.CandidateFeatures`).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ..datasets import CandidateFeatures
from ..evaluation import full_catalogue_report
from ._data import months
from ._estimates import ITEM_METRICS
from ._models import BASELINES, RANKER, baseline_score

#: Pairs scored at once (users x items): bounds the feature rows in memory.
BLOCK_PAIRS = 200_000
#: Beyond this many (query, item) pairs the sampled modes skip the full numbers.
AFFORDABLE_PAIRS = 5_000_000
_TOP_N = 100


def n_pairs(ratings, X_hold):
    """(query, eligible item) pairs the full catalogue scores, per model."""
    first = months(ratings["timestamp"]).dt.start_time.groupby(ratings["item_id"]).min()
    first = np.sort(first.to_numpy())
    starts = X_hold.groupby("qid")["window_start"].first().to_numpy()
    return int(np.searchsorted(first, starts.astype(first.dtype), side="left").sum())


class _LastBlock:
    """``features`` remembering its last block: every model scores the same rows."""

    def __init__(self, features):
        self.features, self.key, self.frame = features, None, None

    def __call__(self, users, items):
        key = (np.asarray(users).tobytes(), np.asarray(items).tobytes())
        if key != self.key:
            self.key, self.frame = key, self.features(users, items)
        return self.frame


def _baseline(name, features, rng, users, items):
    values = baseline_score(name, features(users, items), rng)
    return values.reshape(len(users), len(items))


def _scorers(estimator, features, rng):
    """name -> what full_catalogue_report ranks with (and its features)."""
    out = {name: (partial(_baseline, name, features, rng), None) for name in BASELINES}
    out[RANKER] = (estimator, features)
    return out


def full_holdout(ratings, X_hold, y_hold, estimator, random_state, cache=None):
    """Full-catalogue candidates of every model (long frames with ``qid``).

    Returns a dict model name -> DataFrame (``qid``, ``user_id``, ``item_id``,
    ``score``, ``label``; NaN score for a positive outside the top). The
    baselines' rows depend on the queries only: with a dict ``cache`` they
    are computed once for all runs on the same hold-out.
    """
    rng = np.random.default_rng(random_state + 2000)
    ts = pd.to_datetime(ratings["timestamp"], unit="s")
    queries = X_hold.groupby("qid")[["user_id", "window_start"]].first()
    positives = X_hold.loc[y_hold > 0, ["qid", "user_id", "item_id"]]
    positives = positives.assign(rating=y_hold[y_hold > 0])
    top_n = max(_TOP_N, 10 + int(positives.groupby("qid").size().max()))
    parts = {}
    builder = CandidateFeatures(ratings)
    for month, q in queries.groupby("window_start", sort=True):
        before = ratings.loc[(ts < month).to_numpy(), ["user_id", "item_id"]]
        catalogue = np.unique(before["item_id"].to_numpy())
        features = _LastBlock(builder.at(month))
        step = max(1, BLOCK_PAIRS // max(catalogue.size, 1))
        for lo in range(0, len(q), step):
            chunk = q.iloc[lo : lo + step]
            qid_of = pd.Series(chunk.index.to_numpy(), index=chunk["user_id"])
            test = positives[positives["qid"].isin(chunk.index)]
            for name, (scores, feats) in _scorers(estimator, features, rng).items():
                key = (name, month, chunk.index.to_numpy().tobytes())
                if cache is not None and key in cache:
                    parts.setdefault(name, []).append(cache[key])
                    continue
                _, cand = full_catalogue_report(
                    scores,
                    before,  # only the chunk's users count: catalogue is given
                    test[["user_id", "item_id", "rating"]],
                    metrics=["ndcg@10"],
                    top_n=min(top_n, catalogue.size),
                    items=catalogue,
                    features=feats,
                    block_size=len(chunk),
                    return_candidates=True,
                )
                cand.insert(0, "qid", qid_of.reindex(cand["user_id"]).to_numpy())
                if cache is not None and name != RANKER:
                    cache[key] = cand
                parts.setdefault(name, []).append(cand)
    return {name: pd.concat(p, ignore_index=True) for name, p in parts.items()}


def _item_ranks(c):
    """Per positive row of ``c``: its query, the negatives above it and tied."""
    score = c["score"].to_numpy(np.float64)
    pos = c["label"].to_numpy(np.float64) > 0
    qid = pd.factorize(c["qid"])[0]
    # A positive outside the top is below every kept row: at least
    # top_n - (positives - 1) >= 10 negatives rank above it.
    values, code = np.unique(
        np.where(np.isnan(score), -np.inf, score), return_inverse=True
    )
    # Sorted (query, score) keys of the negatives: those above / tied per positive.
    key = qid * values.size + code
    neg = np.sort(key[~pos])
    below = np.searchsorted(neg, key[pos], side="left")
    upto = np.searchsorted(neg, key[pos], side="right")
    end = np.searchsorted(neg, (qid[pos] + 1) * values.size, side="left")
    return c["qid"].to_numpy()[pos], end - upto, upto - below


def per_item_full(cands):
    """Long rows (model, metric, estimate="full", value): each rated item
    ranked among its query's whole pool alone, the number the sampled
    per-item estimates estimate.

    Ties with negatives count as in the sampled estimates: the mean over the
    positions a random order of the ties gives. A query's value is the mean
    over its rated items, the estimate the mean over queries.
    """
    rows = []
    for name, c in cands.items():
        qid, above, tied = _item_ranks(c)
        for metric in ITEM_METRICS:
            kind, k = metric.split("@")
            k = int(k)
            depth = np.arange(1, k + 2, dtype=np.float64)  # ranks 1..k+1
            gain = np.where(depth <= k, 1.0, 0.0)
            if kind == "ndcg":
                gain = gain / np.log2(depth + 1.0)
            cum = np.r_[0.0, np.cumsum(gain)]  # cum[r] = sum of M(1..r)
            first = np.minimum(above, k)  # ranks above + 1 .. above + tied + 1
            last = np.minimum(above + tied + 1, k)
            value = (cum[last] - cum[first]) / (tied + 1)
            per_query = pd.Series(value).groupby(qid).mean()
            rows.append((name, metric, "full", float(per_query.mean())))
    return pd.DataFrame(rows, columns=["model", "metric", "estimate", "value"])
