"""define_measure: a user's measure by name in every function that takes names."""

import numba
import numpy as np
import pandas as pd
import pytest
from scale_cases import local_cluster
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score

import skndcg.dask as sd
from skndcg.evaluation import compare_scores
from skndcg.metrics import (
    define_measure,
    grouped_ranking_scores,
    make_ranking_scorer,
    ranking_report,
    undefine_measure,
)


def top_gain(ranked_labels, k):
    """Sum of the labels in the top k (all of them without k), by hand."""
    n = len(ranked_labels) if k is None else min(k, len(ranked_labels))
    return float(np.sum(ranked_labels[:n]))


@numba.njit
def top_gain_jit(ranked_labels, k):
    n = ranked_labels.shape[0] if k is None else min(k, ranked_labels.shape[0])
    total = 0.0
    for i in range(n):
        total += ranked_labels[i]
    return total


def share_of_ideal(ranked_labels, k, ideal, n_relevant):
    n = len(ranked_labels) if k is None else min(k, len(ranked_labels))
    best = ideal[:n].sum()
    return float(ranked_labels[:n].sum() / best) if best > 0 else 0.0


@pytest.fixture
def measures():
    define_measure("topgain", top_gain, description="Label sum of the top k.")
    define_measure("topgain_jit", top_gain_jit, aliases=("tgj",))
    define_measure("ideal_share", share_of_ideal, needs=("ideal", "n_relevant"))
    yield
    for name in ("topgain", "topgain_jit", "ideal_share"):
        undefine_measure(name)


# Query 1 ranks 2, 0, 1; query 2 ranks 0, 3 (ties: none).
Y = np.array([1, 0, 2, 3, 0])
S = np.array([0.1, 0.5, 0.9, 0.2, 0.8])
Q = np.array([1, 1, 1, 2, 2])


def test_by_name_with_and_without_cutoff(measures):
    got = grouped_ranking_scores(Y, S, Q, ["topgain", "topgain@1", "tgj@2", "ndcg@2"])
    assert got["topgain"] == pytest.approx((3 + 3) / 2)
    assert got["topgain@1"] == pytest.approx((2 + 0) / 2)
    assert got["tgj@2"] == pytest.approx((2 + 3) / 2)
    assert got["ndcg@2"] == pytest.approx(
        grouped_ranking_scores(Y, S, Q, ["ndcg@2"])["ndcg@2"]
    )


def test_extra_inputs_and_report(measures):
    report = ranking_report(Y, S, Q, metrics=["ideal_share@2", "topgain"])
    # Query 1: top 2 labels 2 + 0 of an ideal 2 + 1; query 2: 0 + 3 of 3 + 0.
    assert report["ideal_share@2"].tolist() == pytest.approx([2 / 3, 1.0])
    assert report["topgain"].tolist() == pytest.approx([3.0, 3.0])


def test_compiled_and_python_agree(measures):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 400)
    s = rng.random(400).round(1)  # ties
    q = rng.integers(0, 40, 400)
    for k in ("", "@3"):
        a = grouped_ranking_scores(y, s, q, [f"topgain{k}", f"topgain_jit{k}"])
        assert a[f"topgain{k}"] == pytest.approx(a[f"topgain_jit{k}"], abs=1e-12)


def test_name_clash_and_unregister(measures):
    with pytest.raises(ValueError, match="'ndcg' is taken by the measure 'ndcg'"):
        define_measure("ndcg", top_gain)
    with pytest.raises(ValueError, match="'ap' is taken by the measure 'map'"):
        define_measure("mine", top_gain, aliases=("ap",))
    with pytest.raises(ValueError, match="'tgj' is taken by the measure"):
        define_measure("tgj", top_gain)
    with pytest.raises(ValueError, match="'map' is a built-in measure"):
        undefine_measure("ap")
    with pytest.raises(ValueError, match="no measure is registered under the name"):
        undefine_measure("nothing_here")
    define_measure("temporary", top_gain)
    undefine_measure("temporary")
    with pytest.raises(ValueError, match="unknown metric 'temporary'"):
        grouped_ranking_scores(Y, S, Q, ["temporary"])


@pytest.mark.parametrize(
    "fn, error, match",
    [
        (lambda y, k: "high", TypeError, r"'bad' returned 'high' \(str\) for query 1"),
        (lambda y, k: "1", TypeError, r"'bad' returned '1' \(str\) for query 1"),
        (lambda y, k: None, TypeError, r"'bad' returned None \(NoneType\) for query 1"),
        (lambda y, k: y, TypeError, r"'bad' returned .* for query 1; per_query must"),
        (lambda y, k: float("nan"), ValueError, r"'bad' returned nan for query 1"),
        (
            lambda y, k: 1.0 / (y[0] - 3.0) if y[0] == 3 else 0.0,
            ValueError,
            r"'bad' returned (inf|-inf) for query 2",
        ),
    ],
)
def test_bad_results_name_measure_and_query(fn, error, match):
    define_measure("bad", fn)
    try:
        with pytest.raises(error, match=match):
            grouped_ranking_scores(
                [1, 0, 2, 3, 0], [0.9, 0.5, 0.1, 0.9, 0.8], [1, 1, 1, 2, 2], ["bad"]
            )
    finally:
        undefine_measure("bad")


