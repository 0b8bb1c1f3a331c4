"""Column roles of QueryRanker: which DataFrame columns never reach the model."""

from __future__ import annotations

from numbers import Integral

import numpy as np
import pandas as pd

from skndcg.utils._query_ids import column_names, is_pandas_df, is_polars_df

# Libraries whose fit refuses datetime, object and string feature columns.
_STRICT_LIBRARIES = {"lightgbm": "LightGBM", "xgboost": "XGBoost"}


def _is_column_name(value) -> bool:
    return isinstance(value, str) or (
        isinstance(value, Integral) and not isinstance(value, bool)
    )


def role_columns(qid_col, time_col, drop_cols, *, caller) -> list:
    """The declared non-feature columns other than ``qid_col``, validated."""
    if time_col is not None and not _is_column_name(time_col):
        raise ValueError(
            f"{caller}: time_col must be None or a column name (str or int), "
            f"got {time_col!r}."
        )
    if drop_cols is None:
        dropped = []
    elif _is_column_name(drop_cols):
        dropped = [drop_cols]
    else:
        try:
            dropped = list(drop_cols)
        except TypeError:
            dropped = None
        if dropped is None or not all(_is_column_name(c) for c in dropped):
            raise ValueError(
                f"{caller}: drop_cols must be None, a column name or a list of "
                f"column names (str or int), got {drop_cols!r}."
            )
    roles = [] if time_col is None else [time_col]
    roles += [c for c in dropped if c not in roles]
    return [c for c in roles if c != qid_col]


def check_declared(X, columns, *, caller, what) -> None:
    """In fit, every declared column must exist in a DataFrame ``X``."""
    if not columns:
        return
    present = column_names(X)
    if not (is_pandas_df(X) or is_polars_df(X)):
        raise ValueError(
            f"{caller}: {what} names columns {columns!r}, but X is a "
            f"{type(X).__name__} without column names; pass a pandas or polars "
            "DataFrame."
        )
    missing = [c for c in columns if c not in present]
    if missing:
        raise ValueError(
            f"{caller}: column(s) {missing!r} given in {what} are not in X "
            f"(its columns are {present!r})."
        )


def drop_roles(X, columns):
    """``X`` without those of ``columns`` it holds (a new object if any)."""
    present = set(column_names(X))
    gone = [c for c in columns if c in present]
    if not gone:
        return X
    if is_pandas_df(X):
        return X.drop(columns=gone)
    return X.drop(gone)


def _bad_dtype(dtype) -> bool:
    """Whether a pandas dtype cannot be a LightGBM / XGBoost feature."""
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return False
    return not pd.api.types.is_numeric_dtype(dtype)


def _bad_polars_dtype(dtype) -> bool:
    if dtype.is_numeric():
        return False
    return str(dtype) not in ("Boolean", "Categorical") and not str(dtype).startswith(
        ("Categorical", "Enum")
    )


def check_feature_dtypes(estimator, X, roles, *, caller, where="X") -> None:
    """Refuse columns LightGBM or XGBoost cannot take, before their fit."""
    library = _STRICT_LIBRARIES.get(type(estimator).__module__.split(".")[0])
    if library is None:
        return
    if is_pandas_df(X):
        bad = [(c, str(t)) for c, t in X.dtypes.items() if _bad_dtype(t)]
    elif is_polars_df(X):
        bad = [(c, str(t)) for c, t in X.schema.items() if _bad_polars_dtype(t)]
    elif isinstance(X, np.ndarray) and X.dtype.kind in "OUSMm":
        raise ValueError(
            f"{caller}: {where} is a numpy array of dtype {X.dtype}, which "
            f"{library} cannot take as features; pass numbers (or a DataFrame, "
            "whose id and time columns QueryRanker can leave out with drop_cols= "
            "and time_col=)."
        )
    else:
        return
    if not bad:
        return
    name, dtype = bad[0]
    others = f" (also {[c for c, _ in bad[1:]]!r})" if len(bad) > 1 else ""
    if "date" in dtype.lower() or "time" in dtype.lower():
        fix = (
            f"if it is the time, declare it once with QueryRanker(..., "
            f"time_col={name!r}); otherwise add it to drop_cols=[...] or encode "
            "it as numbers"
        )
    else:
        fix = (
            f"add it to drop_cols=[...] if it is an id, or encode it (numbers, or "
            f"a pandas 'category' column, which {library} reads as categorical)"
        )
    declared = f"; already left out: {roles!r}" if roles else ""
    raise ValueError(
        f"{caller}: column {name!r} of {where} has dtype {dtype}, which "
        f"{type(estimator).__name__} ({library}) cannot take as a feature"
        f"{others}. Fix: {fix}{declared}."
    )


def check_same_columns(expected, X_model, skipped, *, caller) -> None:
    """Refuse DataFrame columns that differ from fit (LightGBM would not)."""
    columns = column_names(X_model)
    if expected is None or not columns or columns == list(expected):
        return
    missing = [c for c in expected if c not in columns]
    unexpected = [c for c in columns if c not in set(expected)]
    detail = (
        f"missing {missing}, unexpected {unexpected}"
        if missing or unexpected
        else "same names in a different order"
    )
    raise ValueError(
        f"{caller}: the columns of X ({detail}) differ from those seen in fit "
        f"{list(expected)} (the columns {skipped!r} aside)."
    )
