"""Build the keyword arguments of the inner estimator's ``fit`` for QueryRanker:
the signature of the final step's ``fit`` decides what it gets (its ``kind``, by
the rules of the QueryRanker docstring)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing

from skndcg.metrics._shared import as_1d
from skndcg.ranker._columns import drop_roles
from skndcg.utils._query_ids import is_polars_df, query_layout, resolve_qid
from skndcg.utils._values import py

# LightGBM refuses queries larger than this for its ranking objectives.
_LIGHTGBM_MAX_QUERY_ROWS = 10_000
_LIGHTGBM_RANK_OBJECTIVES = {
    None,
    "lambdarank",
    "rank_xendcg",
    "xendcg",
    "xe_ndcg",
    "xe_ndcg_mart",
    "xendcg_mart",
}
# Names QueryRanker derives itself; a user passing them gets a TypeError.
_DERIVED = ("group", "eval_group")
# Names QueryRanker consumes and reorders before the inner fit sees them.
CONSUMED = ("eval_set", "eval_qid", "eval_sample_weight")


@dataclass
class _FinalStep:
    """The estimator that receives the query structure, and how to reach it."""

    estimator: object
    prefix: str  # "" for a bare estimator, "a__b__" inside (nested) Pipelines
    path: tuple  # step names from the outer Pipeline down to the final step
    kind: str  # "qid", "group", "group_id" or "pointwise"
    fit_params: frozenset


def final_step(estimator) -> _FinalStep:
    path = []
    final = estimator
    while isinstance(final, Pipeline):
        name, final = final.steps[-1]
        path.append(name)
    try:
        params = frozenset(inspect.signature(final.fit).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins without signature
        params = frozenset()
    # The first query argument the fit takes, in this order of preference.
    kind = next((k for k in ("qid", "group", "group_id") if k in params), "pointwise")
    prefix = "".join(f"{name}__" for name in path)
    return _FinalStep(final, prefix, tuple(path), kind, params)


def take(values, order):
    """Rows of ``values`` in ``order`` (``order=None`` means unchanged)."""
    if order is None:
        return values
    return _safe_indexing(values, order)


def _is_row_array(value, n_samples) -> bool:
    """Whether a fit parameter is a per-row array that must follow the rows."""
    array_like = isinstance(value, np.ndarray | pd.Series | pd.DataFrame) or (
        is_polars_df(value) or type(value).__name__ == "Series"
    )
    return array_like and tuple(value.shape[:1]) == (n_samples,)


def _check_lightgbm_query_sizes(step, sizes, uniques):
    module = type(step.estimator).__module__.split(".")[0]
    if module != "lightgbm" or step.kind != "group":
        return
    objective = step.estimator.get_params().get("objective")
    if objective not in _LIGHTGBM_RANK_OBJECTIVES or sizes.size == 0:
        return
    largest = int(np.argmax(sizes))
    if sizes[largest] > _LIGHTGBM_MAX_QUERY_ROWS:
        name, size = py(uniques[largest]), int(sizes[largest])
        raise ValueError(
            f"QueryRanker.fit: query {name!r} has {size} "
            f"rows, but LightGBM's ranking objectives accept at most "
            f"{_LIGHTGBM_MAX_QUERY_ROWS} rows per query. Split or subsample that "
            "query (for example keep its top candidates), or use a pointwise "
            "objective."
        )


def _per_query_weights(weights, codes, sizes, uniques, *, what):
    """One weight per query (XGBRanker), checking they are constant in a query."""
    per_query = weights[np.concatenate(([0], np.cumsum(sizes)[:-1]))]
    differs = np.repeat(per_query, sizes) != weights
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        name = py(uniques[codes[row]])
        raise ValueError(
            f"QueryRanker.fit: {what} varies within query {name!r}; "
            "XGBRanker takes one weight per query, so every row of a query must "
            "carry the same weight."
        )
    return per_query


def query_args(step, qid, sample_weight, *, eval_index=None):
    """``(order, values)`` of one data set: the stable order that makes every
    query contiguous (``None`` when the rows already are, and for a pointwise
    step) and a dict of ``sizes``, ``codes`` (not for a pointwise step) and,
    with ``sample_weight``, ``weight`` (one per query for XGBRanker)."""
    order, codes, sizes, uniques = query_layout(qid)
    _check_lightgbm_query_sizes(step, sizes, uniques)
    out = {"codes": codes, "sizes": sizes}
    if step.kind == "pointwise":
        order, out = None, {"sizes": sizes}
    if sample_weight is not None:
        where = "" if eval_index is None else f" of eval_set[{eval_index}]"
        what = f"sample_weight{where}"
        w = as_1d(sample_weight, f"QueryRanker.fit: {what}").astype(float)
        if w.shape[0] != qid.shape[0]:
            raise ValueError(
                f"QueryRanker.fit: {what} must have one entry per row "
                f"({qid.shape[0]}); got shape {w.shape}."
            )
        w = w if order is None else w[order]
        if step.kind == "qid":
            w = _per_query_weights(w, codes, sizes, uniques, what=what)
        out["weight"] = w
    return order, out


def check_labels(y, *, what):
    """Refuse missing relevance labels (NaN, None, pd.NA) in ``y``."""
    arr = y.to_numpy() if hasattr(y, "to_numpy") else np.asarray(y)
    missing = np.asarray(pd.isna(arr)).reshape(-1)
    if missing.any():
        raise ValueError(
            f"QueryRanker.fit: {what} has {int(missing.sum())} missing value(s) "
            f"(NaN), first at row {int(np.flatnonzero(missing)[0])}; every row needs a "
            "relevance label: drop those rows or fill their labels."
        )


@dataclass
class EvalSets:
    """Eval sets sorted by query: (X, y) pairs, query codes or sizes, weights."""

    sets: list
    queries: list
    weights: list


def _sorted_eval_sets(
    step, qid_col, roles, eval_set, eval_qid=None, eval_sample_weight=None
):
    """Reorder every eval set by query and derive its query arguments."""
    eval_set = [eval_set] if isinstance(eval_set, tuple) else list(eval_set)
    n_sets = len(eval_set)
    for name, values in (
        ("eval_qid", eval_qid),
        ("eval_sample_weight", eval_sample_weight),
    ):
        if values is not None and len(values) != n_sets:
            raise ValueError(
                f"QueryRanker.fit: {name} has {len(values)} entries but eval_set has "
                f"{n_sets}; pass one per eval set."
            )
    sets, queries, weights = [], [], []
    for i, (X_val, y_val) in enumerate(eval_set):
        q = None if eval_qid is None else eval_qid[i]
        w = None if eval_sample_weight is None else eval_sample_weight[i]
        check_labels(y_val, what=f"the y of eval_set[{i}]")
        if step.kind == "pointwise":
            sets.append((drop_roles(X_val, [qid_col, *roles]), y_val))
            weights.append(w)
            continue
        X_val, q = resolve_qid(
            X_val, q, qid_col=qid_col, caller=f"QueryRanker.fit (eval_set[{i}])"
        )
        X_val = drop_roles(X_val, roles)
        order, args = query_args(step, q, w, eval_index=i)
        sets.append((take(X_val, order), take(y_val, order)))
        queries.append(args["sizes"] if step.kind == "group" else args["codes"])
        weights.append(args.get("weight"))
    return EvalSets(sets, queries, weights)


def build_fit_kwargs(step, qid_col, roles, order, args, n_samples, extra, eval_params):
    """``(kwargs, passthrough, evals)`` for the final step's ``fit``: the derived
    query arguments (bare names), the caller's other fit parameters (per-row
    arrays reordered), and the sorted eval sets (or ``None``) for
    :func:`eval_kwargs`."""
    for name in _DERIVED:
        if name in extra:
            raise TypeError(
                f"QueryRanker.fit got {name}=, but QueryRanker derives the query "
                "structure itself; pass per-row query ids as qid= or as the "
                f"{qid_col!r} column of X instead."
            )
    for name in ("eval_X", "eval_y"):
        if name in extra:
            raise TypeError(
                f"QueryRanker.fit got {name}=; pass eval sets as "
                "eval_set=[(X_val, y_val), ...] (with eval_qid= or a query-id "
                "column), QueryRanker hands them to the inner model in the form "
                "it expects."
            )
    kwargs = {}
    if step.kind in ("qid", "group_id"):
        kwargs[step.kind] = args["codes"]
    elif step.kind == "group":
        kwargs["group"] = args["sizes"]
    if "weight" in args:
        if "sample_weight" not in step.fit_params:
            raise TypeError(
                f"QueryRanker.fit got sample_weight, but "
                f"{type(step.estimator).__name__}.fit does not accept sample_weight."
            )
        kwargs["sample_weight"] = args["weight"]

    evals = None
    if eval_params.get("eval_set") is not None:
        evals = _sorted_eval_sets(step, qid_col, roles, **eval_params)
    elif eval_params.get("eval_qid") is not None:
        raise ValueError("QueryRanker.fit got eval_qid but no eval_set.")

    # Other per-row arrays (init_score, base_margin, ...) follow the rows.
    passthrough = {
        key: (take(value, order) if _is_row_array(value, n_samples) else value)
        for key, value in extra.items()
    }
    return kwargs, passthrough, evals


def eval_kwargs(step, evals):
    """The final step's eval-set arguments, in the form its ``fit`` expects."""
    if evals is None:
        return {}
    sets, queries, weights = evals.sets, evals.queries, evals.weights
    kwargs = {}
    if step.kind == "group_id":
        from catboost import Pool

        kwargs["eval_set"] = [
            Pool(X_val, np.asarray(y_val), group_id=codes, weight=w)
            for (X_val, y_val), codes, w in zip(sets, queries, weights, strict=True)
        ]
        return kwargs
    if "eval_X" in step.fit_params and "eval_y" in step.fit_params:
        # LightGBM >= 4.7 deprecates eval_set in favour of eval_X / eval_y.
        kwargs["eval_X"] = tuple(X_val for X_val, _ in sets)
        kwargs["eval_y"] = tuple(y_val for _, y_val in sets)
    else:
        kwargs["eval_set"] = sets
    if step.kind == "qid":
        kwargs["eval_qid"] = queries
    elif step.kind == "group":
        kwargs["eval_group"] = queries
    if any(w is not None for w in weights):
        name = "sample_weight_eval_set"
        if name not in step.fit_params:
            name = "eval_sample_weight"
        kwargs[name] = weights
    return kwargs
