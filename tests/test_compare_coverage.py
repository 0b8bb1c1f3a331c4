"""Coverage of compare()'s intervals on synthetic experiments (slow).

Each experiment draws two models' per-query values whose true mean
difference is known, and checks whether the 95% interval of the difference
covers it; over 1,000 experiments about 95% should. Run it alone with
``python tests/test_compare_coverage.py`` to print the table quoted in the
documentation.
"""

import numpy as np
import pandas as pd
import pytest

from skndcg.evaluation import compare

DELTA = 0.02  # true mean difference
N_QUERIES = 200
N_CLUSTERS = 50  # of 4 queries each


def _experiment(rng, clustered):
    """Per-query values of a baseline and a model; cluster ids or None."""
    base = rng.beta(2, 3, N_QUERIES)
    # Skewed per-query noise with mean zero.
    noise = rng.exponential(0.08, N_QUERIES) - 0.08
    cluster = None
    if clustered:
        cluster = np.repeat(np.arange(N_CLUSTERS), N_QUERIES // N_CLUSTERS)
        noise = 0.5 * noise + rng.normal(0, 0.06, N_CLUSTERS)[cluster]
    model = base + DELTA + noise
    frame = pd.DataFrame(
        {
            "model": np.repeat(["base", "model"], N_QUERIES),
            "qid": np.tile(np.arange(N_QUERIES), 2),
            "m": np.r_[base, model],
        }
    )
    return frame, cluster


def coverage(clustered, n_experiments=1000, *, interval="percentile", seed=0):
    """Share of experiments whose 95% interval of the difference covers DELTA."""
    rng = np.random.default_rng(seed)
    hits = 0
    for i in range(n_experiments):
        frame, cluster = _experiment(rng, clustered)
        row = (
            compare(
                frame,
                baseline="base",
                cluster=cluster,
                interval=interval,
                n_resamples=1000,
                correction=None,
                random_state=i,
            )
            .to_frame(pairs=True)
            .iloc[0]
        )
        hits += row["diff_low"] <= DELTA <= row["diff_high"]
    return hits / n_experiments


@pytest.mark.slow
@pytest.mark.parametrize("clustered", [False, True], ids=["queries", "clusters"])
def test_intervals_cover_the_true_difference(clustered):
    assert 0.93 <= coverage(clustered) <= 0.97


def test_ignoring_clusters_undercovers():
    """Resampling queries when clusters are correlated gives too narrow intervals."""
    rng = np.random.default_rng(1)
    narrow = hits = 0
    for i in range(60):
        frame, cluster = _experiment(rng, True)
        kw = dict(baseline="base", n_resamples=300, correction=None, random_state=i)
        plain = compare(frame, **kw).to_frame(pairs=True).iloc[0]
        clus = compare(frame, cluster=cluster, **kw).to_frame(pairs=True).iloc[0]
        narrow += (plain.diff_high - plain.diff_low) < (clus.diff_high - clus.diff_low)
        hits += plain.diff_low <= DELTA <= plain.diff_high
    assert narrow >= 55
    assert hits / 60 < 0.9


if __name__ == "__main__":
    for clustered in (False, True):
        for interval in ("percentile", "bca"):
            unit = "clusters" if clustered else "queries"
            share = coverage(clustered, interval=interval)
            print(f"{unit:9s} {interval:10s} coverage {100 * share:.1f}%")
