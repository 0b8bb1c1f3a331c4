"""Per-row query ids, from a routed argument or a DataFrame column.

Every component of skndcg that needs query ids (``QueryRanker``, the ranking
scorers) finds them the same way, through :func:`resolve_qid`;
:func:`query_layout` then gives the contiguous layout LightGBM and XGBoost need.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["resolve_qid"]


def is_pandas_df(X) -> bool:
    return isinstance(X, pd.DataFrame)


def is_polars_df(X) -> bool:
    cls = type(X)
    return cls.__module__.split(".")[0] == "polars" and cls.__name__ == "DataFrame"


def column_names(X) -> list:
    """Column names of a pandas or polars DataFrame, else an empty list."""
    if is_pandas_df(X) or is_polars_df(X):
        return list(X.columns)
    return []


def has_column(X, name) -> bool:
    return name in column_names(X)


def n_rows_of(X) -> int:
    """Number of rows of any array-like, DataFrame or sparse matrix."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    return len(X)


def _to_1d_array(values, *, caller: str) -> np.ndarray:
    """Convert query ids (list, numpy, pandas or polars Series) to a 1-D array."""
    arr = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(
            f"{caller}: qid must be one-dimensional (one query id per row); got an "
            f"array of shape {arr.shape}."
        )
    return arr


def check_no_missing(values, *, caller: str, source: str, need="a query id") -> None:
    """Raise, naming ``source`` and the first row, when ``values`` has a
    missing value (None, NaN, NaT): every row needs ``need``."""
    missing = np.asarray(pd.isna(values))
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{caller}: {source} has {int(missing.sum())} missing value(s) "
            f"(first at row {first}); every row needs {need}."
        )


def resolve_qid(X, qid=None, *, qid_col="qid", caller="resolve_qid", drop_col=True):
    """Find the query id of every row of ``X``: ``(X_model, qid)``.

    An explicit ``qid`` (one per row) wins over the DataFrame column
    ``qid_col``; ``caller`` starts the error messages. With ``drop_col`` the
    column is removed from ``X_model`` (a new object; ``X`` is never modified)
    even when ``qid`` is passed, so the same ``X`` gives the same model
    features both ways; pass ``False`` for a model trained with that column
    as a feature. Raises ``ValueError`` if no query ids are found, if they
    have missing values, or if their length is not ``X``'s number of rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.utils._query_ids import resolve_qid
    >>> X = pd.DataFrame({"qid": [7, 7, 3], "f": [0.1, 0.2, 0.3]})
    >>> X_model, qid = resolve_qid(X)
    >>> list(X_model.columns), qid.tolist()
    (['f'], [7, 7, 3])
    >>> X_model, qid = resolve_qid(X[["f"]], qid=[1, 1, 2])
    >>> qid.tolist()
    [1, 1, 2]
    """
    has_col = has_column(X, qid_col)
    if qid is not None:
        ids, source = _to_1d_array(qid, caller=caller), "qid"
        n_rows = n_rows_of(X)
        if ids.shape[0] != n_rows:
            raise ValueError(
                f"{caller}: qid has {ids.shape[0]} entries but X has {n_rows} rows; "
                "pass one query id per row."
            )
    elif has_col:
        ids = _to_1d_array(X[qid_col], caller=caller)
        source = f"column {qid_col!r} of X"
    else:
        if is_pandas_df(X) or is_polars_df(X):
            where = f"X has no column {qid_col!r} (its columns are {column_names(X)!r})"
        else:
            where = f"X is a {type(X).__name__}, which has no named columns,"
        raise ValueError(
            f"{caller}: query ids not found: {where} and no qid was passed. Either "
            "pass qid= (with scikit-learn metadata routing enabled, "
            "sklearn.set_config(enable_metadata_routing=True), it is routed "
            "automatically) or give X as a pandas/polars DataFrame with a column "
            f"named {qid_col!r} (set qid_col= to use another column)."
        )
    check_no_missing(ids, caller=caller, source=source)
    if has_col and drop_col:  # a new DataFrame without the column
        X = X.drop(columns=[qid_col]) if is_pandas_df(X) else X.drop(qid_col)
    return X, ids


def query_layout(qid):
    """Contiguous layout of per-row query ids ``qid`` (none missing, any
    order): ``(order, codes, sizes, uniques)``, the stable row order that makes
    every query contiguous in order of first appearance (``None`` when the rows
    already are), the query codes ``0..n_queries-1`` of the rows *after*
    reordering, the rows of each query and the query id of each code."""
    codes, uniques = pd.factorize(np.asarray(qid), sort=False)
    codes = codes.astype(np.intp, copy=False)
    sizes = np.bincount(codes, minlength=len(uniques))
    if codes.size == 0 or np.all(codes[1:] >= codes[:-1]):
        return None, codes, sizes, np.asarray(uniques)
    order = np.argsort(codes, kind="stable")
    return order, codes[order], sizes, np.asarray(uniques)
