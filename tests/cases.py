"""Seeded random cases for the agreement tests (no hypothesis: peers are slow)."""

from __future__ import annotations

import numpy as np

SCORE_MODES = ("continuous", "ties", "rounded", "float32_ties")


def random_case(seed: int, *, max_groups=6, max_size=10, labels=(0, 5)):
    """(y, s, qid, k): interleaved queries with ties, empty and size-1 queries."""
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, max_groups + 1))
    sizes = rng.integers(1, max_size + 1, n_groups)
    sizes[rng.random(n_groups) < 0.2] = 1
    qid = np.repeat(np.arange(n_groups) * 3 + 11, sizes)
    n = qid.size
    y = rng.integers(labels[0], labels[1], n)
    # Some queries with nothing relevant.
    for g in np.flatnonzero(rng.random(n_groups) < 0.25):
        y[qid == g * 3 + 11] = 0
    mode = SCORE_MODES[seed % len(SCORE_MODES)]
    if mode == "continuous":
        s = rng.normal(size=n)
    elif mode == "ties":
        s = rng.integers(0, 3, n).astype(float)
    elif mode == "rounded":
        s = np.round(rng.normal(size=n), 1)
    else:
        # Distinct in float64, tied once cast to float32.
        s = 1.0 + rng.integers(0, 3, n) * 1e-9 + rng.integers(0, 2, n)
    perm = rng.permutation(n)
    k = [1, 2, 3, 5, 10, 20, None][seed % 7]
    return y[perm], s[perm], qid[perm], k
