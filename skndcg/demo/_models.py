"""The demo's models: the tuned LightGBM ranker and the baselines."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.model_selection import ParameterGrid

from ..metrics import grouped_ranking_scores, make_ranking_scorer, ranking_report
from ._protocols import cv_splitter

METRICS = ("ndcg@5", "ndcg@10", "map@10")
#: AP@10 divided by min(10, R): the best ranking scores 1 whatever R.
METRIC_OPTIONS = {"ap_denominator": "min_k_relevant"}
REFIT = "ndcg@10"
RANKER = "LGBMRanker (tuned)"
RANDOM_EXPECTED = "random (expected)"
RANDOM_DRAW = "random (one draw)"
#: Baseline name -> feature column whose value is the score (None: random).
BASELINES = {
    RANDOM_EXPECTED: None,
    RANDOM_DRAW: None,
    "popularity": "item_log_ratings",
    "popularity (30 days)": "item_log_30d",
    "item mean": "item_mean_rating",
}
ID_COLUMNS = ["window_start", "user_id", "item_id"]
#: The cut-offs of the NDCG@k curves.
CURVE_KS = range(1, 21)
#: What every per-query hold-out report holds: the table's metrics and the curves'.
REPORT_METRICS = list(dict.fromkeys([*METRICS, *(f"ndcg@{k}" for k in CURVE_KS)]))
_STEPS = 2  # integer codes per rating point: half stars


def rating_codes(y):
    """Integer codes of half-star relevance labels and their linear gains.

    LightGBM's lambdarank only takes integer labels; ``label_gain[code]`` is
    the gain of a code. Coding a rating ``r`` as ``2 r`` with
    ``label_gain[c] = c / 2`` makes the training gain equal to the reported
    (linear) gain, the rating itself.
    """
    y = np.asarray(y, dtype=np.float64)
    codes = np.rint(y * _STEPS)
    bad = np.flatnonzero((codes != y * _STEPS) | (y < 0))
    if bad.size:
        raise ValueError(
            f"relevance label {float(y[bad[0]])!r} is not a non-negative multiple of "
            f"{1 / _STEPS}; the demo's ranker needs half-star ratings."
        )
    n_codes = int(codes.max(initial=0)) + 1
    return codes.astype(np.int64), [c / _STEPS for c in range(max(n_codes, 2))]


def build_search(cv, label_gain, *, quick, random_state):
    """GridSearchCV over QueryRanker(Pipeline([drop ids, LGBMRanker]))."""
    from sklearn.compose import ColumnTransformer
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline

    from ..ranker import QueryRanker

    try:
        import lightgbm as lgb
    except ImportError as exc:
        raise ImportError(
            "the demo's ranker needs LightGBM: pip install lightgbm (or, from "
            "a checkout of skndcg, pip install -e '.[lightgbm]')"
        ) from exc

    drop_ids = ColumnTransformer(
        [("ids", "drop", ID_COLUMNS)],
        remainder="passthrough",
        verbose_feature_names_out=False,
    ).set_output(transform="pandas")
    # One thread: on two busy cores LightGBM's OpenMP threads mostly wait for
    # each other, and a single thread is several times faster.
    ranker = lgb.LGBMRanker(
        n_estimators=40 if quick else 60,
        learning_rate=0.1,
        max_bin=63,
        min_child_samples=50,
        label_gain=label_gain,
        n_jobs=1,
        random_state=random_state,
        verbose=-1,
    )
    model = QueryRanker(Pipeline([("drop_ids", drop_ids), ("rank", ranker)]))
    # Two candidates keep both sampling modes within a minute on two cores.
    grid = {"estimator__rank__num_leaves": [7, 15] if quick else [7, 31]}
    return GridSearchCV(
        model,
        grid,
        scoring=make_ranking_scorer(list(METRICS), **METRIC_OPTIONS),
        refit=REFIT,
        cv=cv,
        error_score="raise",
    )


def tune(X_dev, y_dev, args, say, label, adapt=None):
    """Fit the search under the protocol's CV folds (``adapt(search)`` may
    change it first), printing each fold; returns the search and the folds."""
    codes, label_gain = rating_codes(y_dev)
    cv = cv_splitter(args["protocol"], X_dev, 2 if args["quick"] else 3)
    seed, quick = args["random_state"], args["quick"]
    search = build_search(cv, label_gain, quick=quick, random_state=seed)
    if adapt is not None:
        adapt(search)
    search.scoring = ProgressScorer(
        search.scoring, say, label, search.param_grid, cv.get_n_splits(), search.refit
    )
    # rating_codes: LightGBM's integer labels, whose gain is the rating.
    search.fit(X_dev, codes)
    return search, cv


def baseline_score(name, X, rng):
    """Scores of baseline ``name`` on the rows of ``X``.

    ``random (expected)`` gives every row the same score: with the metrics'
    ``ties="average"`` that is the exact expectation over random orders.
    """
    if name == RANDOM_EXPECTED:
        return np.zeros(len(X))
    if BASELINES[name] is None:
        return rng.random(len(X))
    return X[BASELINES[name]].to_numpy(dtype=np.float64)


def baseline_scores(X, random_state):
    """Scores of every baseline on the rows of ``X`` (dict name -> array)."""
    rng = np.random.default_rng(random_state)
    return {name: baseline_score(name, X, rng) for name in BASELINES}


def fold_table(search, cv, X, y, random_state):
    """Per-fold scores of every model on the CV test folds (long format).

    The tuned ranker's numbers are those GridSearchCV recorded for the
    chosen parameters (on the label codes: linear gain is scale-free, so they
    equal the scores on the ratings); the baselines are scored on the same
    test rows.
    """
    rows, res, best = [], search.cv_results_, search.best_index_
    qid = X["qid"].to_numpy()
    for fold, (_, test) in enumerate(cv.split(X)):
        for name, score in baseline_scores(X.iloc[test], random_state + fold).items():
            values = grouped_ranking_scores(
                y[test], score, qid[test], list(METRICS), **METRIC_OPTIONS
            )
            rows += [(name, fold, m, v) for m, v in values.items()]
        for m in METRICS:
            rows.append((RANKER, fold, m, float(res[f"split{fold}_test_{m}"][best])))
    return pd.DataFrame(rows, columns=["model", "fold", "metric", "value"])


def search_summary(search, folds, say, label):
    """The chosen parameters and the strongest baseline, said in one line.

    The strongest baseline has the best CV mean of REFIT (chosen before the
    hold-out). Returns the parameters (short names) and ``(name, CV mean)``.
    """
    params = {k.rsplit("__", 1)[-1]: v for k, v in search.best_params_.items()}
    cv = folds[(folds["metric"] == REFIT) & (folds["model"] != RANKER)]
    means = cv.groupby("model", sort=False)["value"].mean()
    strongest, strongest_cv = str(means.idxmax()), float(means.max())
    say(
        f"{label} grid search: "
        + ", ".join(f"{k}={v}" for k, v in params.items())
        + f" (CV {search.refit} {search.best_score_:.3f}); strongest baseline on the "
        f"tuning folds: {strongest} ({strongest_cv:.3f})"
    )
    return params, (strongest, strongest_cv)


def holdout_scores(search, X, y, random_state):
    """Every model's hold-out scores (name -> array) and ranking_report."""
    scores = baseline_scores(X, random_state + 1000)
    scores[RANKER] = np.asarray(search.best_estimator_.predict(X), dtype=np.float64)
    qid = X["qid"].to_numpy()
    return scores, {
        name: ranking_report(y, s, qid, metrics=REPORT_METRICS, **METRIC_OPTIONS)
        for name, s in scores.items()
    }


class ProgressScorer:
    """The search's scorer, printing each fold's candidate, parameters and ``key``
    score; everything else (routing requests, sample weights) is the inner
    scorer's."""

    def __init__(self, scorer, say, label, grid, n_splits, key):
        self.scorer, self.say, self.label, self.key = scorer, say, label, key
        self.keys, self.n_splits, self.done = list(grid), n_splits, 0
        self.n_candidates = len(ParameterGrid(grid))

    def __call__(self, estimator, X, y_true, **kwargs):
        scores = self.scorer(estimator, X, y_true, **kwargs)
        self.done += 1
        params = estimator.get_params()
        shown = ", ".join(f"{k.rsplit('__', 1)[-1]}={params[k]}" for k in self.keys)
        # GridSearchCV runs the folds of a candidate one after the other.
        candidate, fold = divmod(self.done - 1, self.n_splits)
        self.say(
            f"{self.label} grid search: candidate {candidate + 1}/"
            f"{self.n_candidates} ({shown}), fold {fold + 1}/{self.n_splits}: "
            f"{self.key} {scores[self.key]:.3f}"
        )
        return scores

    def __getattr__(self, name):
        return getattr(self.__dict__["scorer"], name)
