"""The partial-result driver: the steps Dask, Spark and the streamed files
share (set up, score pieces of whole queries into sums, add them up)."""

from __future__ import annotations

import contextlib
import math
import sys
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..metrics._shared import (
    Convention,
    Means,
    call_options,
    check_side_inputs,
    check_unique,
    ensure_registered,
    evaluate,
    label_max_of,
    parse_metric,
)
from ..utils._args import check_flags, metric_names
from ._pieces import engine_input, report_piece

#: Keywords a front end sets from its columns, so a caller may not pass them.
RESERVED = (
    "y_true", "y_score", "qid", "metrics", "sample_weight", "doc_id", "item_id",
)  # fmt: skip
#: The arguments of a front end that name its columns.
COLUMN_ARGS = (
    "qid_col", "label_col", "score_col", "doc_col", "sample_weight_col", "item_col",
)  # fmt: skip


@dataclass
class Spec:
    """What every piece is scored with."""

    names: list  # metric names, as given
    conv: Convention  # the call's convention: how the sums become means
    columns: dict  # qid_col, label_col, ... sample_weight, popularity, options
    # define_measure's measures, registered again in a worker on unpickling.
    measures: tuple = ()
    needs_label_max: bool = False  # a measure reads the largest label of all
    label_max: float | None = None  # that label, once the front end knows it

    @property
    def weighted(self) -> bool:
        """Whether queries carry weights (a column or a mapping)."""
        weights = (self.columns.get(k) for k in ("sample_weight_col", "sample_weight"))
        return any(w is not None for w in weights)

    def __setstate__(self, state):
        ensure_registered(state["measures"])
        self.__dict__.update(state)

    def know_label_max(self, candidates) -> None:
        """Set :attr:`label_max` from labels holding the largest of the table
        (each piece's largest, say)."""
        options = self.columns["options"]
        values = np.asarray(candidates, dtype=np.float64)
        self.label_max = label_max_of(values, **options) if values.size else None


def columns_of(args: dict) -> dict:
    """The column arguments among ``args`` (a front end's arguments), as the
    ``cols`` of :func:`setup`."""
    return {key: args[key] for key in COLUMN_ARGS}


def setup(metrics, cols, sample_weight, options, source, popularity=None):
    """Check the arguments once and return the :class:`Spec` of the pieces;
    ``cols``: the ``COLUMN_ARGS`` to column names, ``source``: the table's name
    in messages."""
    names = metric_names(metrics)
    check_unique(names, [parse_metric(n) for n in names])
    for key in RESERVED:
        if key in options:
            raise TypeError(
                f"{key!r} is not an option here: the rows come from {source}'s "
                "columns (qid_col, label_col, score_col, doc_col, "
                "sample_weight_col, item_col)."
            )
    for key in ("by", "return_means"):
        if key in options:
            raise TypeError(
                f"{key!r} is not an option when {source} is scored piece by "
                "piece; score the per-query report instead."
            )
    if cols.get("sample_weight_col") is not None and sample_weight is not None:
        raise ValueError(
            "pass sample_weight_col (a column of per-row weights, constant within "
            "a query) or sample_weight (a mapping from query id to weight), not both."
        )
    conv = call_options(**options).conv
    used = dict.fromkeys(parse_metric(n).definition for n in names)
    check_side_inputs(
        names, {"item_col=": cols.get("item_col"), "popularity=": popularity},
        hint=" (the column of item ids, and the training popularity as "
        "skndcg.metrics.grouped_ranking_scores takes it: a dict of counts by "
        "item, or the training log's item ids)",
    )  # fmt: skip
    columns = dict(cols, sample_weight=sample_weight, popularity=popularity,
                   options=options)  # fmt: skip
    user = tuple(m for m in used if not m.builtin)
    needs = any("label_max" in m.needs for m in used)
    return Spec(names, conv, columns, user, needs)


