"""A measure from define_measure in worker processes: the in-process numbers.

Every kind of user measure (a top-level function, a lambda, a closure, a
numba-compiled function, one with extra inputs and parameters, one where lower
is better, one without a cut-off) goes through cross_val_score and GridSearchCV
with n_jobs=2 (loky), a spawned multiprocessing pool (plain pickle) and a Dask
cluster, and gives the numbers of n_jobs=1. A function that cannot be pickled
is refused with the reason.
"""

import multiprocessing
import pickle
import threading
import warnings

import joblib
import numba
import numpy as np
import pandas as pd
import pytest
from scale_cases import local_cluster
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score

import skndcg.dask as sd
from skndcg.metrics import (
    define_measure,
    grouped_ranking_scores,
    make_ranking_scorer,
    undefine_measure,
)


def top_share(ranked_labels, k):
    """Share of the top k rows with label 2 or more (a top-level function)."""
    n = len(ranked_labels) if k is None else min(k, len(ranked_labels))
    return float(np.mean(ranked_labels[:n] >= 2)) if n else 0.0


def _definitions():
    """Measures whose functions only exist inside this call (pickled by value)."""

    @numba.njit
    def first_label(ranked_labels, k):
        return ranked_labels[0]

    level = 1.0  # a closure over a number

    def above(ranked_labels, k, ideal, threshold):
        n = len(ranked_labels) if k is None else min(k, len(ranked_labels))
        hits = float(np.sum(ranked_labels[:n] >= threshold * level))
        best = float(np.sum(ideal[:n] >= threshold * level))
        return hits / best if best > 0 else 0.0

    return {
        "w_share": dict(per_query=top_share),
        "w_lambda": dict(per_query=lambda y, k: float(y[: k or len(y)].sum())),
        "w_jit": dict(per_query=first_label, aliases=("w_first",)),
        "w_above": dict(per_query=above, needs=("ideal",), params={"threshold": 2}),
        "w_misses": dict(
            per_query=lambda y, k: float(np.sum(y[: k or len(y)] == 0)),
            higher_is_better=False,
        ),
        "w_last": dict(
            per_query=lambda y, k: float(y[-1]), cutoff=False, skip_empty=False
        ),
    }


METRICS = [
    "w_share@5",
    "w_lambda@3",
    "w_first",
    "w_above(threshold=3)@4",
    "w_misses@2",
    "w_last",
]


@pytest.fixture
def measures():
    defs = _definitions()
    for name, kwargs in defs.items():
        define_measure(name, **kwargs)
    yield
    for name in defs:
        undefine_measure(name)


def _frame(seed=0, n_queries=30):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), 8)
    x = rng.normal(size=(q.size, 2))
    y = np.clip(np.round(x[:, 0] + rng.normal(scale=0.7, size=q.size)), 0, 3)
    return pd.DataFrame({"qid": q, "a": x[:, 0], "b": x[:, 1]}), y


def _cv_scores(metric, n_jobs):
    X, y = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a worker's failure is a warning: fail
        return cross_val_score(
            Ridge(),
            X,
            y,
            groups=X["qid"],
            cv=GroupKFold(3),
            scoring=make_ranking_scorer(metric),
            n_jobs=n_jobs,
        )


