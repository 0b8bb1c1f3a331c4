"""Intervals of estimate_position_bias: hold the estimate, cover the truth.

Each simulated log is clicked under a position-based model with a known
propensity curve. Every method's pointwise intervals must hold its estimate
and cover the true propensity at their nominal rate, and its simultaneous band
must hold the whole true curve; EM on a sparse log (few impressions per pair and
position), where it is biased, must say so.
"""

import warnings

import numpy as np
import pytest
from position_logs import position_log

from skndcg.evaluation import estimate_position_bias

K = 6
TRUE = 1.0 / np.arange(1, K + 1) ** 0.9


def _simulate(n_lists, seed, n_queries, n_docs=9, noise=1.0):
    """Lists of K documents from noisy rankers, clicked under a position model."""
    return position_log(TRUE, n_lists, seed, n_queries, n_docs, noise)


# Dense enough for EM (about 10 impressions per pair and position) and for
# intervention harvesting.
SETTINGS = {
    "intervention": dict(n_lists=1500, n_queries=300),
    "em": dict(n_lists=3000, n_queries=40),
}


def _fit(method, seed, n_resamples, **kw):
    pos, click, qid, doc = _simulate(seed=seed, **SETTINGS[method], **kw)
    return estimate_position_bias(
        pos,
        click,
        qid=qid,
        doc=doc,
        method=method,
        n_resamples=n_resamples,
        tol=1e-6,
        random_state=seed,
    )


def _coverage(method, n_logs, n_resamples):
    pointwise, band = [], []
    for seed in range(n_logs):
        b = _fit(method, seed, n_resamples)
        assert b.method == method
        for low, high in ((b.low, b.high), (b.band_low, b.band_high)):
            assert (low <= b.propensity * (1 + 1e-12)).all()
            assert (b.propensity <= high * (1 + 1e-12)).all()
        pointwise.append((b.low[1:] <= TRUE[1:]) & (TRUE[1:] <= b.high[1:]))
        band.append(((b.band_low <= TRUE) & (b.band_high >= TRUE)).all())
    return np.mean(pointwise), np.mean(band)


@pytest.mark.parametrize("method", ["intervention", "em"])
def test_estimate_inside_its_interval_and_truth_covered(method):
    b = _fit(method, seed=11, n_resamples=60)
    assert b.propensity[0] == 1.0 and b.low[0] == b.high[0] == 1.0
    assert (b.low <= b.propensity).all() and (b.propensity <= b.high).all()
    assert (b.band_low <= b.low).all() and (b.high <= b.band_high).all()
    assert (b.high[1:] > b.low[1:]).all()
    # 95% intervals: at most one of five positions may miss by chance.
    miss = (b.low > TRUE) | (b.high < TRUE)
    assert miss.sum() <= 1, (b.low, b.propensity, b.high)
    assert ((b.band_low <= TRUE) & (b.band_high >= TRUE)).all()


@pytest.mark.parametrize("method", ["intervention", "em"])
def test_coverage_fast(method):
    # A few logs: the nominal 95% leaves room for chance; a collapsed or
    # misplaced interval (the estimate outside it) covers far less.
    pointwise, band = _coverage(method, n_logs=6, n_resamples=40)
    assert pointwise >= 0.8, pointwise
    assert band >= 4 / 6, band


@pytest.mark.slow
@pytest.mark.parametrize("method", ["intervention", "em"])
def test_coverage_at_the_nominal_rate(method):
    pointwise, band = _coverage(method, n_logs=40, n_resamples=100)
    assert pointwise >= 0.9, pointwise
    assert band >= 0.9, band


def test_intervals_scale_with_confidence_and_need_enough_resamples():
    pos, click, qid, doc = _simulate(1500, seed=2, n_queries=300)
    kw = dict(qid=qid, doc=doc, method="intervention", random_state=0)
    wide = estimate_position_bias(pos, click, confidence=0.95, n_resamples=40, **kw)
    narrow = estimate_position_bias(pos, click, confidence=0.8, n_resamples=40, **kw)
    np.testing.assert_array_equal(wide.propensity, narrow.propensity)
    # The same resamples: the interval is est * exp(+-z * sd), z of the level.
    ratio = np.log(wide.high[1:] / wide.propensity[1:]) / np.log(
        narrow.high[1:] / narrow.propensity[1:]
    )
    np.testing.assert_allclose(ratio, 1.9599639845401 / 1.2815515655446, rtol=1e-9)
    none = estimate_position_bias(pos, click, n_resamples=0, **kw)
    assert np.isnan(none.low).all() and np.isnan(none.band_high).all()
    with pytest.raises(ValueError, match=r"=1 is too few .*=21 or more"):
        estimate_position_bias(pos, click, n_resamples=1, **kw)


def test_em_warns_on_a_sparse_log():
    # About one impression per pair and position: EM is biased there.
    pos, click, qid, doc = _simulate(1500, seed=3, n_queries=1000)
    with pytest.warns(
        UserWarning, match=r"method='em' on a sparse log: 1\.\d impressions per"
    ):
        estimate_position_bias(pos, click, qid=qid, doc=doc, method="em", n_resamples=0)
    # Dense logs, intervention harvesting and regression EM do not warn.
    dense = _simulate(seed=3, **SETTINGS["em"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimate_position_bias(
            dense[0], dense[1], qid=dense[2], doc=dense[3], method="em", n_resamples=0
        )
        b = estimate_position_bias(pos, click, qid=qid, doc=doc, n_resamples=0)
        assert b.method == "intervention"
        estimate_position_bias(
            pos,
            click,
            qid=qid,
            doc=doc,
            method="em",
            features=np.c_[doc, qid % 7],
            n_resamples=0,
            max_iter=5,
        )
