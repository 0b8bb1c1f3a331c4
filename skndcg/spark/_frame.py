"""Scoring a Spark DataFrame group by group with the in-memory report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._partial._means import N_SUMS, partial_sums
from .._partial._pieces import ORDER_COLUMNS, label_sums, report_piece

ORDER = ORDER_COLUMNS[1]
BUCKET = "__skndcg_bucket__"


def import_spark():
    """``pyspark.sql``, or an error naming the extra to install."""
    try:
        import pyspark.sql as sql
    except ImportError as exc:  # pragma: no cover - the extra installs it
        raise ImportError(
            "skndcg.spark needs pyspark (with pyarrow); install them with "
            "pip install 'skndcg[spark]'."
        ) from exc
    return sql


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


def schema_of(template: pd.DataFrame) -> str:
    return ", ".join(
        f"`{col}` {spark_type(dtype)}" for col, dtype in template.dtypes.items()
    )


def sum_columns(names) -> list[str]:
    return [f"s{i}" for i in range(N_SUMS * len(names) + 1)]


def make_scorer(what, *, names, rules, queries, columns):
    """The function ``applyInPandas`` runs on each group of whole queries."""

    def score(frame: pd.DataFrame) -> pd.DataFrame:
        # Rows of each query back in their original order: the tie rules read it.
        order = np.argsort(frame[ORDER].to_numpy(), kind="stable")
        frame = frame.iloc[order].reset_index(drop=True)
        report = report_piece(frame, names, **columns)
        if what == "report":
            return report
        label_sum = None
        if rules.empty_rule == "label_sum":
            label_sum = label_sums(
                frame,
                report,
                label_col=columns["label_col"],
                qid_col=columns["qid_col"],
            )
        sums = partial_sums(report, names, rules, queries=queries, label_sum=label_sum)
        return pd.DataFrame([sums], columns=sum_columns(names))

    return score
