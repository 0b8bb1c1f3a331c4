"""Simulated click logs under a position-based model with a known propensity curve."""

import numpy as np


def position_log(true, n_lists, seed, n_queries, n_docs, noise=1.0):
    """Lists of ``len(true)`` documents from noisy rankers, clicked at position
    ``p`` with probability ``true[p - 1]`` times the document's relevance.

    Returns ``(position, click, qid, doc)``, one entry per impression.
    """
    k = len(true)
    rng = np.random.default_rng(seed)
    rel = rng.beta(1, 2, (n_queries, n_docs))
    q = rng.integers(0, n_queries, n_lists)
    scores = rel[q] * 3 + rng.normal(0, noise, (n_lists, n_docs))
    order = np.argsort(-scores, axis=1)[:, :k]
    qid = np.repeat(q, k)
    doc = order.ravel()
    pos = np.tile(np.arange(1, k + 1), n_lists)
    click = rng.random(qid.size) < true[pos - 1] * rel[qid, doc]
    return pos, click, qid, doc
