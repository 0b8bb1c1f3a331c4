"""The demo's protocol pieces: random expectation, label gain, hold-out cut,
cold ratings, intervals over queries and users, the fold diagram."""

import ast
import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skndcg.datasets import make_movielens_like, make_ranking_task
from skndcg.demo import _data, _intervals, _models, _plots
from skndcg.metrics import grouped_ndcg_score, grouped_ranking_scores, ranking_report

DEMO = Path(__file__).resolve().parents[1] / "skndcg" / "demo"


def _dcg(gains, k):
    g = np.asarray(gains, dtype=float)[:k]
    return float(np.sum(g / np.log2(np.arange(2, g.size + 2))))


def _brute_force_expectation(labels, k):
    """Mean NDCG@k and AP@k / min(k, R) over every order of the labels."""
    labels = np.asarray(labels, dtype=float)
    ideal = _dcg(np.sort(labels)[::-1], k)
    n_rel = int((labels > 0).sum())
    ndcg, ap = [], []
    for perm in itertools.permutations(range(labels.size)):
        ranked = labels[list(perm)]
        ndcg.append(_dcg(ranked, k) / ideal)
        hits = np.cumsum(ranked[:k] > 0)
        prec = hits / np.arange(1, min(k, labels.size) + 1)
        ap.append(float(np.sum(prec * (ranked[:k] > 0))) / min(k, n_rel))
    return np.mean(ndcg), np.mean(ap)


@pytest.mark.parametrize(
    "labels", [[4.5, 0, 3, 0, 0, 1], [0, 0, 5, 0, 0, 0, 0], [2, 2.5, 0, 0.5]]
)
def test_random_expected_is_the_exact_mean_over_orders(labels):
    k = 3
    columns = ["qid", *(c for c in _models.BASELINES.values() if c)]
    X = pd.DataFrame(np.zeros((len(labels), len(columns))), columns=columns)
    score = _models.baseline_scores(X, 0)[_models.RANDOM_EXPECTED]
    report = ranking_report(
        labels, score, X["qid"], metrics=["ndcg@3", "map@3"], **_models.METRIC_OPTIONS
    )
    ndcg, ap = _brute_force_expectation(labels, k)
    assert report["ndcg@3"].iloc[0] == pytest.approx(ndcg, rel=1e-12)
    assert report["map@3"].iloc[0] == pytest.approx(ap, rel=1e-12)


def test_rating_codes_carry_the_reported_gain():
    y = np.array([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5.0])
    codes, label_gain = _models.rating_codes(y)
    assert codes.dtype == np.int64 and codes.tolist() == list(range(11))
    # The training gain of every code is the rating: the reported linear gain.
    np.testing.assert_array_equal(np.asarray(label_gain)[codes], y)
    # Linear gain is scale-free: the tuning scores on codes equal those on
    # the ratings, so GridSearchCV compares candidates on the reported metric.
    rng = np.random.default_rng(0)
    ratings = rng.choice(y, 300)
    score, qid = rng.random(300), np.repeat(np.arange(20), 15)
    on_codes = grouped_ranking_scores(
        _models.rating_codes(ratings)[0],
        score,
        qid,
        list(_models.METRICS),
        **_models.METRIC_OPTIONS,
    )
    on_ratings = grouped_ranking_scores(
        ratings, score, qid, list(_models.METRICS), **_models.METRIC_OPTIONS
    )
    assert on_codes == pytest.approx(on_ratings, rel=1e-12)
    with pytest.raises(ValueError, match=r"relevance label 3\.3 is not a non-negative"):
        _models.rating_codes([1.0, 3.3])


