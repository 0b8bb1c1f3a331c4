"""Long queries with few rows that count (a gain or a relevant label: at most one
in 16 and 64 in all) are ranked by counting instead of a sort: every value equals
the brute-force reference, for every cut-off, gain, tie rule, relevance threshold
and signed zero."""

import numpy as np
import pytest
from reference import query_metric

from skndcg.metrics import ranking_report

METRICS = [("ndcg", None), ("dcg", None), ("map", None), ("mrr", None),
           ("ndcg", 40), ("p", 30), ("r", 30), ("hit", 40), ("map", 35)]  # fmt: skip


def _name(metric, k):
    return metric if k is None else f"{metric}@{k}"


@pytest.mark.parametrize("ties", ["stable", "reverse"])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("seed", range(8))
def test_counting_ranks_equal_the_reference(ties, gain, seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(25, 300, size=6)
    y_parts, s_parts, q_parts = [], [], []
    for q, m in enumerate(sizes):
        y = np.zeros(m, dtype=np.int64)
        n_count = int(rng.integers(0, m // 16 + 1))  # few rows with a label
        y[rng.choice(m, n_count, replace=False)] = rng.integers(1, 4, n_count)
        s = rng.integers(0, 12, m).astype(np.float64)  # many ties
        if seed % 2:
            s[rng.random(m) < 0.1] = -0.0
        y_parts.append(y)
        s_parts.append(s)
        q_parts.append(np.full(m, q))
    y, s, qid = map(np.concatenate, (y_parts, s_parts, q_parts))
    names = [_name(m, k) for m, k in METRICS]
    for rel in (None, 2):
        report = ranking_report(
            y, s, qid, metrics=names, ties=ties, gain=gain, rel_threshold=rel,
            empty="zero",
        )  # fmt: skip
        for q in range(len(sizes)):
            rows = qid == q
            for (metric, k), name in zip(METRICS, names, strict=True):
                want, _ = query_metric(
                    list(y[rows]), list(s[rows]), metric, k, gain=gain, ties=ties,
                    rel=rel,
                )  # fmt: skip
                got = report.loc[report["qid"] == q, name].iloc[0]
                assert got == pytest.approx(want, rel=1e-12, abs=1e-15), (q, name)


@pytest.mark.parametrize("seed", range(6))
def test_ideal_dcg_of_long_queries_with_signed_gains(seed):
    # Float labels with a callable gain (negative gains allowed): the ideal DCG
    # sorts only the gains that are not zero and puts the zeros between the
    # positive and the negative ones.
    rng = np.random.default_rng(seed)
    m = int(rng.integers(30, 200))
    y = np.zeros(m)
    at = rng.choice(m, int(rng.integers(0, m // 3)), replace=False)
    y[at] = rng.choice([-2.0, -0.5, 0.5, 1.0, 3.0], len(at))
    s = rng.integers(0, 9, m).astype(float)
    qid = np.zeros(m)
    for k in (None, m // 2, m - 3):
        name = "ndcg" if k is None else f"ndcg@{k}"
        got = ranking_report(
            y, s, qid, metrics=[name, "dcg"], ties="stable", gain=lambda v: v,
            empty="zero",
        )  # fmt: skip
        want, _ = query_metric(list(y), list(s), "ndcg", k, gain=lambda v: v,
                               ties="stable")  # fmt: skip
        assert got[name].iloc[0] == pytest.approx(want, rel=1e-12, abs=1e-15)
