"""The demo: tune a LightGBM ranker on MovieLens-style data without leakage.

Pipeline: ratings -> one query per user and month (rated items plus sampled
unrated ones, features from earlier months only) -> the latest 20 % of the
queries held out -> ``GridSearchCV`` of ``QueryRanker(Pipeline([...,
LGBMRanker]))`` over time-ordered folds with three ranking metrics, refit on
NDCG@10 -> the chosen model and three baselines scored on the hold-out with
bootstrap intervals over queries.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from . import _demo_report as report
from ._demo_models import (
    BASELINES,
    METRICS,
    RANKER,
    REFIT,
    build_search,
    fold_table,
    holdout_scores,
    per_query,
)

DEFAULT_OUT = "skndcg_demo_output"
_MIN_QUERIES = 40


class _Progress:
    """Print one timestamped line per step."""

    def __init__(self, stream):
        self.stream = stream
        self.t0 = time.perf_counter()

    def __call__(self, message):
        elapsed = time.perf_counter() - self.t0
        print(f"[{elapsed:6.1f}s] {message}", file=self.stream, flush=True)


def _load(data, fetch, quick, random_state):
    """Ratings and a one-line description of where they come from."""
    from .datasets import fetch_movielens, load_movielens, make_movielens_like

    if data is not None:
        return load_movielens(data), f"MovieLens files at {data}"
    if fetch is not None:
        return fetch_movielens(fetch), f"MovieLens {fetch} (downloaded once, cached)"
    size = (300, 3000, 30_000) if quick else (600, 9000, 100_000)
    ratings = make_movielens_like(*size, random_state=random_state)
    return ratings, "built-in synthetic MovieLens-like ratings"


def _cap_users(ratings, max_ratings, random_state):
    """Keep a seeded random subset of users holding at most ``max_ratings``."""
    if not max_ratings or len(ratings) <= max_ratings:
        return ratings
    counts = ratings.groupby("user_id").size()
    rng = np.random.default_rng(random_state)
    order = counts.index.to_numpy()[rng.permutation(counts.size)]
    total = np.cumsum(counts.loc[order].to_numpy())
    keep = order[: max(1, int(np.searchsorted(total, max_ratings, side="right")))]
    return ratings[ratings["user_id"].isin(keep)].reset_index(drop=True)


def run_demo(
    *,
    data=None,
    fetch=None,
    out=DEFAULT_OUT,
    quick=False,
    max_ratings=200_000,
    random_state=0,
    stream=None,
):
    """Run the demo end to end; returns the long results table.

    Raises ``ValueError`` / ``OSError`` for unusable input (bad path or
    format, too little data); the command line turns them into one-line
    errors.
    """
    from .datasets import make_ranking_task
    from .model_selection import GroupTimeSeriesSplit

    stream = sys.stdout if stream is None else stream
    say = _Progress(stream)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a directory.")

    ratings, source = _load(data, fetch, quick, random_state)
    n_all = len(ratings)
    ratings = _cap_users(ratings, max_ratings, random_state)
    capped = (
        "" if len(ratings) == n_all else f" (a random subset of users of {n_all:,})"
    )
    n_users, n_items = ratings["user_id"].nunique(), ratings["item_id"].nunique()
    say(
        f"data: {source}: {len(ratings):,} ratings{capped}, "
        f"{n_users:,} users, {n_items:,} items"
    )

    X, y = make_ranking_task(
        ratings, window="M", n_negatives=50, min_history=5, random_state=random_state
    )
    n_queries = X["qid"].nunique()
    if n_queries < _MIN_QUERIES:
        raise ValueError(
            f"the data make only {n_queries} queries (user x month with at least 5 "
            f"earlier ratings); the demo needs at least {_MIN_QUERIES}."
        )
    say(
        f"task: {n_queries:,} queries (user x month), {len(X):,} candidate rows "
        f"({int((y > 0).sum()):,} rated, {int((y == 0).sum()):,} sampled unrated); "
        "features from earlier months only"
    )

    group = {"group_col": "qid", "time_col": "window_start"}
    outer = GroupTimeSeriesSplit(n_splits=1, test_size=0.2, **group)
    dev, hold = next(outer.split(X))
    X_dev, y_dev = X.iloc[dev].reset_index(drop=True), y[dev]
    X_hold, y_hold = X.iloc[hold].reset_index(drop=True), y[hold]
    cut = X_hold["window_start"].min()
    say(
        f"hold-out: the {X_hold['qid'].nunique():,} queries from {cut:%Y-%m} on; "
        f"tuning on the {X_dev['qid'].nunique():,} earlier ones"
    )

    cv = GroupTimeSeriesSplit(n_splits=2 if quick else 3, **group)
    search = build_search(cv, quick=quick, random_state=random_state)
    n_cand = int(np.prod([len(v) for v in search.param_grid.values()]))
    say(
        f"grid search: {n_cand} candidates x {cv.get_n_splits()} time-ordered folds, "
        f"scoring {', '.join(METRICS)}, refit on {REFIT} ..."
    )
    search.fit(X_dev, y_dev)
    params = {k.rsplit("__", 1)[-1]: v for k, v in search.best_params_.items()}
    say(
        "grid search done: best "
        + ", ".join(f"{k}={v}" for k, v in params.items())
        + f" (CV {REFIT} {search.best_score_:.3f})"
    )

    folds = fold_table(search, cv, X_dev, y_dev, random_state)
    scores = holdout_scores(search, X_hold, y_hold, random_state)
    reports = per_query(scores, X_hold, y_hold)
    n_boot = 300 if quick else 1000
    holdout = report.holdout_table(
        reports, n_resamples=n_boot, random_state=random_state
    )
    comp = report.comparisons(reports, n_resamples=n_boot, random_state=random_state)
    say(f"scored {len(scores)} models on the hold-out, {n_boot} bootstrap resamples")

    models = [*BASELINES, RANKER]
    table = report.results_table(folds, holdout, models)
    comp_lines = report.comparison_lines(comp)
    print("", file=stream)
    print(table, file=stream)
    print("", file=stream)
    for line in comp_lines:
        print(line, file=stream)
    print(f"chosen parameters: {params}", file=stream)
    print("", file=stream)

    out.mkdir(parents=True, exist_ok=True)
    results = report.long_results(folds, holdout)
    results.to_csv(out / "results.csv", index=False)
    summary = [
        f"Data: {source}, {len(ratings):,} ratings; {n_queries:,} queries "
        f"(user x month), hold-out from {cut:%Y-%m}.",
        f"Columns fold 0..{cv.get_n_splits() - 1} and CV mean: {REFIT} on the "
        "time-ordered CV test folds; hold-out: the refit model on later queries, "
        "95% percentile bootstrap interval over queries.",
    ]
    report.write_markdown(
        out / "results.md",
        summary=summary,
        table=report.results_table(folds, holdout, models, markdown=True),
        comp_lines=comp_lines,
        params=params,
    )
    written = ["results.csv", "results.md"]
    try:
        report.plot_ndcg_at_k(reports, out / "ndcg_at_k.png")
        report.plot_folds(cv, X_dev, out / "cv_folds.png")
        written += ["ndcg_at_k.png", "cv_folds.png"]
    except ImportError:
        say("matplotlib is not installed: plots skipped (pip install skndcg[plot])")
    say(f"wrote {', '.join(written)} to {out}/")
    return results
