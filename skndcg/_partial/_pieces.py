"""Scoring one piece of a table (a pandas DataFrame) with the in-memory engine."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pandas as pd

from ..metrics._shared import RowsError, report_with_means
from ..utils._values import py

# Columns added to carry the original row order through a shuffle.
ORDER_COLUMNS = ("__skndcg_part__", "__skndcg_row__")


def by_query(exc: RowsError, frame: pd.DataFrame, qid_col: str) -> ValueError:
    """A refusal of rows of a piece whose rows the caller's table does not
    number (a Spark group), with the row named by its query."""
    return exc.placed(f"one in query {py(frame[qid_col].iloc[exc.row])!r}")


def door_module(door: str, module: str, needs: str):
    """``module``, which ``skndcg.<door>`` is built on, or an error naming
    the extra to install (``needs``: what it brings)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - the extra installs it
        raise ImportError(
            f"skndcg.{door} needs {needs}; install them with "
            f"pip install 'skndcg[{door}]'."
        ) from exc


def check_frame(frame, cls, name: str, kind: str) -> None:
    """Refuse a table (argument ``name``) that is not a ``cls`` (``kind``)."""
    if not isinstance(frame, cls):
        raise TypeError(
            f"{name} must be a {kind}, got {type(frame).__name__}; use "
            "skndcg.metrics for pandas or NumPy data."
        )


def check_columns(columns, wanted: dict, where: str) -> None:
    """Raise when a ``*_col`` argument names a column the table lacks."""
    columns = list(columns)
    for arg, col in wanted.items():
        if col is not None and col not in columns:
            raise ValueError(
                f"{arg}={col!r} is not a column of {where}; its columns are {columns}."
            )


def check_numeric(columns: dict, text_type, where: str) -> None:
    """Refuse a label or score column that holds no numbers before any piece
    is scored; ``text_type(col)`` names the column's type then, else is None."""
    for key, name in (("label_col", "y_true"), ("score_col", "y_score")):
        found = text_type(columns[key])
        if found is not None:
            raise TypeError(
                f"{name} must be numeric, got {key}={columns[key]!r}, a column of "
                f"{found} in {where}; convert it to numbers explicitly."
            )


def engine_input(
    frame, *, qid_col, label_col, score_col, doc_col=None, sample_weight_col=None,
    item_col=None, sample_weight=None, popularity=None, options=None, qid=None,
):  # fmt: skip
    """The arrays and keywords the engine scores ``frame`` with."""
    kwargs = dict(options or {})
    if doc_col is not None:
        kwargs["doc_id"] = frame[doc_col].to_numpy()
    if item_col is not None:
        side = {"item_id": frame[item_col].to_numpy(), "popularity": popularity}
        kwargs["side"] = side
    if sample_weight_col is not None:
        sample_weight = frame[sample_weight_col].to_numpy()
    kwargs["sample_weight"] = sample_weight
    # Columns, not arrays: the engine tells a missing value of a nullable
    # column (pandas' NA) from a NaN, as it does in memory.
    rows = (frame[label_col], frame[score_col],
            frame[qid_col] if qid is None else qid)  # fmt: skip
    return rows, kwargs


def report_piece(frame: pd.DataFrame, names, *, label_max=None, **columns):
    """:func:`skndcg.metrics.ranking_report` of the rows of ``frame``
    (``columns``: the keywords of :func:`engine_input`)."""
    rows, kwargs = engine_input(frame, **columns)
    report, _ = report_with_means(
        *rows, metrics=names, with_means=False, label_max=label_max, **kwargs
    )
    return report


def report_template(sample: pd.DataFrame, names, **kwargs) -> pd.DataFrame:
    """The report's columns and dtypes (no rows), from one made-up query of
    two rows made from a ``sample`` row of the table."""
    frame = sample.iloc[[0, 0]].reset_index(drop=True)
    label_col, score_col = kwargs["label_col"], kwargs["score_col"]
    threshold = (kwargs.get("options") or {}).get("rel_threshold")
    high = max(1, math.ceil(threshold)) if threshold is not None else 1
    labels = frame[label_col]
    if labels.dtype.kind == "b":
        frame[label_col] = np.array([True, False])
    else:
        frame[label_col] = pd.Series([high, 0]).astype(labels.dtype)
    qid_col = kwargs["qid_col"]
    if isinstance(frame[qid_col].dtype, pd.CategoricalDtype):
        # A made-up frame may hold missing categories: one real category instead.
        cats = frame[qid_col].cat.categories
        frame[qid_col] = pd.Categorical([cats[0]] * 2 if len(cats) else ["q"] * 2)
    frame[score_col] = pd.Series([1.0, 0.0]).astype(frame[score_col].dtype)
    col = kwargs.get("doc_col")
    if col is not None and frame[col].dtype.kind in "iuf":
        frame[col] = pd.Series([1, 0]).astype(frame[col].dtype)
    weight_col = kwargs.get("sample_weight_col")
    if weight_col is not None:
        frame[weight_col] = pd.Series([1, 1]).astype(frame[weight_col].dtype)
    if kwargs.get("sample_weight") is not None:
        # The mapping need not know the made-up query: one weight per row instead.
        kwargs = dict(kwargs, sample_weight=np.ones(2))
    item_col = kwargs.get("item_col")
    if item_col is not None:
        # Nor need the popularity know the made-up item: a table of it alone.
        item = frame[item_col].iloc[0]
        kwargs = dict(kwargs, popularity={item: 1.0})
    report = report_piece(frame, names, **kwargs)
    return report.iloc[:0]
