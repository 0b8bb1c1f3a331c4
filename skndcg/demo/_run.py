"""The demo end to end: data, protocol, tuning, hold-out, intervals, files."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

from ..utils._args import as_path, check_flags
from ..utils._atomic import atomic_write, safe_target
from ..utils._counts import check_integer
from . import DEFAULT_OUT, _data, _estimates, _full, _plots, _protocols, _report
from ._intervals import CONFIDENCE, N_RESAMPLES, holdout_lines, metric_curves
from ._models import (
    BASELINES,
    CURVE_KS,
    RANKER,
    REFIT,
    fold_table,
    holdout_scores,
    search_summary,
    tune,
)
from ._protocols import PROTOCOLS
from ._two_stage import full_mode

SAMPLED = ("uniform", "popularity")
MODES = ("full", *SAMPLED)


def _progress(stream):
    """A function printing one timestamped line per step."""
    t0 = time.perf_counter()

    def say(message):
        print(f"[{time.perf_counter() - t0:6.1f}s] {message}", file=stream, flush=True)

    return say


def _check_options(out, negatives, n_negatives, min_history, seed, protocol):
    if negatives not in (*MODES, "both"):
        raise ValueError(
            "--candidates must be 'full', 'uniform', 'popularity' or 'both', got "
            f"{negatives!r}."
        )
    if protocol not in PROTOCOLS:
        raise ValueError(
            f"--protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}."
        )
    check_integer("--n-negatives", n_negatives, 1)
    check_integer("--min-history", min_history, 0)
    check_integer("--seed", seed, 0)  # (an int: the demo adds to it)
    out = Path(as_path(out, "--out"))
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a directory.")
    return out, list(SAMPLED) if negatives == "both" else [negatives]


def _task(ratings, mode, args, cut, say, label):
    """The sampled task of ``mode`` (uniform for ``full``), split by the protocol."""
    from ..datasets import make_ranking_task

    n_neg = args["n_negatives"]
    X, y = make_ranking_task(
        ratings,
        window="M",
        n_negatives=n_neg,
        negatives=mode,
        min_history=args["min_history"],
        random_state=args["random_state"],
    )
    (X_dev, y_dev), (X_hold, y_hold) = _protocols.split(args["protocol"], X, y, cut)
    n_dev, n_hold = X_dev["qid"].nunique(), X_hold["qid"].nunique()
    _protocols.check_sizes(
        n_dev,
        n_hold,
        args["protocol"],
        f" (user x month with at least {args['min_history']} earlier ratings, an "
        f"item known before the month and {n_neg} possible negatives)",
    )
    first = X.groupby("qid")["user_log_ratings"].first()
    say(
        f"{label} task: {X['qid'].nunique():,} queries, {len(X):,} "
        f"rows ({int((y > 0).sum()):,} rated, {int((y == 0).sum()):,} sampled); "
        f"hold-out: {n_hold:,} queries of {X_hold['user_id'].nunique():,} users, "
        f"tuning: {n_dev:,}; {int((first == 0).sum()):,} queries are users "
        "without a past (only item features can help there)"
    )
    return (X_dev, y_dev), (X_hold, y_hold)


def _one_mode(ratings, mode, args, cut, say, stream):
    """Build the task with one sampling mode, tune, evaluate; returns outputs."""
    n_neg, seed = args["n_negatives"], args["random_state"]
    label = f"[{mode}, N={n_neg}]"
    (X_dev, y_dev), (X_hold, y_hold) = _task(ratings, mode, args, cut, say, label)
    search, cv = tune(X_dev, y_dev, args, say, label)
    folds = fold_table(search, cv, X_dev, y_dev, seed)
    params, (strongest, strongest_cv) = search_summary(search, folds, say, label)
    scores, reports = holdout_scores(search, X_hold, y_hold, seed)
    n_pairs = _full.n_pairs(ratings, X_hold)
    full = None
    if n_pairs <= _full.AFFORDABLE_PAIRS:
        full = _full.full_holdout(
            ratings, X_hold, y_hold, search.best_estimator_, seed, args["cache"]
        )
        say(f"{label} full catalogue: {n_pairs:,} (query, item) pairs scored per model")
    else:
        say(
            f"{label} full catalogue skipped: {n_pairs:,} (query, item) pairs "
            f"per model, more than {_full.AFFORDABLE_PAIRS:,} "
            "(--candidates full ranks the catalogue)"
        )
    by_query = X_hold.groupby("qid")
    past = (by_query["user_log_ratings"].first() > 0).reindex(reports[RANKER]["qid"])
    users = by_query["user_id"].first().to_dict()
    holdout, lines = holdout_lines(reports, users, past, strongest, seed)
    models = [*BASELINES, RANKER]
    n_users = X_hold.loc[X_hold["qid"].isin(reports[RANKER]["qid"]), "user_id"]
    title = (
        f"{_title(mode, n_neg)}: hold-out of {len(reports[RANKER]):,} queries "
        f"({n_users.nunique():,} users), --protocol {args['protocol']}"
    )
    pool = _estimates.pools(ratings, X_hold)
    per_item = _estimates.estimates(scores, X_hold, y_hold, pool, mode)
    if full is not None:
        per_item = pd.concat([per_item, _full.per_item_full(full)], ignore_index=True)
    order_lines = _estimates.orders(per_item)
    head = _report.headline(holdout, strongest, strongest_cv)
    params = f"chosen parameters: {params}"
    table = _report.results_table(folds, holdout, models)
    print("", title, table, *lines, head, params, "", sep="\n", file=stream)
    table = _estimates.text_table(per_item, models)
    with_full = (
        "; full: each rated item ranked among the whole pool, the number they estimate"
        if full is not None
        else ""
    )
    heading = (
        f"{_title(mode, n_neg)}: {_estimates.SPLIT} (each rated item "
        "ranked among the sampled negatives alone), raw and corrected for "
        f"sampling (adjusted, bv with lambda = {_estimates.BV_LAMBDA}), "
        f"estimating the metric against the whole pool{with_full}"
    )
    print(heading, table, *order_lines, "", sep="\n", file=stream)
    section = (
        title,
        _report.results_table(folds, holdout, models, markdown=True),
        [head, *lines, params, *order_lines],
    )
    results = _report.long_results(folds, holdout, negatives=mode, n_negatives=n_neg)
    results["protocol"] = f"sampled: {mode} negatives, N={n_neg}"
    per_item_rows = per_item.assign(
        split=_estimates.SPLIT, negatives=mode, n_negatives=n_neg
    ).reindex(columns=_report.COLUMNS)
    per_item_rows["protocol"] = [
        "full catalogue: each rated item among every eligible item"
        if e == "full"
        else f"sampled: {mode} negatives, N={n_neg}, per rated item"
        for e in per_item_rows["estimate"]
    ]
    results = pd.concat([results, per_item_rows], ignore_index=True)
    fold_data = (cv, X_dev, X_hold)  # for the fold plot
    return dict(results=results, section=section, reports=reports, fold_data=fold_data)


def _title(mode, n_neg):
    return f"{mode} negatives, N = {n_neg}"


def run_demo(
    *,
    data=None,
    fetch=None,
    out=DEFAULT_OUT,
    quick=False,
    max_ratings=200_000,
    negatives="full",
    n_negatives=50,
    min_history=0,
    random_state=0,
    protocol="global-time",
    stream=None,
):
    """Run the demo end to end; returns the long results table.

    Raises ``ValueError`` / ``OSError`` for unusable input (bad path or
    format, too little data); the command line turns them into one-line
    errors.
    """
    stream = sys.stdout if stream is None else stream
    say = _progress(stream)
    check_flags(quick=quick)
    out, modes = _check_options(
        out, negatives, n_negatives, min_history, random_state, protocol
    )
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
    say(_protocols.describe(protocol, cut, share))
    args = {
        "cache": {},  # the baselines' full-catalogue rows, the same in every mode
        "protocol": protocol,
        "n_negatives": n_negatives,
        "min_history": min_history,
        "random_state": random_state,
        "quick": quick,
    }
    runs = {
        m: full_mode(ratings, args, cut, say, stream)
        if m == "full"
        else _one_mode(ratings, m, args, cut, say, stream)
        for m in modes
    }

    out.mkdir(parents=True, exist_ok=True)
    results = pd.concat([r["results"] for r in runs.values()], ignore_index=True)
    with atomic_write(out / "results.csv", newline="") as fh:
        results.to_csv(fh, index=False)
    summary = [
        f"Data: {source}, {len(ratings):,} ratings; "
        f"{_protocols.describe(protocol, cut, share)}. Queries: user x month, "
        f"users with at least {min_history} earlier ratings; candidates: items "
        f"rated before the month; {n_negatives} sampled negatives per query (full: "
        "every eligible item).",
        f"Folds: {REFIT} on the protocol's CV test folds. Hold-out: 95% percentile "
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
                CURVE_KS,
                ranker=RANKER,
                n_resamples=N_RESAMPLES,
                confidence=CONFIDENCE,
                random_state=random_state,
            )
            name = f"ndcg_at_k_{mode}.png"
            _plots.plot_ndcg_at_k(
                curves,
                out / name,
                _plots.ndcg_title(source, mode, n_negatives, len(r["reports"][RANKER])),
            )
            written.append(name)
        cv, X_dev, X_hold = next(iter(runs.values()))["fold_data"]
        _plots.plot_folds(
            _plots.fold_roles(cv, X_dev, X_hold),
            out / "cv_folds.png",
            f"{protocol} folds and hold-out (queries per month)\n{source}",
        )
        written.append("cv_folds.png")
    except ImportError:
        say("matplotlib is not installed: plots skipped (pip install skndcg[plot])")
    say(f"wrote {', '.join(written)} to {out}/")
    return results
