"""The ``segment`` column of ``ranking_report(..., by=...)``."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...utils._values import py


def with_segment(report: pd.DataFrame, by, qid) -> pd.DataFrame:
    """``report`` with a ``segment`` column: each query's label from ``by``.

    ``by`` is one label per row (constant within a query), a mapping from
    query id to label, or a rule called with the report's query ids.
    """
    qids = report["qid"].to_numpy()
    if isinstance(by, (Mapping, pd.Series)):
        table = pd.Series(dict(by.items()), dtype=object)
        labels = table.reindex(pd.Index(qids)).to_numpy()
    elif callable(by):
        labels = np.asarray(by(qids.copy()))
        if labels.shape != qids.shape:
            raise ValueError(
                f"the segment rule by={by!r} returned shape {labels.shape} for "
                f"{qids.shape[0]} queries; a rule returns one label per query."
            )
    else:
        rows, q = np.asarray(by), np.asarray(qid)
        if rows.shape != q.shape:
            raise ValueError(
                f"by must hold one label per row ({q.shape[0]} rows), a mapping "
                f"from query id to label or a rule, got shape {rows.shape}."
            )
        frame = pd.DataFrame({"qid": q, "by": rows})
        varies = frame.groupby("qid", sort=False)["by"].nunique(dropna=False)
        if (varies > 1).any():
            bad = [py(x) for x in varies.index[varies > 1][:5]]
            raise ValueError(
                f"by varies within the queries {bad}; give every row of a query "
                "the same segment."
            )
        table = frame.drop_duplicates("qid").set_index("qid")["by"]
        labels = table.reindex(pd.Index(qids)).to_numpy()
    missing = pd.isna(labels)
    if missing.any():
        bad = [py(x) for x in qids[missing][:5]]
        raise ValueError(f"by gives no segment for the queries {bad}.")
    out = report.copy()
    out["segment"] = labels
    return out
