"""Hold-out intervals over queries and over users, and paired differences.

A query is one user in one month, so the queries of one user are not
independent draws: resampling whole users (a cluster bootstrap) gives the
interval for "other users like these", resampling queries the interval for
"other months of these users". Both come from
:func:`skndcg.evaluation.compare`.
"""

from __future__ import annotations

import warnings

import pandas as pd

from ..evaluation import SmallSampleWarning, compare
from ._models import METRICS, RANKER, REFIT
from ._report import comparison_lines, p_text

CONFIDENCE = 0.95
#: Resamples of every interval: enough for the Holm-corrected intervals of
#: all the demo's comparisons.
N_RESAMPLES = 1000


def holdout_intervals(
    reports, users, *, metrics, ranker, n_resamples, confidence, random_state
):
    """Every hold-out number with a query and a user interval.

    ``reports``: model name -> ranking_report on the same queries; ``users``:
    query id -> user. Rows per (model, metric), then per (``ranker -
    baseline``, metric): ``low``/``high`` resample queries, ``user_low``/
    ``user_high`` users; p-values (paired bootstrap over users) Holm-adjusted.
    """
    common = {
        "baseline": ranker,
        "metrics": list(metrics),
        "test": "paired_bootstrap",
        "correction": "holm",
        "confidence": confidence,
        "n_resamples": n_resamples,
        "random_state": random_state,
    }
    by_query = compare(reports, **common).to_frame()
    by_user = compare(reports, cluster=users, **common).to_frame()
    merged = by_query.merge(by_user, on=["model", "metric"], suffixes=("", "_user"))
    names = {"mean": "value", "low_user": "user_low", "high_user": "user_high"}
    values = merged.rename(columns=names)[
        ["model", "metric", "value", "low", "high", "user_low", "user_high"]
    ]
    # compare gives model - baseline; the demo reports ranker - model.
    pairs = merged[merged["model"] != ranker]
    diffs = pd.DataFrame(
        {
            "model": [f"{ranker} - {m}" for m in pairs["model"]],
            "metric": pairs["metric"].to_numpy(),
            "value": -pairs["diff"].to_numpy(),
            "low": -pairs["diff_high"].to_numpy(),
            "high": -pairs["diff_low"].to_numpy(),
            "user_low": -pairs["diff_high_user"].to_numpy(),
            "user_high": -pairs["diff_low_user"].to_numpy(),
            "p_value": pairs["p_value_user"].to_numpy(),
            "p_adjusted": pairs["p_adjusted_user"].to_numpy(),
        }
    )
    return pd.concat([values, diffs], ignore_index=True)


def metric_curves(reports, ks, *, ranker, n_resamples, confidence, random_state):
    """Comparison of NDCG@k for every k (means and query-bootstrap intervals)."""
    return compare(
        reports,
        baseline=ranker,
        metrics=[f"ndcg@{k}" for k in ks],
        correction=None,
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=random_state,
    )


def holdout_lines(reports, users, has_past, strongest, random_state):
    """The hold-out's intervals and the sentences on the ranker's gains.

    ``users`` maps a query id to its user, ``has_past`` (a Series) to whether
    that user rated anything before the query. Returns :func:`holdout_intervals`
    and one sentence per baseline, then per baseline within the users with and
    without a past (cold users) as segments of their own: their p-values are
    Holm-adjusted over every segment and baseline, and a segment too small for
    an interval says so.
    """
    options = {
        "n_resamples": N_RESAMPLES,
        "confidence": CONFIDENCE,
        "random_state": random_state,
    }
    holdout = holdout_intervals(
        reports, users, metrics=list(METRICS), ranker=RANKER, **options
    )
    segment = has_past.map({True: "users with a past", False: "users without a past"})
    lines = comparison_lines(holdout, strongest, N_RESAMPLES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        cmp = compare(
            reports,
            baseline=RANKER,
            metrics=[REFIT],
            by=segment,
            correction="holm",
            **options,
        )
    for r in cmp.to_frame(pairs=True).itertuples():
        interval = (
            f"[{-r.diff_high:+.3f}, {-r.diff_low:+.3f}]"
            if r.diff_low == r.diff_low
            else "no interval (too few queries)"
        )
        lines.append(
            f"{r.segment} ({r.n_queries} queries): {RANKER} - {r.model}: {REFIT} "
            f"{-r.diff:+.3f}, {interval}, "
            f"{p_text(r.p_value, r.p_adjusted, N_RESAMPLES)}"
        )
    return holdout, lines
