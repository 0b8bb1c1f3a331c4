"""The item side of the beyond-accuracy metrics: item ids, categories, features.

Attributes given *by item* (a dict, or pandas indexed by item id) or *by row*
become a table of *units* (one per item, or per row) and the unit of each row.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from .._core._validate import as_1d, check_finite, missing_error, py


def check_choice(name: str, value, allowed) -> None:
    """Refuse ``value`` for the option ``name`` unless it is one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(
            f"{name}={value!r} is not valid; expected one of {list(allowed)}."
        )


def numeric(x, name: str) -> np.ndarray:
    """``x`` as finite float64 values, refusing other dtypes, NaN and infinity."""
    arr = as_1d(x, name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    check_finite(arr, name)
    return arr


def item_codes(item_id, name="item_id"):
    """Integer code of each row's item and the distinct item ids, refusing a
    missing id (``name``: the argument, for the errors)."""
    arr = as_1d(item_id, name, allow_object=True)
    try:
        codes, uniques = pd.factorize(arr)
    except TypeError:
        raise TypeError(
            f"{name} values must be hashable, got {arr[0]!r} in the first row."
        ) from None
    if (codes < 0).any():
        raise missing_error(name, codes < 0, "an item id")
    return codes.astype(np.int64, copy=False), np.asarray(uniques)


def _check_not_per_row(source, item_id, name: str) -> None:
    """Refuse a per-row pandas column passed where a by-item mapping is read."""
    if not isinstance(item_id, pd.Series) or not source.index.equals(item_id.index):
        return
    try:
        same = np.array_equal(item_id.index.to_numpy(), item_id.to_numpy())
    except (TypeError, ValueError):
        same = False
    if not same:
        raise ValueError(
            f"{name} is a pandas object with the same index as item_id, so it looks "
            f"like a per-row column, but a pandas {name} is read by item id (its "
            f"index). Pass per-row values as a numpy array ({name}.to_numpy()) or "
            "index it by item id."
        )


def _by_item(index: pd.Index, uniques: np.ndarray, name: str) -> np.ndarray:
    """Position in ``index`` of each distinct item, refusing gaps and duplicates."""
    if not index.is_unique:
        dup = index[index.duplicated()][0]
        raise ValueError(
            f"{name} is read by item id, but its index has duplicates (first "
            f"{py(dup)!r}); give each item one entry."
        )
    pos = index.get_indexer(uniques)
    if (pos < 0).any():
        bad = np.flatnonzero(pos < 0)
        raise ValueError(
            f"{name} lacks {bad.shape[0]} item(s) of item_id (first "
            f"{py(uniques[bad[0]])!r}); every item needs an entry."
        )
    return pos


def mapping_index(keys) -> pd.Index:
    return pd.Index(list(keys), tupleize_cols=False, dtype=object)


def _unit_name(unit: int, by_item: bool, uniques: np.ndarray) -> str:
    return f"item {py(uniques[unit])!r}" if by_item else f"row {unit}"


def item_categories_csr(source, item_id, codes, uniques, *, single: bool):
    """Categories as sorted label codes per unit (CSR) and the unit of each row.

    Returns ``(unit, indptr, labels)``: row ``i`` has the labels
    ``labels[indptr[unit[i]]:indptr[unit[i] + 1]]``, sorted and distinct.
    """
    name = "item_categories"
    n = codes.shape[0]
    if isinstance(source, pd.DataFrame):
        raise TypeError(
            f"{name} must be a dict, a pandas Series indexed by item id or a 1-D "
            "per-row array-like, got a DataFrame; select one column."
        )
    if isinstance(source, dict):
        source = pd.Series(list(source.values()), index=mapping_index(source))
    if isinstance(source, pd.Series):
        _check_not_per_row(source, item_id, name)
        values = source.to_numpy(dtype=object)[_by_item(source.index, uniques, name)]
        unit, by_item = codes, True
    else:
        if hasattr(source, "to_numpy"):
            source = source.to_numpy()
        if isinstance(source, np.ndarray):
            if source.ndim != 1:
                raise ValueError(
                    f"{name} given per row must be 1-D (one entry per row), got "
                    f"shape {source.shape}; use a list of label lists for sets."
                )
            values = source.astype(object)
        else:
            values = pd.Series(list(source), dtype=object).to_numpy()
        if values.shape[0] != n:
            raise ValueError(
                f"{name} has {values.shape[0]} entries but item_id has {n} rows; "
                "give one entry per row, or a dict / pandas Series indexed by "
                "item id."
            )
        unit, by_item = np.arange(n), False
    n_units = values.shape[0]
    if single:
        owner = np.arange(n_units)
        flat = values
    else:
        exploded = pd.Series(values, dtype=object).explode()
        owner = exploded.index.to_numpy().astype(np.int64)
        flat = exploded.to_numpy()
    try:
        lab, _ = pd.factorize(flat)
    except TypeError:
        what = "one hashable label per item" if single else "hashable labels"
        hint = "; use metric='jaccard' for sets of labels" if single else ""
        raise TypeError(f"{name} must hold {what}{hint}.") from None
    if (lab < 0).any():
        unit_bad = int(owner[np.flatnonzero(lab < 0)[0]])
        raise ValueError(
            f"{name} has no category for {_unit_name(unit_bad, by_item, uniques)} "
            "(a missing value or an empty collection); every item needs at least "
            "one category."
        )
    order = np.lexsort((lab, owner))
    owner, lab = owner[order], lab[order].astype(np.int64)
    keep = np.ones(owner.shape[0], dtype=bool)
    keep[1:] = (owner[1:] != owner[:-1]) | (lab[1:] != lab[:-1])
    owner, lab = owner[keep], lab[keep]
    indptr = np.zeros(n_units + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=n_units), out=indptr[1:])
    return unit, indptr, lab


