"""Per-query scores of several models, checked and aligned for :func:`compare`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...utils._args import metric_names
from ...utils._query_ids import check_no_missing
from ...utils._values import py
from .._stats._resampling import check_length

#: Columns of a ranking report (or a long frame) that are not metrics.
BOOKKEEPING = frozenset(
    {
        "model",
        "qid",
        "fold",
        "n_items",
        "n_relevant",
        "n_retrieved",
        "n_relevant_retrieved",
        "weight",
        "skipped",
        "segment",
    }
)


@dataclass
class Scores:
    """Aligned per-query values: ``values[model, query, metric]``."""

    models: list
    qids: np.ndarray
    metrics: list
    values: np.ndarray
    keep: np.ndarray  # (n_queries, n_metrics): the query counts for the metric
    weights: np.ndarray
    clusters: np.ndarray | None  # unit code of every query, or None


def examples_text(items, n=5, count=True):
    """The first ``n`` of ``items`` for a message, then ``...`` (and, with
    ``count``, how many there are in all) when there are more."""
    items = list(items)
    shown = ", ".join(repr(py(x)) for x in items[:n])
    if len(items) <= n:
        return shown
    return shown + (f", ... ({len(items)} in all)" if count else ", ...")


def model_frames(scores):
    """``{model: DataFrame}`` from a mapping of reports or a long DataFrame."""
    if isinstance(scores, pd.DataFrame):
        for col in ("model", "qid"):
            if col not in scores.columns:
                raise ValueError(
                    "scores is a DataFrame, so it must be in long format with "
                    f"columns 'model', 'qid' and one column per metric; column "
                    f"{col!r} is missing (columns: {list(scores.columns)})."
                )
            need = "a query id" if col == "qid" else "a model name"
            check_no_missing(scores[col], caller="compare", source=f"column {col!r} "
                             "of scores", need=need)  # fmt: skip
        return {
            name: frame.reset_index(drop=True)
            for name, frame in scores.groupby("model", sort=False)
        }
    if isinstance(scores, Mapping):
        out = {}
        for name, frame in scores.items():
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(
                    f"scores[{name!r}] must be a pandas DataFrame such as "
                    "skndcg.metrics.ranking_report returns, got "
                    f"{type(frame).__name__}."
                )
            if "qid" not in frame.columns:
                raise ValueError(
                    f"scores[{name!r}] has no 'qid' column (columns: "
                    f"{list(frame.columns)}); pass ranking_report DataFrames."
                )
            check_no_missing(frame["qid"], caller="compare",
                             source=f"column 'qid' of scores[{name!r}]")  # fmt: skip
            out[name] = frame
        return out
    raise TypeError(
        "scores must be a mapping {model name: ranking_report DataFrame} or a long "
        f"DataFrame with columns 'model', 'qid' and metrics, got "
        f"{type(scores).__name__}."
    )


def check_metric_columns(names, frame, what):
    """Raise unless every metric of ``names`` is a column of ``frame``."""
    absent = [m for m in names if m not in frame.columns]
    if absent:
        raise ValueError(
            f"metrics {absent} are not columns of {what} (columns: "
            f"{list(frame.columns)})."
        )


def metric_columns(frames, exclude=(), what="scores"):
    """The numeric columns all ``frames`` share, except :data:`BOOKKEEPING`,
    ``exclude`` and the ``dcg@k`` / ``idcg@k`` columns a report adds behind an
    ``ndcg@k``; raise, naming ``what``, when none is left."""
    first = frames[0]
    cols = [
        c
        for c in first.columns
        if c not in BOOKKEEPING
        and c not in exclude
        and all(c in f.columns for f in frames)
        and pd.api.types.is_numeric_dtype(first[c])
    ]
    ndcg_ks = {c[len("ndcg@") :] for c in cols if str(c).startswith("ndcg@")}

    def added(c):
        c = str(c)
        return c.startswith("idcg@") or (
            c.startswith("dcg@") and c[len("dcg@") :] in ndcg_ks
        )

    cols = [c for c in cols if not added(c)]
    if not cols:
        raise ValueError(
            f"{what} holds no numeric metric column (columns: "
            f"{list(first.columns)}); name the metric columns with metrics=."
        )
    return cols


def chosen_metrics(metrics, frames, exclude, what):
    """``metrics`` as a list of names, each a column of every frame of
    ``frames`` (``(name, frame)`` pairs); ``None``: their :func:`metric_columns`."""
    if metrics is None:
        return metric_columns([frame for _, frame in frames], exclude, what)
    names = metric_names(metrics)
    for name, frame in frames:
        check_metric_columns(names, frame, name)
    return names


def sorted_unique(labels):
    """The distinct values of ``labels``, sorted, or in the order first seen
    when they do not sort (labels of mixed types)."""
    uniques = pd.unique(np.asarray(labels))
    try:
        return sorted(uniques)
    except TypeError:
        return list(uniques)


def per_query_input(spec, name, qids, frames, order):
    """Weights or cluster ids given as a column name, array or mapping.

    A column must hold the same value of a query in every model's frame.
    """
    n_queries = order.size
    models = list(frames)
    first = frames[models[0]]
    if isinstance(spec, str) and spec in first.columns:
        values = pd.Series(first[spec].to_numpy()[order])
        for model, frame in list(frames.items())[1:]:
            if spec not in frame.columns:
                continue
            other = pd.Series(frame.set_index("qid")[spec].reindex(qids).to_numpy())
            differ = (other != values) & ~(other.isna() & values.isna())
            if differ.any():
                raise ValueError(
                    f"{name}={spec!r} differs between the models: model {model!r} "
                    f"and model {models[0]!r} give the queries "
                    f"{examples_text(qids[differ.to_numpy()])} different values; "
                    "give every model the same column, or pass the values."
                )
        return values.to_numpy()
    if isinstance(spec, (Mapping, pd.Series)):
        mapping = dict(spec.items())
        missing = [q for q in qids if q not in mapping]
        if missing:
            raise ValueError(
                f"{name} gives no value for the queries {examples_text(missing)}."
            )
        return np.array([mapping[q] for q in qids])
    if isinstance(spec, str):
        raise ValueError(
            f"{name}={spec!r} is not a column of the scores (columns: "
            f"{list(first.columns)})."
        )
    must = (
        f"{name} must hold one value per query ({n_queries} queries, in the "
        "order of the first model's rows)"
    )
    return check_length(spec, n_queries, must)[order]


def sorted_order(qids):
    """Order that sorts the query ids (first-seen order when they do not sort)."""
    try:
        return np.argsort(qids, kind="stable")
    except TypeError:
        return np.arange(qids.size)


def one_row_per_query(frame, who, advice):
    """The query ids of ``frame`` as an index; refused when one repeats."""
    q = pd.Index(frame["qid"].to_numpy())
    if q.has_duplicates:
        raise ValueError(
            f"{who} has several rows for the queries "
            f"{examples_text(q[q.duplicated()].unique())}; give one row per query "
            f"({advice})."
        )
    return q


def gather(scores, metrics, sample_weight, cluster, nan_policy, by=None) -> Scores:
    frames = model_frames(scores)
    models = list(frames)
    if len(models) < 2:
        raise ValueError(
            f"compare needs the scores of at least two models, got {len(models)}"
            + (f" ({models[0]!r})." if models else ".")
        )
    rows = frames[models[0]]["qid"].to_numpy()
    index = pd.Index(rows)
    for name, frame in frames.items():
        q = one_row_per_query(frame, f"model {name!r}", (
            "for out-of-fold reports whose folds share query ids, make the id "
            "unique, for example from the fold and the query"
        ))  # fmt: skip
        missing, extra = index.difference(q), q.difference(index)
        if len(missing) or len(extra):
            parts = []
            if len(missing):
                parts.append(f"lacks the queries {examples_text(missing)}")
            if len(extra):
                parts.append(f"has queries {examples_text(extra)} that the others lack")
            raise ValueError(
                f"models must be scored on the same queries: model {name!r} "
                f"{' and '.join(parts)} (compared with model {models[0]!r})."
            )
    # Queries in sorted order, so the resampling does not depend on row order.
    order = sorted_order(rows)
    qids = rows[order]
    exclude = {c for c in (sample_weight, cluster, by) if isinstance(c, str)}
    named = [(f"the scores of model {name!r}", f) for name, f in frames.items()]
    metrics = chosen_metrics(metrics, named, exclude, "scores")
    n_q = qids.size
    values = np.empty((len(models), n_q, len(metrics)))
    for i, (name, frame) in enumerate(frames.items()):
        aligned = frame.set_index("qid").reindex(qids)
        for j, m in enumerate(metrics):
            col = aligned[m]
            if not pd.api.types.is_numeric_dtype(col):
                raise TypeError(
                    f"metric column {m!r} of model {name!r} is not numeric "
                    f"(dtype {col.dtype})."
                )
            values[i, :, j] = col.to_numpy(dtype=np.float64, na_value=np.nan)
            if np.isinf(values[i, :, j]).any():
                bad = qids[np.isinf(values[i, :, j])]
                raise ValueError(
                    f"metric {m!r} of model {name!r} is infinite for the queries "
                    f"{examples_text(bad)}."
                )
    nan = np.isnan(values)
    if nan.any() and nan_policy == "raise":
        i, _, j = np.argwhere(nan)[0]
        bad = qids[nan[i, :, j]]
        raise ValueError(
            f"metric {metrics[j]!r} of model {models[i]!r} is NaN for the queries "
            f"{examples_text(bad)} (for example queries the metric skipped because "
            "nothing in them is relevant); pass nan_policy='omit' to leave such "
            "queries out of that metric for every model."
        )
    keep = ~nan.any(axis=0)
    if sample_weight is None:
        weights = np.ones(n_q)
    else:
        weights = per_query_input(sample_weight, "sample_weight", qids, frames, order)
        try:
            weights = weights.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"sample_weight must be numeric, got dtype {weights.dtype}."
            ) from None
        if not np.isfinite(weights).all() or (weights < 0).any():
            raise ValueError(
                "sample_weight must be finite and >= 0, got values such as "
                f"{examples_text(weights[~np.isfinite(weights) | (weights < 0)])}."
            )
    for j, m in enumerate(metrics):
        if not (weights[keep[:, j]] > 0).any():
            raise ValueError(
                f"metric {m!r} has no query left with a positive weight "
                f"({int(keep[:, j].sum())} of {n_q} queries are not NaN)."
            )
    codes = None
    if cluster is not None:
        ids = per_query_input(cluster, "cluster", qids, frames, order)
        if pd.isna(ids).any():
            raise ValueError("cluster has missing ids; give every query a cluster.")
        codes = pd.factorize(ids, sort=False)[0]
    return Scores(models, qids, metrics, values, keep, weights, codes)