def test_lightgbm_ndcg_with_the_label_gain_is_the_reported_ndcg():
    """LightGBM's own NDCG@10 under label_gain equals skndcg's on the ratings."""
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(1)
    sizes = rng.integers(12, 30, 40)
    qid = np.repeat(np.arange(sizes.size), sizes)
    X = rng.standard_normal((qid.size, 4))
    ratings = np.where(
        rng.random(qid.size) < 0.3, np.round(rng.uniform(0.5, 5, qid.size) * 2) / 2, 0
    )
    ratings[np.r_[0, np.cumsum(sizes)[:-1]]] = 4.5  # every query has a positive
    codes, label_gain = _models.rating_codes(ratings)
    model = lgb.LGBMRanker(n_estimators=5, label_gain=label_gain, verbose=-1, n_jobs=1)
    # LightGBM's own NDCG@10 of the fitted model, as an independent reference
    # (LightGBM 4.7 takes the evaluation data as eval_X/eval_y, older ones as
    # eval_set).
    import inspect

    if "eval_X" in inspect.signature(model.fit).parameters:
        evals = {"eval_X": (X.copy(),), "eval_y": (codes,)}
    else:
        evals = {"eval_set": [(X.copy(), codes)]}
    model.fit(X, codes, group=sizes, eval_group=[sizes], eval_names=["check"],
              eval_at=[10], **evals)  # fmt: skip
    theirs = model.evals_result_["check"]["ndcg@10"][-1]
    ours = grouped_ndcg_score(ratings, model.predict(X), qid, k=10)
    assert ours == pytest.approx(theirs, rel=1e-6)


def test_holdout_cut_is_the_nearest_month_boundary():
    t = [pd.Timestamp(d).timestamp() for d in ("2020-01-15", "2020-11-15")]
    ratings = pd.DataFrame({"timestamp": np.array(t, dtype=np.int64)})
    cut, share = _data.holdout_cut(ratings)
    # 80 % of 305 days after January 15th is September 14th: September 1st
    # is 13 days away, October 1st 17.
    assert cut == pd.Timestamp("2020-09-01")
    assert share == pytest.approx(75 / 305)
    one = pd.DataFrame({"timestamp": np.array([t[0], t[0] + 5], dtype=np.int64)})
    with pytest.raises(ValueError, match="less than one month boundary"):
        _data.holdout_cut(one)


def test_cold_ratings_are_exactly_the_dropped_positives():
    ratings = make_movielens_like(60, 400, 3000, random_state=4)
    cold = _data.cold_ratings(ratings)
    assert 0 < cold.sum() < len(ratings)
    # With no history needed and no negatives, every other rating is a positive.
    _, y = make_ranking_task(ratings, n_negatives=0, min_history=0)
    assert int((y > 0).sum()) == int((~cold).sum())


def test_release_years_from_titles():
    items = pd.DataFrame(
        {
            "item_id": [1, 2, 3, 4],
            "title": ["Heat (1995)", "Movie 17 (2011)", "No year", None],
        }
    )
    years = _data.release_years(items)
    assert years.loc[1] == 1995 and years.loc[2] == 2011
    assert years.loc[[3, 4]].isna().all()


def test_user_interval_widens_when_a_users_queries_agree():
    rng = np.random.default_rng(2)
    users = np.repeat(np.arange(30), 8)
    per_user = rng.normal(0.5, 0.2, 30)
    base = per_user[users] + rng.normal(0, 0.02, users.size)
    qid = np.arange(users.size) + 100
    reports = {
        "A": pd.DataFrame({"qid": qid, "ndcg@10": base + 0.05}),
        "B": pd.DataFrame({"qid": qid, "ndcg@10": base}),
        "C": pd.DataFrame({"qid": qid, "ndcg@10": base + 0.06}),
    }
    res = _intervals.holdout_intervals(
        reports,
        dict(zip(qid, users, strict=True)),
        metrics=["ndcg@10"],
        ranker="A",
        n_resamples=2000,
        confidence=0.95,
        random_state=0,
    ).set_index("model")
    one = res.loc["B"]
    assert one["user_high"] - one["user_low"] > 2 * (one["high"] - one["low"])
    # Paired differences are ranker - baseline, with their intervals in order.
    diff = res.loc["A - B"]
    assert diff["value"] == pytest.approx(0.05)
    assert diff["low"] == pytest.approx(0.05) and diff["p_adjusted"] < 0.01
    worse = res.loc["A - C"]
    assert worse["value"] == pytest.approx(-0.01)
    assert worse["user_low"] <= worse["value"] <= worse["user_high"]
    assert "C - A" not in res.index and "A" in res.index


