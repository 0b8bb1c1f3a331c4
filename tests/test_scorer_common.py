"""Shared data, estimators and channel helpers for the scorer tests (no tests here)."""

from contextlib import contextmanager

import numpy as np
import pandas as pd
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GroupKFold

from skndcg.metrics import grouped_ndcg_score

FEATURES = ["a", "b", "c"]
LGBM = dict(
    n_estimators=4,
    num_leaves=4,
    min_child_samples=2,
    deterministic=True,
    force_row_wise=True,
    n_jobs=1,
    verbose=-1,
)
CV = GroupKFold(n_splits=3)
MODES = ["off", "on_column", "on_routed"]


def make_data(n_queries=18, seed=0):
    """Queries of 3-8 rows, rows shuffled, ids neither contiguous nor ascending."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 9, n_queries)
    qid = np.repeat(rng.permutation(n_queries) * 7 + 3, sizes)
    n = qid.size
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=FEATURES)
    noise = rng.normal(0, 0.8, n)
    y = np.clip(np.round(X["a"] + 0.5 * X["b"] + noise + 1), 0, 3).to_numpy()
    perm = rng.permutation(n)
    X = X.iloc[perm].reset_index(drop=True)
    X.insert(0, "qid", qid[perm])
    return X, y[perm].astype(int), qid[perm]


class Mode:
    """How query ids reach the scorer.

    ``off``: routing off, ids in the ``qid`` column of X. ``on_column``:
    routing on, ids still in the column, nothing routed. ``on_routed``: routing
    on, X without the column, ids routed as ``qid``.
    """

    def __init__(self, name):
        self.name = name
        self.routing = name != "off"
        self.routed = name == "on_routed"

    def X(self, X):
        return X.drop(columns="qid") if self.routed else X

    @contextmanager
    def context(self):
        with sklearn.config_context(enable_metadata_routing=self.routing):
            yield

    def fit_kwargs(self, qid, groups=None):
        """Keyword arguments of ``SearchCV.fit``."""
        groups = qid if groups is None else groups
        return {"groups": groups, **({"qid": qid} if self.routed else {})}

    def cv_kwargs(self, qid):
        """Keyword arguments of ``cross_val_score`` / ``cross_validate``."""
        if not self.routing:
            return {"groups": qid}
        return {"params": self.fit_kwargs(qid)}


def manual_fold_scores(estimator, X, y, qid, metric=None, cv=CV, **params):
    """Per-fold scores by hand: fit on train (column channel), metric on test."""
    metric = metric or (lambda yt, ys, q: grouped_ndcg_score(yt, ys, q, k=10))
    scores = []
    for train, test in cv.split(X.drop(columns="qid"), y, groups=qid):
        model = clone(estimator).set_params(**params).fit(X.iloc[train], y[train])
        y_score = model.predict(X.iloc[test])
        scores.append(metric(y[test], y_score, qid[test]))
    return np.array(scores)


def split_scores(cv_results, index, key="score", n_splits=3):
    """The per-split test scores of candidate ``index`` in ``cv_results_``."""
    return np.array(
        [cv_results[f"split{i}_test_{key}"][index] for i in range(n_splits)]
    )
