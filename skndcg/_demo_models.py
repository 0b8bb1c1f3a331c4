"""The models of the demo: the tuned LightGBM ranker and three baselines."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .metrics import grouped_ranking_scores, ranking_report

METRICS = ("ndcg@5", "ndcg@10", "map@10")
REFIT = "ndcg@10"
RANKER = "LGBMRanker (tuned)"
#: Baseline name -> column of the task whose value is the score.
BASELINES = {
    "random": None,
    "most popular to date": "item_log_ratings",
    "item mean rating to date": "item_mean_rating",
}
ID_COLUMNS = ["window_start", "user_id", "item_id"]


def build_search(cv, *, quick, random_state):
    """GridSearchCV over QueryRanker(Pipeline([drop ids, LGBMRanker]))."""
    from sklearn.compose import ColumnTransformer
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline

    from .metrics import make_ranking_scorer
    from .ranker import QueryRanker
    from .utils._optional import import_optional

    lgb = import_optional("lightgbm", purpose="the demo's ranker")
    drop_ids = ColumnTransformer(
        [("ids", "drop", ID_COLUMNS)],
        remainder="passthrough",
        verbose_feature_names_out=False,
    ).set_output(transform="pandas")
    # One thread: on two busy cores LightGBM's OpenMP threads mostly wait for
    # each other, and a single thread is several times faster.
    ranker = lgb.LGBMRanker(
        n_estimators=60 if quick else 150,
        learning_rate=0.05,
        max_bin=63,
        min_child_samples=20,
        n_jobs=1,
        random_state=random_state,
        verbose=-1,
    )
    model = QueryRanker(Pipeline([("drop_ids", drop_ids), ("rank", ranker)]))
    if quick:
        grid = {"estimator__rank__num_leaves": [7, 15]}
    else:
        grid = {
            "estimator__rank__num_leaves": [3, 7, 31],
            "estimator__rank__min_child_samples": [50, 200],
        }
    return GridSearchCV(
        model,
        grid,
        scoring=make_ranking_scorer(list(METRICS)),
        refit=REFIT,
        cv=cv,
        error_score="raise",
    )


def baseline_scores(X, random_state):
    """Scores of every baseline on the rows of ``X`` (dict name -> array)."""
    rng = np.random.default_rng(random_state)
    out = {}
    for name, column in BASELINES.items():
        if column is None:
            out[name] = rng.random(len(X))
        else:
            out[name] = X[column].to_numpy(dtype=np.float64)
    return out


def fold_table(search, cv, X, y, random_state):
    """Per-fold scores of every model on the CV test folds (long format).

    The tuned ranker's numbers are those GridSearchCV recorded for the
    chosen parameters; the baselines are scored on the same test rows.
    """
    rows = []
    best = search.best_index_
    res = search.cv_results_
    qid = X["qid"].to_numpy()
    for fold, (_, test) in enumerate(cv.split(X)):
        for name, score in baseline_scores(X.iloc[test], random_state + fold).items():
            values = grouped_ranking_scores(y[test], score, qid[test], list(METRICS))
            rows += [(name, fold, m, v) for m, v in values.items()]
        for m in METRICS:
            rows.append((RANKER, fold, m, float(res[f"split{fold}_test_{m}"][best])))
    return pd.DataFrame(rows, columns=["model", "fold", "metric", "value"])


def holdout_scores(search, X, y, random_state):
    """Scores on the hold-out for every model: dict name -> score array."""
    scores = baseline_scores(X, random_state + 1000)
    scores[RANKER] = np.asarray(search.best_estimator_.predict(X), dtype=np.float64)
    return scores


def per_query(scores, X, y, ks=range(1, 21)):
    """ranking_report of every model: one row per hold-out query."""
    metrics = list(dict.fromkeys([*METRICS, *(f"ndcg@{k}" for k in ks)]))
    qid = X["qid"].to_numpy()
    return {
        name: ranking_report(y, s, qid, metrics=metrics) for name, s in scores.items()
    }
