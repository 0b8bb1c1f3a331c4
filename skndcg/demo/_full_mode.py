"""The default run printed and recorded: the two-stage ranker on the catalogue."""

from __future__ import annotations

import pandas as pd

from . import _report, _two_stage
from ._intervals import holdout_lines
from ._models import RANKER


def _protocols(results, n):
    """The protocol of every row of results.csv."""
    ranker = _two_stage.PROTOCOL_RANKER.format(n=n)
    out = []
    for model in results["model"]:
        if model == RANKER:
            out.append(ranker)
        elif model.startswith(f"{RANKER} - "):
            out.append(f"paired: {ranker} vs {_two_stage.PROTOCOL_BASELINE}")
        else:
            out.append(_two_stage.PROTOCOL_BASELINE)
    return out


def full_mode(ratings, args, cut, say, stream):
    """Tune, evaluate, print; the same outputs as a sampled mode's run."""
    run = _two_stage.run(ratings, args, cut, say, stream)
    reports, seed = run["reports"], args["random_state"]
    n_boot = 300 if args["quick"] else 1000
    strongest, strongest_cv = run["strongest"]
    qids = reports[RANKER]["qid"]
    holdout, lines = holdout_lines(
        reports,
        run["users"],
        pd.Series(run["has_past"]).reindex(qids.to_numpy()),
        strongest,
        n_resamples=n_boot,
        random_state=seed,
    )
    models = [*_two_stage.BASELINES, RANKER]
    n_hold = len(qids)
    n_users = len({run["users"][q] for q in qids})
    n, recall = run["recall"]
    title = (
        f"full catalogue: hold-out of {n_hold:,} queries ({n_users:,} users), "
        f"--protocol {args['protocol']}"
    )
    explain = (
        f"(every eligible item ranked for every query; the ranker reranks the "
        f"stage's top {n} (item kNN interleaved with popularity of "
        f"{_two_stage.STAGE_HALF_LIFE:g}-day half-life) and every other item ranks "
        f"below them; tuned "
        f"by GridSearchCV on the same full-catalogue ranking of each fold)"
    )
    ceiling = (
        f"candidate stage: item kNN + recent popularity, top {n}: recall@{n} "
        f"{recall:.3f} of the "
        "hold-out's rated items, the reranker's ceiling"
    )
    head = _report.headline(holdout, strongest, strongest_cv)
    params = f"chosen parameters: {run['params']}"
    folds = run["folds"]
    print("", file=stream)
    for line in (
        title,
        explain,
        _report.results_table(folds, holdout, models),
        *lines,
        head,
        ceiling,
        params,
        "",
    ):
        print(line, file=stream)
    section = (
        title,
        _report.results_table(folds, holdout, models, markdown=True),
        [head, ceiling, *lines, params],
    )
    results = _report.long_results(folds, holdout, negatives="full", n_negatives=n)
    results["estimate"] = "full"
    results["protocol"] = _protocols(results, n)
    return {
        "results": results,
        "section": section,
        "reports": reports,
        "n_hold": n_hold,
        "fold_data": run["fold_data"],
        "n_boot": n_boot,
    }
