"""Scoring a Spark DataFrame group by group with the in-memory report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._partial._driver import score_piece
from .._partial._pieces import ORDER_COLUMNS, by_query
from ..metrics._shared import RowsError

ORDER = ORDER_COLUMNS[1]
BUCKET = "__skndcg_bucket__"


def sample_rows(empty: pd.DataFrame) -> pd.DataFrame:
    """One made-up row with the dtypes of ``empty`` (a frame with no rows)."""
    row = {}
    for col, dtype in empty.dtypes.items():
        if dtype.kind == "b":
            row[col] = np.array([True])
        elif dtype.kind in "iuf":
            row[col] = np.array([1]).astype(dtype)
        else:
            row[col] = np.array(["q"], dtype=object)
    return pd.DataFrame(row)


def spark_type(dtype) -> str:
    """The Spark SQL type of a report column."""
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    kind = getattr(dtype, "kind", "O")
    if kind == "b":
        return "boolean"
    if kind in "iu":
        return "int" if dtype.itemsize <= 4 else "bigint"
    if kind == "f":
        return "float" if dtype.itemsize <= 4 else "double"
    return "string"


def make_scorer(what, spec):
    """The function ``applyInPandas`` runs on each group of whole queries."""

    def score(frame: pd.DataFrame) -> pd.DataFrame:
        # Rows of each query back in their original order: the tie rules read it.
        order = np.argsort(frame[ORDER].to_numpy(), kind="stable")
        frame = frame.iloc[order].reset_index(drop=True)
        try:
            return score_piece(frame, spec, what)
        except RowsError as exc:
            raise by_query(exc, frame, spec.columns["qid_col"]) from None

    return score