def item_vectors(source, item_id, codes, uniques):
    """Unit-norm feature vectors per unit and the unit of each row."""
    name = "item_features"
    n = codes.shape[0]
    if isinstance(source, pd.Series):
        raise TypeError(
            f"{name} must be a pandas DataFrame or a dict indexed by item id, or a "
            "2-D per-row array, got a Series; use a DataFrame with one column per "
            "feature."
        )
    if isinstance(source, dict):
        try:
            mat = np.array(list(source.values()), dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} given as a dict must map item ids to numeric vectors of "
                "one common length."
            ) from None
        if mat.ndim != 2:
            raise ValueError(
                f"{name} given as a dict must map item ids to 1-D vectors, got "
                f"an array of shape {mat.shape}."
            )
        source = pd.DataFrame(mat, index=mapping_index(source))
    if isinstance(source, pd.DataFrame):
        _check_not_per_row(source, item_id, name)
        pos = _by_item(source.index, uniques, name)
        try:
            mat = source.to_numpy(dtype=np.float64)[pos]
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must have numeric columns only, got dtypes "
                f"{sorted({str(t) for t in source.dtypes})}."
            ) from None
        unit, by_item = codes, True
    else:
        try:
            mat = np.asarray(source, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be numeric.") from None
        if mat.ndim != 2:
            raise ValueError(
                f"{name} given per row must be 2-D of shape (n_samples, "
                f"n_features), got shape {mat.shape}."
            )
        if mat.shape[0] != n:
            raise ValueError(
                f"{name} has {mat.shape[0]} rows but item_id has {n}; give one "
                "vector per row, or a DataFrame / dict indexed by item id."
            )
        unit, by_item = np.arange(n), False
    if mat.shape[1] == 0:
        raise ValueError(f"{name} has no feature columns; at least one is needed.")
    finite = np.isfinite(mat).all(axis=1)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"{name} has NaN or infinite values for "
            f"{_unit_name(bad, by_item, uniques)}; every vector must be finite."
        )
    norm = np.sqrt(np.einsum("ij,ij->i", mat, mat))
    if (norm == 0).any():
        bad = int(np.flatnonzero(norm == 0)[0])
        raise ValueError(
            f"{name} has a zero vector for {_unit_name(bad, by_item, uniques)}; "
            "cosine distance is undefined for it."
        )
    return unit, np.ascontiguousarray(mat / norm[:, None])


def qid_item_pairs(mapping, name: str) -> list:
    """``[(qid, item), ...]`` of a mapping ``{qid: collection of item ids}``; a
    value that is one id (a string, a number) is refused."""
    pairs = []
    for q, items in dict(mapping).items():
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise TypeError(
                f"{name} maps each user to a collection of item ids, but user "
                f"{py(q)!r} maps to {py(items)!r}. For one item id per row (a "
                f"Series indexed by user), group it first: "
                f"{name}=series.groupby(level=0).agg(list)."
            )
        pairs.extend((q, i) for i in items)
    return pairs