def _search(n_jobs):
    X, y = _frame(1)
    scoring = {m: make_ranking_scorer(m) for m in METRICS}
    search = GridSearchCV(
        Ridge(),
        {"alpha": [0.01, 10.0, 1e4]},
        scoring=scoring,
        refit="w_share@5",
        cv=GroupKFold(3),
        n_jobs=n_jobs,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return search.fit(X, y, groups=X["qid"])


@pytest.mark.parametrize("metric", METRICS)
def test_cross_val_score_with_two_jobs(measures, metric):
    one = _cv_scores(metric, 1)
    two = _cv_scores(metric, 2)
    assert np.isfinite(two).all()
    np.testing.assert_allclose(two, one, rtol=0, atol=1e-12)


def test_grid_search_with_two_jobs(measures):
    one, two = _search(1), _search(2)
    for m in METRICS:
        key = f"mean_test_{m}"
        assert np.isfinite(two.cv_results_[key]).all()
        np.testing.assert_allclose(
            two.cv_results_[key], one.cv_results_[key], rtol=0, atol=1e-12
        )
    assert two.best_params_ == one.best_params_
    assert np.isfinite(two.best_score_)
    # The numbers differ between measures: no scorer fell back to another.
    means = {m: tuple(one.cv_results_[f"mean_test_{m}"].round(9)) for m in METRICS}
    assert len(set(means.values())) == len(METRICS)


def _score_in_worker(blob):
    scorer = pickle.loads(blob)  # registers the measure in this process
    X, y = _frame(2)
    model = Ridge().fit(X.drop(columns="qid"), y)
    return scorer(model, X, y)


def test_plain_pickle_in_a_spawned_process(measures):
    X, y = _frame(2)
    model = Ridge().fit(X.drop(columns="qid"), y)
    scorer = make_ranking_scorer(METRICS)
    blob = pickle.dumps(scorer)  # plain pickle: closures travel as bytes
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        got = pool.apply(_score_in_worker, (blob,))
    assert got == pytest.approx(scorer(model, X, y), abs=1e-12)


def test_a_stale_definition_in_a_worker_is_replaced():
    # A worker that kept an older measure under the same name uses the one
    # the scorer carries.
    define_measure("w_stale", lambda y, k: 1.0)
    blob = pickle.dumps(make_ranking_scorer("w_stale"))
    undefine_measure("w_stale")
    define_measure("w_stale", lambda y, k: 2.0)
    try:
        X, y = _frame(3)
        model = Ridge().fit(X.drop(columns="qid"), y)
        assert pickle.loads(blob)(model, X, y) == 1.0
    finally:
        undefine_measure("w_stale")


def test_an_unpicklable_function_is_refused_with_the_reason():
    lock = threading.Lock()
    define_measure("w_locked", lambda y, k: 1.0 if lock else 0.0)
    try:
        scorer = make_ranking_scorer("w_locked@3")
        for dumps in (pickle.dumps, joblib.externals.loky.backend.reduction.dumps):
            with pytest.raises(
                pickle.PicklingError,
                match=r"measure 'w_locked' cannot be sent to another process.*"
                r"cannot pickle '_thread.lock'.*top level of a module",
            ):
                dumps(scorer)
        X, y = _frame(3)
        with pytest.raises(pickle.PicklingError) as info:
            cross_val_score(
                Ridge(),
                X,
                y,
                groups=X["qid"],
                cv=GroupKFold(3),
                scoring=scorer,
                n_jobs=2,
            )
        # loky says it could not send the task; the cause says why.
        assert "'w_locked' cannot be sent" in str(info.value.__cause__)
        # In one process nothing is pickled: it scores.
        assert np.isfinite(
            cross_val_score(
                Ridge(),
                X,
                y,
                groups=X["qid"],
                cv=GroupKFold(3),
                scoring=scorer,
                n_jobs=1,
            )
        ).all()
    finally:
        undefine_measure("w_locked")


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def _forget_user_measures():
    """Empty a worker's registry of user measures (what a fresh worker has)."""
    from skndcg.metrics._catalogue._registry import unregister, user_measures

    for m in user_measures():
        unregister(m.name)
    return True


def _knows_w_above():
    from skndcg.metrics._catalogue._registry import lookup

    return lookup("w_above") is not None


def test_dask_search(client, measures):
    client.run(_forget_user_measures)
    assert not any(client.run(_knows_w_above).values())
    one = _search(1)
    with joblib.parallel_backend("dask"):
        on_cluster = _search(-1)
    for m in METRICS:
        key = f"mean_test_{m}"
        assert np.isfinite(on_cluster.cv_results_[key]).all()
        np.testing.assert_allclose(
            on_cluster.cv_results_[key], one.cv_results_[key], rtol=0, atol=1e-12
        )
    # The scorers registered the measures in the workers.
    known = client.run(_knows_w_above)
    assert len(known) == 2 and all(known.values())


def test_dask_means(client, measures):
    import dask.dataframe as dd

    client.run(_forget_user_measures)
    X, y = _frame(4)
    df = pd.DataFrame({"qid": X["qid"], "label": y, "score": X["a"]})
    ddf = dd.from_pandas(df, npartitions=3)
    got = sd.grouped_ranking_scores(
        ddf, METRICS, qid_col="qid", label_col="label", score_col="score"
    )
    want = grouped_ranking_scores(y, df["score"], df["qid"], METRICS)
    assert got == pytest.approx(want, abs=1e-12)
