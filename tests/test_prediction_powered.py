"""prediction_powered_report: formulas by hand, properties, simulator checks."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ppi_sim import simulate
from scipy import stats

from skndcg.evaluation import prediction_powered_report
from skndcg.metrics import ranking_report


def _case(seed=0, n_queries=120, n_docs=8, n_judged=30):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), n_docs)
    y = rng.integers(0, 4, qid.size).astype(float)
    y_model = np.clip(y + rng.integers(-1, 2, qid.size), 0, 3)
    score = y + rng.normal(0, 1.5, qid.size)
    judged = qid < n_judged
    return y, np.where(judged, y, np.nan), y_model, score, qid, judged


def _values(labels, score, qid, metric):
    return ranking_report(labels, score, qid, metrics=metric)[metric].to_numpy()


def test_ppi_plus_plus_matches_the_textbook_formulas():
    """No query skipped: lambda = cov / var on the judged queries, and the
    variance s2(Y) / N + (1 - n / N) s2(Y - lambda f) / n (by hand)."""
    y, y_true, y_model, score, qid, _ = _case()
    f = _values(y_model, score, qid, "p@5")
    h = _values(y, score, qid, "p@5")[:30]
    N, n = f.size, 30
    fj = f[:30]
    lam = np.cov(h, fj, ddof=1)[0, 1] / np.var(fj, ddof=1)
    theta = lam * f.mean() + np.mean(h - lam * fj)
    var = np.var(h, ddof=1) / N + (1 - n / N) * np.var(h - lam * fj, ddof=1) / n
    q = stats.t.ppf(0.975, n - 1)
    row = prediction_powered_report(y_true, y_model, score, qid, metrics="p@5").iloc[0]
    assert row["lambda"] == pytest.approx(lam, rel=1e-10)
    assert row["estimate"] == pytest.approx(theta, rel=1e-10)
    assert row["se"] == pytest.approx(np.sqrt(var), rel=1e-10)
    assert row["low"] == pytest.approx(theta - q * np.sqrt(var), rel=1e-10)
    assert row["model_only"] == pytest.approx(f.mean())
    assert row["human_only"] == pytest.approx(h.mean())
    lo, hi = stats.t.interval(0.95, n - 1, loc=h.mean(), scale=stats.sem(h))
    assert (row["human_only_low"], row["human_only_high"]) == pytest.approx((lo, hi))
    assert row["variance_removed"] == pytest.approx(1 - var / stats.sem(h) ** 2)
    assert (row["n_judged"], row["n_queries"]) == (30, 120)


def test_classical_ppi_is_the_rectified_mean():
    y, y_true, y_model, score, qid, _ = _case(1)
    f = _values(y_model, score, qid, "p@5")
    h = _values(y, score, qid, "p@5")[:30]
    row = prediction_powered_report(
        y_true, y_model, score, qid, metrics="p@5", method="ppi"
    ).iloc[0]
    assert row["lambda"] == 1.0
    assert row["estimate"] == pytest.approx(f.mean() + np.mean(h - f[:30]))


def test_skipped_queries_give_a_ratio_of_rectified_means():
    """NDCG is NaN on queries with nothing relevant: the estimate is the
    ratio of the rectified sums of values and of counted queries."""
    y, _, y_model, score, qid, judged = _case(2, n_docs=3)
    y[qid % 5 == 0] = 0  # nothing relevant for the humans
    y_model[qid % 7 == 0] = 0  # nor for the model
    y_true = np.where(judged, y, np.nan)
    f = _values(y_model, score, qid, "ndcg@3")
    h = _values(y, score, qid, "ndcg@3")[:30]
    assert np.isnan(f).any() and np.isnan(h).any()
    a_f, d_f = np.nan_to_num(f), ~np.isnan(f) * 1.0
    a_h, d_h = np.nan_to_num(h), ~np.isnan(h) * 1.0
    N, n = f.size, 30
    theta = (a_f.sum() / N + a_h.mean() - a_f[:n].mean()) / (
        d_f.sum() / N + d_h.mean() - d_f[:n].mean()
    )
    rep = prediction_powered_report(
        y_true, y_model, score, qid, metrics="ndcg@3", method="ppi"
    )
    assert rep["estimate"].iloc[0] == pytest.approx(theta)
    assert rep["human_only"].iloc[0] == pytest.approx(np.nanmean(h))
    assert rep["model_only"].iloc[0] == pytest.approx(np.nanmean(f))


def test_inclusion_probabilities_weigh_by_their_inverse():
    y, y_true, y_model, score, qid, _ = _case(3)
    base = prediction_powered_report(y_true, y_model, score, qid, metrics="p@5")
    same = prediction_powered_report(
        y_true, y_model, score, qid, metrics="p@5", inclusion_probability={
            q: 30 / 120 for q in range(120)
        },
    )  # fmt: skip
    assert same["estimate"].iloc[0] == pytest.approx(base["estimate"].iloc[0])
    assert same["se"].iloc[0] == pytest.approx(base["se"].iloc[0])
    pi = np.where(qid < 10, 0.5, 0.1)  # per row, constant within a query
    h = _values(y, score, qid, "p@5")[:30]
    w = np.where(np.arange(30) < 10, 2.0, 10.0)
    row = prediction_powered_report(
        y_true, y_model, score, qid, metrics="p@5", method="human",
        inclusion_probability=pi,
    ).iloc[0]  # fmt: skip
    assert row["estimate"] == pytest.approx(np.sum(w * h) / np.sum(w))


def test_bootstrap_keeps_the_estimate_and_is_close_to_the_clt():
    _, y_true, y_model, score, qid, _ = _case(4, n_queries=300, n_judged=60)
    clt = prediction_powered_report(y_true, y_model, score, qid).iloc[0]
    boot = prediction_powered_report(
        y_true, y_model, score, qid, interval="bootstrap", n_resamples=1000,
        random_state=0,
    ).iloc[0]  # fmt: skip
    again = prediction_powered_report(
        y_true, y_model, score, qid, interval="bootstrap", n_resamples=1000,
        random_state=0,
    ).iloc[0]  # fmt: skip
    assert boot["estimate"] == clt["estimate"]
    assert boot["low"] == again["low"]
    width = clt["high"] - clt["low"]
    assert abs((boot["high"] - boot["low"]) / width - 1) < 0.3
    assert boot["low"] < clt["estimate"] < boot["high"]


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
@given(seed=st.integers(0, 10**6), n_judged=st.integers(5, 40))
def test_ppi_plus_plus_never_wider_than_human_only(seed, n_judged):
    """lambda minimises the variance and lambda = 0 is human-only: with no
    query skipped the PPI++ standard error is at most the human-only one."""
    _, y_true, y_model, score, qid, _ = _case(seed, n_queries=60, n_judged=n_judged)
    rng = np.random.default_rng(seed)
    y_model = rng.permutation(y_model) if seed % 2 else y_model  # useless judge too
    rep = prediction_powered_report(y_true, y_model, score, qid, metrics="p@5")
    hum = prediction_powered_report(
        y_true, y_model, score, qid, metrics="p@5", method="human"
    )
    assert rep["se"].iloc[0] <= hum["se"].iloc[0] * (1 + 1e-9)
    removed = rep["variance_removed"].iloc[0]
    if hum["se"].iloc[0] == 0:  # the human-only values do not vary: nothing to remove
        assert np.isnan(removed)
    else:
        assert removed >= -1e-9


@given(seed=st.integers(0, 10**6))
def test_row_order_does_not_matter(seed):
    _, y_true, y_model, score, qid, _ = _case(seed % 7, n_queries=40, n_judged=10)
    perm = np.random.default_rng(seed).permutation(qid.size)
    a = prediction_powered_report(y_true, y_model, score, qid, metrics=["ndcg@5"])
    b = prediction_powered_report(
        y_true[perm], y_model[perm], score[perm], qid[perm], metrics=["ndcg@5"]
    )
    cols = ["estimate", "low", "high", "model_only", "human_only", "lambda"]
    np.testing.assert_allclose(a[cols].to_numpy(float), b[cols].to_numpy(float))


def test_inputs_are_not_mutated():
    _, y_true, y_model, score, qid, _ = _case()
    copies = [v.copy() for v in (y_true, y_model, score, qid)]
    prediction_powered_report(y_true, y_model, score, qid)
    for before, after in zip(copies, (y_true, y_model, score, qid), strict=True):
        np.testing.assert_array_equal(before, after)


def _width(rep, prefix=""):
    return (rep[f"{prefix}high"] - rep[f"{prefix}low"]).to_numpy()


@pytest.mark.parametrize("judge", ["decent", "useless"])
def test_width_against_human_only_on_the_simulator(judge):
    """A decent judge (per-query NDCG correlation about 0.8) narrows the
    interval by at least 20%; a useless one widens it by at most 5%."""
    rng = np.random.default_rng(7)
    ratios = []
    for _ in range(8):
        s = simulate(500, rng, judge=judge, judged_share=0.1)
        rep = prediction_powered_report(
            s["y_true"], s["y_model"], s["score_a"], s["qid"],
            metrics=["ndcg@10", "map", "p@10"],
        )  # fmt: skip
        ratios.append(_width(rep) / _width(rep, "human_only_"))
    ratio = np.mean(ratios, axis=0)
    if judge == "decent":
        assert ratio[0] <= 0.8 and ratio[2] <= 0.8, ratio
    else:
        assert (ratio <= 1.05).all(), ratio


def test_decent_judge_correlates_about_0_8():
    from skndcg.evaluation import judge_agreement

    s = simulate(1000, np.random.default_rng(8), judged_share=1.0)
    a = judge_agreement(s["y_true"], s["y_model"], s["qid"], y_score=s["score_a"])
    assert 0.75 <= a.correlation["ndcg@10"] <= 0.9


def test_coverage_quick():
    """A small repeat study in the normal suite (the full one is slow)."""
    from ppi_sim import truth

    true = truth(["ndcg@10"], n_queries=5000)[("ndcg@10", "a")]
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(60):
        s = simulate(300, rng, judged_share=0.15)
        row = prediction_powered_report(
            s["y_true"], s["y_model"], s["score_a"], s["qid"]
        ).iloc[0]
        hits += row["low"] <= true <= row["high"]
    assert hits >= 52  # 95% nominal; 52 of 60 fails with p < 0.02 at 95%


# ----------------------------------------------------------------- bad input
@pytest.fixture
def case():
    return _case(5)


def test_no_human_judged_query(case):
    y, _, y_model, score, qid, _ = case
    with pytest.raises(ValueError, match="y_true has no human label"):
        prediction_powered_report(np.full(y.size, np.nan), y_model, score, qid)
    one = np.where(qid == 0, y, np.nan)
    with pytest.raises(ValueError, match="at least two human-judged queries"):
        prediction_powered_report(one, y_model, score, qid)


def test_judged_query_without_model_labels(case):
    _, y_true, y_model, score, qid, _ = case
    bad = np.where(qid == 3, np.nan, y_model)
    with pytest.raises(ValueError, match=r"human-judged queries 3 have no model"):
        prediction_powered_report(y_true, bad, score, qid)
    bad = np.where(qid == 100, np.nan, y_model)
    with pytest.raises(ValueError, match="y_model is NaN on 8 rows"):
        prediction_powered_report(y_true, bad, score, qid)


def test_grades_on_different_scales(case):
    _, y_true, y_model, score, qid, _ = case
    with pytest.raises(ValueError, match=r"outside the human labels' range \[0, 3\]"):
        prediction_powered_report(y_true, y_model * 33, score, qid)
    with pytest.raises(ValueError, match=r"y_true holds 3.0, outside grades=\(0, 2\)"):
        prediction_powered_report(y_true, y_model / 2, score, qid, grades=(0, 2))
    with pytest.raises(ValueError, match="grades must be a tuple"):
        prediction_powered_report(y_true, y_model, score, qid, grades=(3, 0))


def test_expected_labels_must_be_declared(case):
    _, y_true, y_model, score, qid, _ = case
    expected = y_model * 0.9 + 0.15
    with pytest.raises(ValueError, match="pass expected_labels=True"):
        prediction_powered_report(y_true, expected, score, qid)
    rep = prediction_powered_report(y_true, expected, score, qid, expected_labels=True)
    assert np.isfinite(rep["estimate"]).all()
    with pytest.raises(ValueError, match="outside"):
        prediction_powered_report(
            y_true, expected + 1, score, qid, expected_labels=True
        )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"method": "ppi+"}, "method must be one of"),
        ({"confidence": 1.0}, "confidence must be"),
        ({"interval": "bca"}, r"interval must be one of \['clt', 'bootstrap'\]"),
        ({"n_resamples": 0}, "n_resamples must be"),
        ({"inclusion_probability": {0: 0.5}}, "inclusion_probability must be in"),
        ({"inclusion_probability": [0.5]}, "one value per row"),
        ({"metric_options": {"sample_weight": [1]}}, "may not hold 'sample_weight'"),
    ],
)
def test_bad_settings(case, kwargs, match):
    _, y_true, y_model, score, qid, _ = case
    with pytest.raises(ValueError, match=match):
        prediction_powered_report(y_true, y_model, score, qid, **kwargs)


def test_bad_shapes(case):
    _, y_true, y_model, score, qid, _ = case
    with pytest.raises(ValueError, match="one value per row"):
        prediction_powered_report(y_true, y_model[:-1], score, qid)
    with pytest.raises(ValueError, match="y_score must have one value per row"):
        prediction_powered_report(y_true, y_model, score[:-1], qid)
    pi = np.where(np.arange(qid.size) % 2, 0.5, 0.25)
    with pytest.raises(ValueError, match="varies within the queries"):
        prediction_powered_report(y_true, y_model, score, qid, inclusion_probability=pi)


def test_few_judged_queries_warn_and_all_skipped_queries_are_named():
    from skndcg.evaluation import SmallSampleWarning

    y, _, y_model, score, qid, _ = _case(n_queries=40, n_judged=2)
    two = np.where(qid < 2, y, np.nan)
    # Two judged queries: lambda fits them exactly, sd_residual ~ 0, silently.
    with pytest.warns(SmallSampleWarning, match=r"only 2 queries judged by humans "
                      r"\(fewer than min_queries=10\).*too narrow"):  # fmt: skip
        row = prediction_powered_report(two, y_model, score, qid).iloc[0]
    assert row["sd_residual"] < 1e-12
    ten = np.where(qid < 10, y, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prediction_powered_report(ten, y_model, score, qid)
        prediction_powered_report(two, y_model, score, qid, min_queries=0)
    with pytest.raises(ValueError, match=r"min_queries must be an integer >= 0"):
        prediction_powered_report(ten, y_model, score, qid, min_queries=-1)
    # Nothing relevant anywhere: NaN estimates, now with the reason.
    zero = np.zeros_like(y)
    with pytest.warns(UserWarning) as record:
        row = prediction_powered_report(np.where(qid < 10, zero, np.nan), zero,
                                        score, qid).iloc[0]  # fmt: skip
    assert [str(w.message)[:48] for w in record] == [
        "ndcg@10 skips every human-judged query under y_t",
        "ndcg@10 skips every query under y_model (nothing",
    ]
    assert "are all its labels 0?" in str(record[0].message)
    assert np.isnan(row["estimate"]) and np.isnan(row["model_only"])
