"""The default demo: a two-stage recommender selected on the whole catalogue.

One :class:`skndcg.recommend.HistoryFeatures` builds the training rows, the
tuning folds' rankings and the hold-out's from each query's past; the
reranker is tuned with :func:`skndcg.recommend.make_catalogue_scorer`
(``candidates="stage"``), every baseline ranks the catalogue by one feature.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..recommend import (
    FeatureColumnRanker,
    HistoryFeatures,
    catalogue_report,
    make_catalogue_scorer,
)
from . import _models, _protocols, _report
from ._intervals import holdout_lines
from ._models import (
    METRIC_OPTIONS,
    METRICS,
    RANDOM_EXPECTED,
    RANKER,
    REFIT,
    REPORT_METRICS,
    search_summary,
)
from ._stage import KNNPlusRecentStage

#: The candidate stage, as the baseline that ranks by it alone.
STAGE = "stage: item kNN + recent popularity"
#: Half-life (days) of the stage's popularity half.
STAGE_HALF_LIFE = 180.0
#: Baseline name -> (feature column, lower is better, tie-break column).
BASELINES = {
    RANDOM_EXPECTED: ("constant", False, None),
    "popularity": ("pop_log", False, None),
    "popularity (7 days)": ("pop_short", False, None),
    "popularity (30 days)": ("pop_long", False, None),
    "popularity (time-decayed)": ("pop_decay", False, None),
    "item kNN": ("cooc", False, "pop_log"),
    STAGE: ("stage_rank", True, None),
}
KEY = f"stage_{REFIT}"
PROTOCOL_RANKER = "full catalogue: the stage's top {n} reranked, the rest below"
PROTOCOL_BASELINE = "full catalogue: every eligible item ranked"


def builder(ratings, quick):
    """The one candidate and feature builder of the run."""
    # At most half the catalogue: a stage proposing every item selects nothing.
    n = min(100 if quick else 200, max(1, ratings["item_id"].nunique() // 2))
    stage = KNNPlusRecentStage(half_life_days=STAGE_HALF_LIFE)
    return HistoryFeatures(stage, n_candidates=n).fit(ratings)


def task(build, protocol, cut, min_history):
    """Training rows of every query, split into tuning and hold-out queries."""
    X, y = build.task()
    if min_history:
        keep = build.queries_.set_index("qid")["n_history"] >= min_history
        rows = keep.reindex(X["qid"]).to_numpy()
        X, y = X[rows].reset_index(drop=True), y[rows]
    return _protocols.split(protocol, X, y, cut)


class _Constant(FeatureColumnRanker):
    """Every item scores 0: ties averaged, the exact mean over random orders."""

    def predict(self, X):
        return np.zeros(len(X))


def _baseline(name):
    column, ascending, tie_break = BASELINES[name]
    if column == "constant":
        return _Constant("user_id")
    return FeatureColumnRanker(column, ascending=ascending, tie_break=tie_break)


def tune(build, X_dev, y_dev, args, say):
    """GridSearchCV of the reranker, scored on the catalogue per fold."""

    def adapt(search):
        # Slower learning, more trees: the catalogue rows are many and alike.
        search.estimator.set_params(
            estimator__rank__n_estimators=80 if args["quick"] else 150,
            estimator__rank__learning_rate=0.05,
        )
        search.param_grid = {"estimator__rank__num_leaves": [7, 15]}
        search.scoring = make_catalogue_scorer(
            build, list(METRICS), candidates="stage", **METRIC_OPTIONS
        )
        search.refit = KEY

    return _models.tune(X_dev, y_dev, args, say, "[full catalogue]", adapt)


def fold_table(build, search, cv, X_dev):
    """REFIT per fold: the ranker's from the search, the baselines' on the
    same validation queries (each ranking every eligible item)."""
    rows, res, best = [], search.cv_results_, search.best_index_
    qid = X_dev["qid"].to_numpy()
    for fold, (_, test) in enumerate(cv.split(X_dev)):
        qids = pd.unique(qid[test])
        for name in BASELINES:
            rep = catalogue_report(
                _baseline(name), build, qids, metrics=list(METRICS), **METRIC_OPTIONS
            )
            rows += [(name, fold, m, float(rep[m].mean())) for m in METRICS]
        for m in METRICS:
            value = float(res[f"split{fold}_test_stage_{m}"][best])
            rows.append((RANKER, fold, m, value))
    return pd.DataFrame(rows, columns=["model", "fold", "metric", "value"])


def holdout_reports(build, estimator, qids):
    """Per-query reports of every model on the hold-out queries."""
    options = {"metrics": REPORT_METRICS, **METRIC_OPTIONS}
    reports = {
        name: catalogue_report(_baseline(name), build, qids, **options)
        for name in BASELINES
    }
    reports[RANKER] = catalogue_report(
        estimator, build, qids, candidates="stage", **options
    )
    return reports


def _row_protocols(results, n):
    """The protocol of every row of results.csv."""
    ranker = PROTOCOL_RANKER.format(n=n)
    out = []
    for model in results["model"]:
        if model == RANKER:
            out.append(ranker)
        elif model.startswith(f"{RANKER} - "):
            out.append(f"paired: {ranker} vs {PROTOCOL_BASELINE}")
        else:
            out.append(PROTOCOL_BASELINE)
    return out


def full_mode(ratings, args, cut, say, stream):
    """Tune the two-stage ranker, evaluate and print; a sampled mode's outputs."""
    build = builder(ratings, args["quick"])
    n = build.n_candidates
    (X_dev, y_dev), (X_hold, _) = task(
        build, args["protocol"], cut, args["min_history"]
    )
    dev_q, hold_q = X_dev["qid"].unique(), X_hold["qid"].unique()
    _protocols.check_sizes(dev_q.size, hold_q.size, args["protocol"])
    queries = build.queries_.set_index("qid")
    say(
        f"[full catalogue] {len(queries):,} queries (user x month with an eligible "
        f"item); training rows: the stage's top {n} per query, "
        f"{len(X_dev):,} rows ({int((y_dev > 0).sum()):,} rated); hold-out: "
        f"{hold_q.size:,} queries, tuning: {dev_q.size:,}"
    )
    search, cv = tune(build, X_dev, y_dev, args, say)
    folds = fold_table(build, search, cv, X_dev)
    params, (strongest, strongest_cv) = search_summary(
        search, folds, say, "[full catalogue]"
    )
    reports = holdout_reports(build, search.best_estimator_, hold_q)
    recall = float(build.stage_recall(hold_q).mean())
    users = queries["user_id"].to_dict()
    qids = reports[RANKER]["qid"]
    past = pd.Series((queries["n_history"] > 0).to_dict()).reindex(qids.to_numpy())
    holdout, lines = holdout_lines(
        reports, users, past, strongest, args["random_state"]
    )
    models = [*BASELINES, RANKER]
    title = (
        f"full catalogue: hold-out of {len(qids):,} queries "
        f"({len({users[q] for q in qids}):,} users), --protocol {args['protocol']}"
    )
    explain = (
        f"(every eligible item ranked for every query; the ranker reranks the "
        f"stage's top {n} (item kNN interleaved with popularity of {STAGE_HALF_LIFE:g}"
        "-day half-life) and every other item ranks below them; tuned by "
        "GridSearchCV on the same full-catalogue ranking of each fold)"
    )
    ceiling = (
        f"candidate stage: item kNN + recent popularity, top {n}: recall@{n} "
        f"{recall:.3f} of the hold-out's rated items, the reranker's ceiling"
    )
    head = _report.headline(holdout, strongest, strongest_cv)
    params = f"chosen parameters: {params}"
    table = _report.results_table(folds, holdout, models)
    print("", title, explain, table, *lines, sep="\n", file=stream)
    print(head, ceiling, params, "", sep="\n", file=stream)
    section = (
        title,
        _report.results_table(folds, holdout, models, markdown=True),
        [head, ceiling, *lines, params],
    )
    results = _report.long_results(folds, holdout, negatives="full", n_negatives=n)
    results["estimate"] = "full"
    results["protocol"] = _row_protocols(results, n)
    fold_data = (cv, X_dev, X_hold)  # for the fold plot
    return dict(results=results, section=section, reports=reports, fold_data=fold_data)
