"""The demo end to end: data, protocol, tuning, hold-out, intervals, files."""

from __future__ import annotations

import sys
import time
from numbers import Integral
from pathlib import Path

import pandas as pd

from ..utils._atomic import atomic_write, safe_target
from . import DEFAULT_OUT, _data, _estimates, _plots, _report
from ._intervals import holdout_intervals, metric_curves, segment_lines
from ._models import (
    BASELINES,
    METRICS,
    RANKER,
    REFIT,
    ProgressScorer,
    build_search,
    fold_table,
    holdout_scores,
    per_query,
    rating_codes,
    strongest_baseline,
)

MODES = ("uniform", "popularity")
_MIN_QUERIES = 40
_CONFIDENCE = 0.95


class _Progress:
    """Print one timestamped line per step."""

    def __init__(self, stream):
        self.stream = stream
        self.t0 = time.perf_counter()

    def __call__(self, message):
        elapsed = time.perf_counter() - self.t0
        print(f"[{elapsed:6.1f}s] {message}", file=self.stream, flush=True)


def _check_options(out, negatives, n_negatives, min_history):
    if negatives not in (*MODES, "both"):
        raise ValueError(
            f"--negatives must be 'uniform', 'popularity' or 'both', got {negatives!r}."
        )
    for name, value, least in (
        ("--n-negatives", n_negatives, 1),
        ("--min-history", min_history, 0),
    ):
        if not isinstance(value, Integral) or isinstance(value, bool) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}.")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a directory.")
    return out, list(MODES) if negatives == "both" else [negatives]


def _split(X, y, cut):
    hold = (X["window_start"] >= cut).to_numpy()
    dev = X[~hold].reset_index(drop=True), y[~hold]
    return dev, (X[hold].reset_index(drop=True), y[hold])


def _users_of(X):
    """Query id -> user id."""
    return X.groupby("qid")["user_id"].first().to_dict()


def _one_mode(ratings, mode, args, cut, say, stream):
    """Build the task with one sampling mode, tune, evaluate; returns outputs."""
    from ..datasets import make_ranking_task
    from ..model_selection import GroupTimeSeriesSplit

    n_neg, seed = args["n_negatives"], args["random_state"]
    X, y = make_ranking_task(
        ratings,
        window="M",
        n_negatives=n_neg,
        negatives=mode,
        min_history=args["min_history"],
        random_state=seed,
    )
    (X_dev, y_dev), (X_hold, y_hold) = _split(X, y, cut)
    n_dev, n_hold = X_dev["qid"].nunique(), X_hold["qid"].nunique()
    if min(n_dev, n_hold) < _MIN_QUERIES:
        raise ValueError(
            f"the data make only {n_dev} queries before {cut:%Y-%m} and {n_hold} "
            f"from then on (user x month with at least {args['min_history']} "
            f"earlier ratings, an item known before the month and {n_neg} "
            f"possible negatives); the demo needs at least {_MIN_QUERIES} of each."
        )
    n_users = X_hold["user_id"].nunique()
    first = X.groupby("qid")["user_log_ratings"].first()
    n_new = int((first == 0).sum())
    say(
        f"[{mode}, N={n_neg}] task: {X['qid'].nunique():,} queries, {len(X):,} "
        f"rows ({int((y > 0).sum()):,} rated, {int((y == 0).sum()):,} sampled); "
        f"hold-out: {n_hold:,} queries of {n_users:,} users, tuning: {n_dev:,}; "
        f"{n_new:,} queries are users without a past (only item features can "
        "help there)"
    )
    codes_dev, label_gain = rating_codes(y_dev)
    group = {"group_col": "qid", "time_col": "window_start"}
    cv = GroupTimeSeriesSplit(n_splits=2 if args["quick"] else 3, **group)
    search = build_search(cv, label_gain, quick=args["quick"], random_state=seed)
    search.scoring = ProgressScorer(
        search.scoring, say, f"[{mode}, N={n_neg}]", search.param_grid, cv.n_splits
    )
    # LightGBM takes integer labels: codes 2 x rating with label_gain[c] = c / 2,
    # so the training gain is the rating, the gain the metrics report.
    search.fit(X_dev, codes_dev)
    params = {k.rsplit("__", 1)[-1]: v for k, v in search.best_params_.items()}
    folds = fold_table(search, cv, X_dev, y_dev, seed)
    strongest, strongest_cv = strongest_baseline(folds)
    say(
        f"[{mode}, N={n_neg}] grid search: "
        + ", ".join(f"{k}={v}" for k, v in params.items())
        + f" (CV {REFIT} {search.best_score_:.3f}); strongest baseline on the "
        f"tuning folds: {strongest} ({strongest_cv:.3f})"
    )
    scores = holdout_scores(search, X_hold, seed)
    reports = per_query(scores, X_hold, y_hold)
    n_boot = 300 if args["quick"] else 1000
    holdout = holdout_intervals(
        reports,
        _users_of(X_hold),
        metrics=list(METRICS),
        ranker=RANKER,
        n_resamples=n_boot,
        confidence=_CONFIDENCE,
        random_state=seed,
    )
    models = [*BASELINES, RANKER]
    title = (
        f"{mode} negatives, N = {n_neg}: hold-out of {n_hold:,} queries "
        f"({n_users:,} users)"
    )
    per_item = _estimates.estimates(
        scores, X_hold, y_hold, _estimates.pools(ratings, X_hold), mode
    )
    order_lines = _estimates.orders(per_item)
    lines = _report.comparison_lines(holdout, strongest)
    # Users without a past (cold users) as a segment of their own.
    past = X_hold.groupby("qid")["user_log_ratings"].first() > 0
    segment = past.map({True: "users with a past", False: "users without a past"})
    lines += segment_lines(
        reports, segment, metric=REFIT, ranker=RANKER, n_resamples=n_boot,
        confidence=_CONFIDENCE, random_state=seed,
    )  # fmt: skip
    head = _report.headline(holdout, strongest, strongest_cv)
    print("", file=stream)
    print(title, file=stream)
    print(_report.results_table(folds, holdout, models), file=stream)
    for line in lines:
        print(line, file=stream)
    print(head, file=stream)
    print(f"chosen parameters: {params}", file=stream)
    print("", file=stream)
    print(
        f"{mode} negatives, N = {n_neg}: {_estimates.SPLIT} (each rated item "
        "ranked among the sampled negatives alone), raw and corrected for "
        "sampling (adjusted, bv with lambda = "
        f"{_estimates.BV_LAMBDA}), estimating the metric against the whole pool",
        file=stream,
    )
    print(_estimates.text_table(per_item, models), file=stream)
    for line in order_lines:
        print(line, file=stream)
    print("", file=stream)
    section = (
        title,
        _report.results_table(folds, holdout, models, markdown=True),
        [head, *lines, f"chosen parameters: {params}", *order_lines],
    )
    results = _report.long_results(folds, holdout, negatives=mode, n_negatives=n_neg)
    per_item_rows = per_item.assign(
        split=_estimates.SPLIT, negatives=mode, n_negatives=n_neg
    ).reindex(columns=_report.COLUMNS)
    results = pd.concat([results, per_item_rows], ignore_index=True)
    return {
        "results": results,
        "section": section,
        "reports": reports,
        "n_hold": n_hold,
        "fold_data": (cv, X_dev, X_hold),
        "n_boot": n_boot,
    }


