"""Agreement table: each convention preset against the peer library it reproduces.

Runs the same seeded random cases as the agreement tests (interleaved queries of
1-10 rows, exact ties, float32-only ties, empty and one-row queries, k in
{1, 2, 3, 5, 10, 20, None}) and prints, per peer and metric, the largest absolute
difference between the peer's own number and skndcg's preset of that peer (its
``convention=``, named in the table). A peer that is not installed is skipped
with a word (torch and torchmetrics come with ``make test-peers``, the others
with ``make test``); the exit code is 1 if a peer that ran disagrees by more
than its tolerance.

    python benchmarks/agreement.py            # 100 cases per row (a few minutes)
    python benchmarks/agreement.py --cases 20
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from cases import random_case
from peers import (
    catboost_metric,
    lightgbm_metric,
    ranx_metric,
    sklearn_ndcg,
    torchmetrics_metric,
    trec_eval_metric,
    xgboost_metric,
)

from skndcg.metrics import (
    grouped_map_score,
    grouped_mrr_score,
    grouped_ndcg_score,
    grouped_precision_score,
)


def _at(k):
    return "" if k is None else f"@{k}"


def _no_negative_only_queries(y, q):
    for key in np.unique(q):
        rows = np.flatnonzero(q == key)
        if (y[rows] < 0).all():
            y[rows[0]] = 0
    return y


ROWS = [
    # (peer, metric as the peer names it, case options, peer call, skndcg call)
    (
        "scikit-learn",
        "ndcg_score",
        {},
        lambda y, s, q, k: sklearn_ndcg(y, s, q, k),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="sklearn"),
    ),
    (
        "LightGBM",
        "ndcg (label_gain 2^i-1)",
        {},
        lambda y, s, q, k: lightgbm_metric(y, s, q, "ndcg", k),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="lightgbm"),
    ),
    (
        "LightGBM",
        "ndcg (linear label_gain)",
        {},
        lambda y, s, q, k: lightgbm_metric(y, s, q, "ndcg", k, linear=True),
        lambda y, s, q, k: grouped_ndcg_score(
            y, s, q, k=k, convention="lightgbm", gain="linear"
        ),
    ),
    (
        "LightGBM",
        "map",
        {"labels": (0, 2)},
        lambda y, s, q, k: lightgbm_metric(y, s, q, "map", k),
        lambda y, s, q, k: grouped_map_score(y, s, q, k=k, convention="lightgbm"),
    ),
    (
        "XGBoost",
        "ndcg@k",
        {},
        lambda y, s, q, k: xgboost_metric(y, s, q, "ndcg" + _at(k)),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="xgboost"),
    ),
    (
        "XGBoost",
        "ndcg@k-",
        {},
        lambda y, s, q, k: xgboost_metric(y, s, q, "ndcg" + _at(k) + "-"),
        lambda y, s, q, k: grouped_ndcg_score(
            y, s, q, k=k, convention="xgboost", empty="zero"
        ),
    ),
    (
        "pytrec_eval",
        "ndcg_cut",
        {"labels": (-1, 4)},
        lambda y, s, q, k: trec_eval_metric(
            y, s, q, "ndcg" if k is None else f"ndcg_cut_{k}"
        ),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="pytrec_eval"),
    ),
    (
        "pytrec_eval",
        "map_cut_k",
        {"labels": (0, 3), "need_k": True},
        lambda y, s, q, k: trec_eval_metric(y, s, q, f"map_cut_{k}"),
        lambda y, s, q, k: grouped_map_score(y, s, q, k=k, convention="pytrec_eval"),
    ),
    (
        "pytrec_eval",
        "P_k",
        {"labels": (0, 3), "need_k": True},
        lambda y, s, q, k: trec_eval_metric(y, s, q, f"P_{k}"),
        lambda y, s, q, k: grouped_precision_score(
            y, s, q, k=k, convention="pytrec_eval"
        ),
    ),
    (
        "ranx",
        "ndcg",
        {"max_size": 30},
        lambda y, s, q, k: ranx_metric(y, s, q, "ndcg" + _at(k)),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="ranx"),
    ),
    (
        "ranx",
        "ndcg_burges",
        {"max_size": 30},
        lambda y, s, q, k: ranx_metric(y, s, q, "ndcg_burges" + _at(k)),
        lambda y, s, q, k: grouped_ndcg_score(
            y, s, q, k=k, convention="ranx", gain="exponential"
        ),
    ),
    (
        "ranx",
        "mrr",
        {"max_size": 20, "labels": (0, 3)},
        lambda y, s, q, k: ranx_metric(y, s, q, "mrr" + _at(k)),
        lambda y, s, q, k: grouped_mrr_score(y, s, q, k=k, convention="ranx"),
    ),
    (
        "CatBoost",
        "NDCG:top=k",
        {},
        lambda y, s, q, k: catboost_metric(
            y, s, q, "NDCG" if k is None else f"NDCG:top={k}"
        ),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="catboost"),
    ),
    (
        "torchmetrics",
        "RetrievalNormalizedDCG",
        {},
        lambda y, s, q, k: torchmetrics_metric(y, s, q, "ndcg", k),
        lambda y, s, q, k: grouped_ndcg_score(y, s, q, k=k, convention="torchmetrics"),
    ),
]


#: Largest difference that counts as agreement: float64 rounding, and
#: torchmetrics' float32 arithmetic.
TOLERANCE = {"torchmetrics": 1e-6}
DEFAULT_TOLERANCE = 1e-12


def _preset(ours):
    """The ``convention=`` a row's skndcg call names (read from its source)."""
    import inspect
    import re

    found = re.search(r'convention="(\w+)"', inspect.getsource(ours))
    return found.group(1) if found else "?"


def _row(peer, opts, theirs, ours, n_cases):
    """The largest difference over ``n_cases`` cases; ImportError if the peer
    (or what it needs) is not installed."""
    opts = dict(opts)
    need_k = opts.pop("need_k", False)
    worst = 0.0
    for seed in range(n_cases):
        y, s, q, k = random_case(seed, **opts)
        if need_k and k is None:
            k = 5
        y = _no_negative_only_queries(y, q)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = float(theirs(y, s, q, k)), float(ours(y, s, q, k))
        if np.isnan(want) and np.isnan(got):
            continue  # both undefined: they agree
        # NaN on one side only is a disagreement, never lost in max().
        diff = abs(want - got)
        worst = np.nan if np.isnan(diff) or np.isnan(worst) else max(worst, diff)
    return worst


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100)
    args = parser.parse_args(argv)
    print("| peer | metric | skndcg preset | cases | max abs difference |")
    print("|---|---|---|---|---|")
    failed = []
    for peer, metric, opts, theirs, ours in ROWS:
        preset = _preset(ours)
        try:
            worst = _row(peer, opts, theirs, ours, args.cases)
        except ImportError as exc:
            missing = exc.name or str(exc)
            print(
                f"| {peer} | {metric} | `{preset}` | 0 | skipped: {missing} is not "
                "installed |",
                flush=True,
            )
            continue
        if not worst <= TOLERANCE.get(peer, DEFAULT_TOLERANCE):
            failed.append(f"{peer} {metric}")
        print(
            f"| {peer} | {metric} | `{preset}` | {args.cases} | {worst:.1e} |",
            flush=True,
        )
    if failed:
        print(f"disagreement beyond tolerance: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