def test_fold_diagram_roles_and_legend(tmp_path):
    pytest.importorskip("matplotlib")
    from skndcg.model_selection import GroupTimeSeriesSplit

    ratings = make_movielens_like(80, 500, 5000, n_years=3.0, random_state=1)
    X, _ = make_ranking_task(ratings, n_negatives=5, min_history=0, random_state=0)
    cut = X["window_start"].quantile(0.8)
    X_dev = X[X["window_start"] < cut].reset_index(drop=True)
    X_hold = X[X["window_start"] >= cut].reset_index(drop=True)
    cv = GroupTimeSeriesSplit(2, group_col="qid", time_col="window_start")
    roles = _plots.fold_roles(cv, X_dev, X_hold)
    n_dev, n_hold = X_dev["qid"].nunique(), X_hold["qid"].nunique()
    assert roles.groupby("row").size().to_dict() == {
        "fold 0": n_dev,
        "fold 1": n_dev,
        "final fit": n_dev + n_hold,
    }
    # The last fold tests up to the hold-out: nothing unused; fold 0 has some.
    assert set(roles.loc[roles["row"] == "fold 1", "role"]) == {"train", "test"}
    assert "unused" in set(roles.loc[roles["row"] == "fold 0", "role"])
    used = _plots.plot_folds(roles, tmp_path / "folds.png", "t")
    assert used == ["hold-out", "test", "train", "unused"]
    without_unused = roles[roles["role"] != "unused"]
    assert "unused" not in _plots.plot_folds(without_unused, tmp_path / "b.png", "t")
    assert (tmp_path / "folds.png").stat().st_size > 0


def _imported_modules(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            yield node.level, node.module or ""


def test_demo_uses_only_public_library_modules():
    """The application is built from public pieces: no private module of
    another package (a leading underscore) is imported, except the shared
    file-writing module (atomic writes, no link out of the output folder) and
    the shared argument checks, which are infrastructure rather than library
    API."""
    bad = []
    for path in DEMO.glob("*.py"):
        for level, module in _imported_modules(path):
            if level == 2 and module in (
                "utils._atomic",
                "utils._args",
                "utils._counts",
            ):
                continue
            if level >= 2 and any(p.startswith("_") for p in module.split(".")):
                bad.append(f"{path.name}: {'.' * level}{module}")
    assert not bad, bad


def test_ndcg_at_k_plot_has_bands_and_a_full_title(tmp_path):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), 12)
    y = rng.integers(0, 3, qid.size).astype(float)
    reports = {
        name: ranking_report(y, score, qid, metrics=[f"ndcg@{k}" for k in range(1, 6)])
        for name, score in {
            _models.RANKER: y + rng.normal(0, 1, qid.size),
            "popularity": rng.random(qid.size),
        }.items()
    }
    cmp = _intervals.metric_curves(
        reports,
        range(1, 6),
        ranker=_models.RANKER,
        n_resamples=200,
        confidence=0.95,
        random_state=0,
    )
    title = _plots.ndcg_title("some data", "uniform", 50, 30)
    for part in ("some data", "uniform negatives", "N = 50", "30 queries"):
        assert part in title
    ax = _plots.plot_ndcg_at_k(cmp, tmp_path / "k.png", title)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        _models.RANKER,
        "popularity",
    ]
    assert len(ax.collections) == 2  # one band per model
    assert ax.get_title() == title and (tmp_path / "k.png").stat().st_size > 0


def test_release_year_reaches_the_ratings_from_either_catalogue(tmp_path):
    ml100k = tmp_path / "ml-100k"
    ml100k.mkdir()
    (ml100k / "u.data").write_text("1\t10\t4\t881250949\n2\t20\t3\t881250950\n")
    flags = "|".join(["0"] * 18 + ["1"])
    (ml100k / "u.item").write_text(
        f"10|Heat (1995)|01-Jan-1995||http://x|{flags}\n20|Unknown||||{flags}\n",
        encoding="latin-1",
    )
    ratings, _ = _data.load(ml100k, None, False, 0)
    assert ratings["year"].iloc[0] == 1995 and np.isnan(ratings["year"].iloc[1])
    latest = tmp_path / "latest"
    latest.mkdir()
    (latest / "ratings.csv").write_text(
        "userId,movieId,rating,timestamp\n1,10,4.5,964982703\n"
    )
    (latest / "movies.csv").write_text(
        'movieId,title,genres\n10,"Heat, The (1995) ",Action\n'
    )
    ratings, _ = _data.load(latest, None, False, 0)
    assert ratings["year"].tolist() == [1995.0]
    ratings, _ = _data.load(None, None, True, 0)
    assert ratings["year"].between(1900, 2030).all()
