"""estimate_position_bias: hand cases, a brute-force reference, simulated logs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from position_logs import position_log

from skndcg.evaluation import PositionBias, estimate_position_bias
from skndcg.metrics import grouped_ndcg_score

K = 10
TRUE = 1.0 / np.arange(1, K + 1) ** 0.9


def _simulate(n_lists, seed, n_queries=5000, n_docs=15, noise=1.0):
    """Lists of K documents from noisy rankers, clicked under a position model."""
    return position_log(TRUE, n_lists, seed, n_queries, n_docs, noise)


@pytest.fixture(scope="module")
def million():
    return _simulate(100_000, seed=0)  # 1M impressions


def test_hand_two_positions():
    # Document A: 6 clicks in 10 at position 1, 3 in 10 at position 2.
    pos = [1] * 10 + [2] * 10
    click = [1] * 6 + [0] * 4 + [1] * 3 + [0] * 7
    bias = estimate_position_bias(pos, click, qid=[0] * 20, doc=["A"] * 20)
    assert bias.method == "intervention"
    np.testing.assert_allclose(bias.propensity, [1.0, 0.5])
    np.testing.assert_array_equal(bias.n_impressions, [10, 10])


def test_hand_two_documents_weighted():
    # A: pos1 2/4, pos2 1/4 (weight 2); B: pos1 3/6, pos2 1/3 (weight 2).
    # ratio p2/p1 = (2*1/4 + 2*1/3) / (2*2/4 + 2*3/6) = (7/6) / 2 = 7/12.
    rows = [("A", 1, 4, 2), ("A", 2, 4, 1), ("B", 1, 6, 3), ("B", 2, 3, 1)]
    pos, click, doc = [], [], []
    for d, p, n, c in rows:
        pos += [p] * n
        click += [1] * c + [0] * (n - c)
        doc += [d] * n
    bias = estimate_position_bias(pos, click, qid=np.zeros(len(pos)), doc=doc)
    np.testing.assert_allclose(bias.propensity, [1.0, 7 / 12])


def _brute_force(pos, click, qid, doc, n_pos):
    """Pairwise ratios by loops, then weighted least squares by normal equations."""
    cells = {}
    for p, c, q, d in zip(pos, click, qid, doc, strict=True):
        n, k = cells.get((q, d, p), (0, 0))
        cells[(q, d, p)] = (n + 1, k + int(c))
    rows, rhs, weights = [], [], []
    for i in range(1, n_pos + 1):
        for j in range(i + 1, n_pos + 1):
            num = den = clicks = 0.0
            for q, d in {(q, d) for q, d, _ in cells}:
                if (q, d, i) in cells and (q, d, j) in cells:
                    (ni, ci), (nj, cj) = cells[(q, d, i)], cells[(q, d, j)]
                    w = ni * nj / (ni + nj)
                    num += w * ci / ni
                    den += w * cj / nj
                    clicks += min(ci, cj)
            if num > 0 and den > 0 and clicks > 0:
                row = np.zeros(n_pos)
                row[i - 1], row[j - 1] = 1.0, -1.0
                rows.append(row[1:])
                rhs.append(np.log(num / den))
                weights.append(clicks)
    A, b, W = np.array(rows), np.array(rhs), np.diag(weights)
    coef = np.linalg.solve(A.T @ W @ A, A.T @ W @ b)
    return np.exp(np.r_[0.0, coef])


@pytest.mark.parametrize("seed", range(3))
def test_intervention_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 3000
    pos = rng.integers(1, 5, n)
    qid = rng.integers(0, 20, n)
    doc = rng.integers(0, 5, n)
    click = rng.random(n) < 0.8 / pos
    bias = estimate_position_bias(pos, click, qid=qid, doc=doc, n_resamples=0)
    want = _brute_force(pos, click, qid, doc, 4)
    np.testing.assert_allclose(bias.propensity, want, rtol=1e-10)


def _relative_se(pos, click, n_pos):
    # Delta method for a ratio of two click counts at positions 1 and k.
    clicks = np.bincount(pos[click] - 1, minlength=n_pos).astype(float)
    return np.sqrt(1.0 / clicks + 1.0 / clicks[0])


@pytest.mark.parametrize("method", ["intervention", "em"])
def test_recovers_propensities_at_one_million_impressions(million, method):
    pos, click, qid, doc = million
    bias = estimate_position_bias(
        pos, click, qid=qid, doc=doc, method=method, n_resamples=0, tol=1e-6
    )
    err = np.abs(bias.propensity / TRUE - 1)
    # The simulation's own noise: 5% is more than 2.5 standard errors (of a ratio
    # of click counts) at every position, so a correct estimator stays within it
    # with a fixed seed, and a biased one (the log2 curve is 10-30% off) cannot.
    se = _relative_se(pos, click, K)
    assert (2.5 * se < 0.05).all(), se
    assert err.max() < 0.05, err
    assert bias.propensity[0] == 1.0


def test_bootstrap_interval_covers_truth():
    pos, click, qid, doc = _simulate(20_000, seed=3)
    bias = estimate_position_bias(
        pos, click, qid=qid, doc=doc, n_resamples=60, random_state=0
    )
    assert (bias.low <= bias.propensity + 1e-12).all()
    assert (bias.propensity <= bias.high + 1e-12).all()
    # 95% intervals: at most two of ten positions may miss the truth by chance.
    miss = (bias.low > TRUE) | (bias.high < TRUE)
    assert miss.sum() <= 2, (bias.low, bias.high)
    assert (bias.high[1:] - bias.low[1:] > 0).all()


def test_regression_em_without_position_variation():
    rng = np.random.default_rng(1)
    n_lists = 20_000
    x = rng.normal(size=(n_lists * K, 2))
    rel = 1 / (1 + np.exp(-(x @ [1.0, -0.5] - 0.5)))
    qid = np.repeat(np.arange(n_lists), K)
    doc = np.tile(np.arange(K), n_lists)
    pos = doc + 1
    click = rng.random(qid.size) < TRUE[pos - 1] * rel
    bias = estimate_position_bias(
        pos, click, qid=qid, doc=doc, features=x, n_resamples=0, tol=1e-5
    )
    assert bias.method == "em"
    se = _relative_se(pos, click, K)
    np.testing.assert_array_less(np.abs(bias.propensity / TRUE - 1), 4 * se + 0.01)


def test_usable_as_discount():
    pos, click, qid, doc = _simulate(2000, seed=4, n_queries=200)
    bias = estimate_position_bias(pos, click, qid=qid, doc=doc, n_resamples=0)
    assert isinstance(bias, PositionBias) and len(bias) == K
    y = [3, 0, 1, 2, 0, 1]
    s = [0.1, 0.9, 0.5, 0.4, 0.3, 0.2]
    q = [0, 0, 0, 1, 1, 1]
    got = grouped_ndcg_score(y, s, q, k=3, discount=bias)
    want = grouped_ndcg_score(y, s, q, k=3, discount=bias.propensity)
    assert got == want
    assert got != grouped_ndcg_score(y, s, q, k=3)


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000))
def test_invariant_to_row_order_and_relabelling(seed):
    rng = np.random.default_rng(seed)
    n = 400
    pos = rng.integers(1, 4, n)
    qid = rng.integers(0, 6, n)
    doc = rng.integers(0, 4, n)
    click = rng.random(n) < 0.7 / pos
    pos[:3] = [1, 2, 3]  # every position is logged
    qid[:3], doc[:3], click[:3] = 0, 0, True
    perm = rng.permutation(n)
    try:
        want = estimate_position_bias(pos, click, qid=qid, doc=doc, n_resamples=0)
    except ValueError:
        return  # too few shared clicks to place every position
    got = estimate_position_bias(
        pos[perm],
        click[perm],
        qid=(qid * 7 + 100).astype(str)[perm],
        doc=doc[perm],
        n_resamples=0,
    )
    np.testing.assert_allclose(got.propensity, want.propensity, rtol=1e-10)


def test_errors():
    with pytest.raises(ValueError, match=r"position must be >= 1.*got 0"):
        estimate_position_bias([1, 0], [1, 0], qid=[0, 0], doc=[0, 1])
    with pytest.raises(ValueError, match=r"click must be 0/1.*got 2"):
        estimate_position_bias([1, 2], [1, 2], qid=[0, 0], doc=[0, 1])
    with pytest.raises(ValueError, match=r"qid must hold one value per impression"):
        estimate_position_bias([1, 2], [1, 0], qid=[0], doc=[0, 1])
    with pytest.raises(ValueError, match=r"position 2 has no impression"):
        estimate_position_bias([1, 3], [1, 0], qid=[0, 0], doc=[0, 1])
    with pytest.raises(ValueError, match=r"two different positions.*method='em'"):
        estimate_position_bias(
            [1, 2, 1, 2],
            [1, 0, 0, 1],
            qid=[0, 0, 1, 1],
            doc=[0, 1, 0, 1],
            method="intervention",
        )
    with pytest.raises(ValueError, match=r"method"):
        estimate_position_bias([1, 2], [1, 0], qid=[0, 0], doc=[0, 1], method="x")
    with pytest.raises(ValueError, match=r"click holds no click among its 4 imp"):
        # EM returned propensities near 0 for every position but the first.
        estimate_position_bias(
            [1, 2, 1, 2], [0, 0, 0, 0], qid=[0, 0, 0, 0], doc=[0, 1, 1, 0],
            method="em",
        )  # fmt: skip
    with pytest.raises(
        ValueError, match=r"features must be finite, got nan at impression 1, feat"
    ):
        estimate_position_bias(
            [1, 2], [1, 0], qid=[0, 0], doc=[0, 1], method="em",
            features=[[1.0], [np.nan]],
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"features must have shape"):
        estimate_position_bias(
            [1, 2], [1, 0], qid=[0, 0], doc=[0, 1], method="em", features=[[1.0]]
        )


def test_auto_without_variation_uses_em_and_inputs_untouched():
    pos = np.array([1, 2, 1, 2])
    click = np.array([1, 0, 1, 1])
    before = pos.copy()
    features = [[0.0], [1.0], [0.5], [0.2]]
    bias = estimate_position_bias(
        pos,
        click,
        qid=[0, 0, 1, 1],
        doc=[0, 1, 0, 1],
        features=features,
        n_resamples=0,
    )
    assert bias.method == "em"
    np.testing.assert_array_equal(pos, before)


def test_em_not_identified_without_features_or_variation():
    with pytest.raises(ValueError, match=r"one position only and no features"):
        estimate_position_bias(
            [1, 2, 1, 2], [1, 0, 1, 1], qid=[0, 0, 1, 1], doc=[0, 1, 0, 1]
        )