def run_demo(
    *,
    data=None,
    fetch=None,
    out=DEFAULT_OUT,
    quick=False,
    max_ratings=200_000,
    negatives="both",
    n_negatives=50,
    min_history=0,
    random_state=0,
    stream=None,
):
    """Run the demo end to end; returns the long results table.

    Raises ``ValueError`` / ``OSError`` for unusable input (bad path or
    format, too little data); the command line turns them into one-line
    errors.
    """
    stream = sys.stdout if stream is None else stream
    say = _Progress(stream)
    out, modes = _check_options(out, negatives, n_negatives, min_history)
    planned = ["results.csv", "results.md", "cv_folds.png"]
    for name in planned + [f"ndcg_at_k_{m}.png" for m in modes]:
        safe_target(out / name)  # a link out of --out: refused before the work

    ratings, source = _data.load(data, fetch, quick, random_state)
    n_all = len(ratings)
    ratings = _data.cap_users(ratings, max_ratings, random_state)
    capped = (
        "" if len(ratings) == n_all else f" (a random subset of users of {n_all:,})"
    )
    n_users, n_items = ratings["user_id"].nunique(), ratings["item_id"].nunique()
    say(
        f"data: {source}: {len(ratings):,} ratings{capped}, "
        f"{n_users:,} users, {n_items:,} items"
    )
    cold = _data.cold_ratings(ratings)
    say(
        f"candidates: items rated before the query's month; {int(cold.sum()):,} "
        f"ratings ({cold.mean():.1%}) are of items nobody had rated before their "
        "month and are dropped as positives"
    )
    cut, share = _data.holdout_cut(ratings)
    say(
        f"hold-out: queries from {cut:%Y-%m} on, the month boundary nearest the 80% "
        f"point of the time span ({share:.1%} of the span is held out)"
    )
    args = {
        "n_negatives": n_negatives,
        "min_history": min_history,
        "random_state": random_state,
        "quick": quick,
    }
    runs = {m: _one_mode(ratings, m, args, cut, say, stream) for m in modes}

    out.mkdir(parents=True, exist_ok=True)
    results = pd.concat([r["results"] for r in runs.values()], ignore_index=True)
    with atomic_write(out / "results.csv", newline="") as fh:
        results.to_csv(fh, index=False)
    summary = [
        f"Data: {source}, {len(ratings):,} ratings; hold-out from {cut:%Y-%m} "
        f"({share:.1%} of the time span). Queries: user x month, users with at "
        f"least {min_history} earlier ratings; candidates: items rated before "
        f"the month; {n_negatives} sampled negatives per query.",
        f"Folds: {REFIT} on time-ordered CV test folds. Hold-out: 95% percentile "
        "bootstrap intervals resampling queries and resampling users; "
        "map@10 divides by min(10, number of rated items).",
    ]
    _report.write_markdown(
        out / "results.md",
        summary=summary,
        sections=[r["section"] for r in runs.values()],
    )
    written = ["results.csv", "results.md"]
    try:
        for mode, r in runs.items():
            curves = metric_curves(
                r["reports"],
                range(1, 21),
                ranker=RANKER,
                n_resamples=r["n_boot"],
                confidence=_CONFIDENCE,
                random_state=random_state,
            )
            name = f"ndcg_at_k_{mode}.png"
            _plots.plot_ndcg_at_k(
                curves,
                out / name,
                _plots.ndcg_title(source, mode, n_negatives, r["n_hold"]),
            )
            written.append(name)
        cv, X_dev, X_hold = next(iter(runs.values()))["fold_data"]
        _plots.plot_folds(
            _plots.fold_roles(cv, X_dev, X_hold),
            out / "cv_folds.png",
            f"Time-ordered folds and hold-out (queries per month)\n{source}",
        )
        written.append("cv_folds.png")
    except ImportError:
        say("matplotlib is not installed: plots skipped (pip install skndcg[plot])")
    say(f"wrote {', '.join(written)} to {out}/")
    return results