def test_error_in_per_query_names_measure_and_query():
    def fails_on_2(y, k):
        if y[0] == 3:
            raise KeyError("oops")
        return 0.0

    define_measure("fails", fails_on_2)
    try:
        for ties in ("stable", "average"):
            with pytest.raises(RuntimeError, match=r"'fails'.* query 2") as info:
                grouped_ranking_scores(
                    [1, 0, 2, 3, 0], [0.9, 0.9, 0.1, 0.9, 0.8], [1, 1, 1, 2, 2],
                    ["fails"], ties=ties,
                )  # fmt: skip
            assert isinstance(info.value.__cause__, KeyError)
    finally:
        undefine_measure("fails")


def test_compiled_bad_return_names_the_measure():
    @numba.njit
    def returns_array(y, k):
        return y

    define_measure("arr", returns_array)
    try:
        with pytest.raises(TypeError, match="measure 'arr': its compiled per_query"):
            grouped_ranking_scores(Y, S, Q, ["arr"])
    finally:
        undefine_measure("arr")


def test_bad_definitions():
    with pytest.raises(TypeError, match="per_query for measure 'x' must be a function"):
        define_measure("x", 3)
    with pytest.raises(ValueError, match="measure name 'Bad-Name' is not valid"):
        define_measure("Bad-Name", top_gain)
    with pytest.raises(ValueError, match="needs 'ideal_dcg', which is not an input"):
        define_measure("x", top_gain, needs=("ideal_dcg",))
    with pytest.raises(ValueError, match="unjudged='maybe' is not valid"):
        define_measure("x", top_gain, unjudged="maybe")
    with pytest.raises(ValueError, match="unknown metric 'x'"):
        grouped_ranking_scores(Y, S, Q, ["x"])  # nothing half-registered


def test_params_and_unjudged_refused():
    def above(y, k, level):
        return float(np.sum(y >= level))

    define_measure("above", above, params={"level": 2}, unjudged="refuse")
    try:
        got = grouped_ranking_scores(Y, S, Q, ["above", "above(level=3)"])
        assert got == pytest.approx({"above": 1.0, "above(level=3)": 0.5})
        with pytest.raises(ValueError, match="above cannot use unjudged rows"):
            grouped_ranking_scores(
                [1.0, np.nan], [0.3, 0.2], [1, 1], ["above"], nan_label="unjudged"
            )
    finally:
        undefine_measure("above")


def _frame(seed=0, n_queries=24):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), 8)
    x = rng.normal(size=(q.size, 3))
    y = np.clip(np.round(x[:, 0] + rng.normal(scale=0.5, size=q.size)), 0, 3)
    return pd.DataFrame({"qid": q, "a": x[:, 0], "b": x[:, 1], "c": x[:, 2]}), y


def test_scorer_in_grid_search_and_cross_val_score(measures):
    X, y = _frame()
    groups = X["qid"].to_numpy()
    scorer = make_ranking_scorer("topgain_jit@3")
    cv = GroupKFold(n_splits=3)
    scores = cross_val_score(Ridge(), X, y, groups=groups, cv=cv, scoring=scorer)
    for score, (train, test) in zip(scores, cv.split(X, y, groups), strict=True):
        model = Ridge().fit(X.iloc[train].drop(columns="qid"), y[train])
        pred = model.predict(X.iloc[test].drop(columns="qid"))
        want = grouped_ranking_scores(y[test], pred, groups[test], ["topgain@3"])
        assert score == pytest.approx(want["topgain@3"])
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 100.0]}, scoring=scorer, cv=cv)
    search.fit(X, y, groups=groups)
    assert np.isfinite(search.best_score_)


def test_lower_is_better_is_negated_by_the_scorer():
    define_measure("misses", lambda y, k: float(np.sum(y[:k] == 0)),
                   higher_is_better=False)  # fmt: skip
    try:
        X, y = _frame(1)
        model = Ridge().fit(X.drop(columns="qid"), y)
        pred = model.predict(X.drop(columns="qid"))
        want = grouped_ranking_scores(y, pred, X["qid"], ["misses@2"])["misses@2"]
        assert want > 0
        assert make_ranking_scorer("misses@2")(model, X, y) == pytest.approx(-want)
    finally:
        undefine_measure("misses")


def test_compare(measures):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 200)
    q = np.repeat(np.arange(25), 8)
    scores = {"good": y + rng.normal(scale=0.3, size=200), "bad": rng.normal(size=200)}
    cmp = compare_scores(y, scores, q, metrics=["topgain@2"], baseline="bad",
                         n_resamples=200, random_state=0)  # fmt: skip
    assert list(cmp.metrics) == ["topgain@2"]
    for i, model in enumerate(cmp.models):
        want = ranking_report(y, scores[model], q, metrics=["topgain@2"])
        assert cmp.values[i, :, 0] == pytest.approx(want["topgain@2"].to_numpy())
    frame = cmp.to_frame(pairs=True)
    assert frame.loc[0, "model"] == "good" and frame.loc[0, "wins"] > 12


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def test_dask(client, measures):
    import dask.dataframe as dd

    X, y = _frame(3)
    df = pd.DataFrame({"qid": X["qid"], "label": y, "score": X["a"]})
    ddf = dd.from_pandas(df, npartitions=3)
    names = ["topgain_jit@2", "topgain", "ndcg@3"]
    got = sd.grouped_ranking_scores(
        ddf, names, qid_col="qid", label_col="label", score_col="score"
    )
    want = grouped_ranking_scores(y, df["score"], df["qid"], names)
    assert got == pytest.approx(want, abs=1e-12)