def setup_of(args: dict, source: str) -> Spec:
    """:func:`setup` from the arguments of a front end (its ``locals()``):
    ``metrics``, the column arguments, ``sample_weight``, ``popularity`` and
    ``options``."""
    return setup(args["metrics"], columns_of(args), args["sample_weight"],
                 args["options"], source, popularity=args["popularity"])  # fmt: skip


def label_candidates(values) -> list[float]:
    """The labels of ``values`` that can be the table's largest: the largest
    number, and NaN when there is one (an unjudged row, which reads as 0).
    Labels that are not numbers give none: scoring them raises the error."""
    try:
        y = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return []
    nan = np.isnan(y)
    out = [] if nan.all() else [float(np.nanmax(y))]
    return [*out, math.nan] if nan.any() else out


def sum_columns(names) -> list[str]:
    """Names of the partial sums of ``names`` (a table's columns)."""
    return [f"s{i}" for i in range(Means.width(len(names)))]


def sums_of(frame, spec, qid=None) -> np.ndarray:
    """The partial sums of a piece of whole queries, as one row of floats."""
    if not len(frame):
        return np.zeros(Means.width(len(spec.names)))
    rows, kwargs = engine_input(frame, qid=qid, **spec.columns)
    ev = evaluate(*rows, spec.names, label_max=spec.label_max, **kwargs)
    return Means.of(ev).row()


def score_piece(frame, spec, what, qid=None) -> pd.DataFrame:
    """The report of a piece of whole queries, or (``what="sums"``) its
    partial sums as a table of one row: what a Dask partition or a Spark
    group returns."""
    if what == "report":
        return report_piece(
            frame, spec.names, qid=qid, label_max=spec.label_max, **spec.columns
        )
    return pd.DataFrame([sums_of(frame, spec, qid)], columns=sum_columns(spec.names))


def whole_queries(batches, qid_col, check, bar=None, aligned=False):
    """``(first row, piece)`` of whole queries from ``batches`` read in order
    (the last query carried over unless ``aligned``), telling ``check.add`` each
    query and its first row."""
    carry, first_row = None, 0  # file row of the first row of ``carry``
    for batch in batches:
        n_new = len(batch)
        frame = batch
        if carry is not None and len(carry):
            frame = pd.concat([carry, batch], ignore_index=True)
        ids = frame[qid_col].to_numpy()
        if ids.shape[0] == 0:
            continue
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])  # of each query
        if aligned:
            done = len(frame)
        else:  # rows before the last query are complete
            done = int(starts[-1])
            starts = starts[:-1]
        check.add(np.asarray(ids[starts]), first_row + starts)
        if done:
            yield first_row, frame.iloc[:done]
        carry = frame.iloc[done:]
        first_row += done
        if bar is not None:
            bar.update(n_new)
    if carry is not None and len(carry):
        check.add(np.asarray(carry[qid_col].to_numpy()[:1]), np.array([first_row]))
        yield first_row, carry


def finish(parts, spec, empty_message):
    """``(means, query count per metric)`` from the partial sums of every piece."""
    width = Means.width(len(spec.names))
    parts = np.asarray(parts, dtype=np.float64).reshape(-1, width)
    if parts[:, -2].sum() == 0:  # no query in any piece
        raise ValueError(empty_message)
    specs = [parse_metric(n) for n in spec.names]
    total = Means.merge([Means.from_row(specs, row, spec.weighted) for row in parts])
    means = total.result(spec.conv, stacklevel=3)
    counts = {name: int(total.sums[j, 2]) for j, name in enumerate(spec.names)}
    return dict(zip(spec.names, (float(m) for m in means), strict=True)), counts


def progress_bar(total, progress, unit="rows"):
    """A progress bar shown after a few seconds when ``progress`` is True, or
    None and standard error is a terminal; a context manager (None: no bar)."""
    if not wants_progress(progress):
        return contextlib.nullcontext()
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=unit, unit_scale=True, delay=3, file=sys.stderr)


def wants_progress(progress):
    """The progress rule alone: whether a bar is shown."""
    if progress is None:
        return sys.stderr.isatty()
    check_flags(progress=progress)
    return bool(progress)
