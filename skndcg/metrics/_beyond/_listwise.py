"""Shared steps of the per-user beyond-accuracy measures: a mean or count over
each user's top ``k`` (ranked by :mod:`._topk`) of a value per item."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...utils._args import check_flags
from .._core._validate import check_k, check_length, undefined
from ._items import check_choice, item_codes, mapping_index, numeric, py
from ._topk import Ranked, check_ties, membership, rank

MISSING = ("error", "zero")


@dataclass
class Lists:
    """The top ``k`` of every query, as weighted (query, item) entries."""

    ranked: Ranked
    keys: np.ndarray  # query ids, canonical order
    gid: np.ndarray  # query of each entry
    item: np.ndarray  # item code of each entry
    row: np.ndarray  # input row of each entry
    prob: np.ndarray  # probability the entry is in the top k
    uniques: np.ndarray  # item id of each code
    length: np.ndarray  # (expected) list length of every query
    codes: np.ndarray  # item code of every input row


def top_k_lists(item_id, y_score, qid, k, ties) -> Lists:
    ties = check_ties(ties)
    k = check_k(k)
    codes, uniques = item_codes(item_id)
    r = rank(y_score, qid, codes.shape[0], ties)
    prob, _ = membership(r, k)
    keep = prob > 0
    gid, rows, prob = r.gid[keep], r.rows[keep], prob[keep]
    length = np.bincount(gid, weights=prob, minlength=r.grouping.n_groups)
    keys = np.asarray(r.grouping.keys)
    return Lists(r, keys, gid, codes[rows], rows, prob, uniques, length, codes)


def per_query_mean(lists: Lists, value: np.ndarray, size=None) -> np.ndarray:
    """Sum of ``value`` (one per entry) over each query's top k, divided by
    ``size`` (by default the list's length); NaN where ``size`` is 0."""
    size = lists.length if size is None else size
    total = per_query_sum(lists, value)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(size > 0, total / size, np.nan)


def per_query_sum(lists: Lists, value: np.ndarray) -> np.ndarray:
    n_q = lists.length.shape[0]
    return np.bincount(lists.gid, weights=lists.prob * value, minlength=n_q)


def _missing_hint(fix, name):
    """What to do about items ``name`` lacks: the ``missing=`` value that counts
    them, or (a measure named as a metric has no such option) the functions."""
    if fix is None:
        return (
            f"Give each one a count in {name}, or call the measure's function "
            "(skndcg.metrics.novelty_score, average_popularity_score, ...), whose "
            "missing='one' counts such items as seen once."
        )
    what = "seen once." if fix == "one" else "never interacted with."
    return f"Pass missing={fix!r} to count such items as {what}"


def popularity_of(popularity, uniques, missing, name="popularity", allowed=MISSING):
    """Training popularity of every item code, and the table it came from
    (:func:`popularity_table`)."""
    check_choice("missing", missing, allowed)
    table = popularity_table(popularity, name)
    found = table.reindex(pd.Index(uniques))
    absent = found.isna().to_numpy()
    fill = {"zero": 0.0, "one": 1.0}.get(missing, 0.0)
    if absent.any():
        first = py(uniques[np.flatnonzero(absent)[0]])
        if missing == "error":
            fix = next((m for m in allowed if m != "error"), None)
            raise ValueError(
                f"{int(absent.sum())} recommended item(s) are missing from {name} "
                f"(first {first!r}); {name} must count every item of the training "
                "log, so an item it lacks was never seen in training. "
                + _missing_hint(fix, name)
                + _looks_like_counts(popularity, uniques[absent], name)
            )
        warnings.warn(
            f"{int(absent.sum())} recommended item(s) are missing from {name} "
            f"(first {first!r}); they count with popularity {fill:g} "
            f"(missing={missing!r}).",
            UserWarning,
            stacklevel=3,
        )
    return found.fillna(fill).to_numpy(dtype=np.float64), table


def _looks_like_counts(popularity, absent, name) -> str:
    """A hint when a Series read as a log holds the missing items in its index."""
    if (
        isinstance(popularity, pd.Series)
        and pd.Index(absent).isin(popularity.index).all()
    ):
        return (
            f" {name} is a pandas Series, read as the training log (its values "
            "are item ids); its index holds the missing items, so it may be "
            f"counts by item: pass those as a dict, {name}=counts.to_dict()."
        )
    return ""


# Names pandas gives the result of value_counts(): counts, not a log.
_COUNT_NAMES = ("count", "proportion")


def popularity_table(popularity, name="popularity") -> pd.Series:
    """Item id -> count, from a mapping of counts or a training log of item ids
    (a Series by its values; one from ``value_counts()`` is refused)."""
    if isinstance(popularity, Mapping):
        table = pd.Series(dict(popularity), dtype=object)
    elif isinstance(popularity, pd.DataFrame):
        raise TypeError(
            f"{name} must be the training log's item ids (one column, for example "
            f"log['item_id']) or a dict of counts by item, got a DataFrame."
        )
    elif isinstance(popularity, (str, bytes, numbers.Number)) or popularity is None:
        raise TypeError(
            f"{name} must be a dict mapping item id to count, or the training "
            f"log's item ids (list, array or pandas Series), got {popularity!r}."
        )
    else:
        if isinstance(popularity, pd.Series) and popularity.name in _COUNT_NAMES:
            raise ValueError(
                f"{name} is a pandas Series named {popularity.name!r}, as "
                "value_counts() returns: counts by item, not a log. A Series is "
                "read as the training log (one item id per interaction); pass "
                f"counts as a dict, {name}=counts.to_dict(), or pass the log "
                "itself."
            )
        codes, uniques = item_codes(popularity, name)
        return pd.Series(uniques[codes]).value_counts().astype(np.float64)
    if not table.index.is_unique:
        dup = py(table.index[table.index.duplicated()][0])
        raise ValueError(f"{name} has the item {dup!r} more than once.")
    for item, count in table.items() if table.dtype.kind not in "iuf" else ():
        if isinstance(count, (bool, np.bool_)) or not isinstance(count, numbers.Real):
            raise TypeError(
                f"{name} is a mapping, read as counts by item, but its values are "
                f"not all numbers (item {py(item)!r} has {count!r}); to pass the "
                "training log, give its item ids as a list, array or pandas Series."
            )
    values = table.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} counts must be finite and >= 0, got {values[i]!r} for item "
            f"{py(table.index[i])!r}."
        )
    return pd.Series(values, index=table.index)


def long_tail_of(long_tail, table: pd.Series, uniques) -> np.ndarray:
    """Whether each item code is in the long tail: all but the head's share of
    the table (:func:`head_of`), or the given long-tail ids."""
    if isinstance(long_tail, numbers.Real) and not isinstance(long_tail, bool):
        if not 0 < long_tail < 1:
            raise ValueError(
                f"long_tail={long_tail!r} must be the head's share of the items, "
                "strictly between 0 and 1, or the long-tail item ids."
            )
        return ~head_of(table, uniques, int(np.ceil(long_tail * table.shape[0])))
    if isinstance(long_tail, (str, bytes, Mapping)) or long_tail is None:
        raise TypeError(
            "long_tail must be the head's share of the items (a float) or a "
            f"collection of long-tail item ids, got {long_tail!r}."
        )
    tail = mapping_index(long_tail)
    known = pd.Index(uniques).append(table.index)
    if len(tail) and not tail.isin(known).any():
        raise ValueError(
            f"long_tail names none of the items of item_id or popularity (first "
            f"{py(tail[0])!r}, {type(tail[0]).__name__}; an item id is "
            f"{py(uniques[0])!r}, {type(py(uniques[0])).__name__}); give the "
            "long-tail item ids as item_id spells them."
        )
    return pd.Index(uniques).isin(tail)


def head_of(table: pd.Series, uniques, n: int) -> np.ndarray:
    """Whether each item code is among the ``n`` most popular items of the
    table, ties at the cut included."""
    counts = table.to_numpy(dtype=np.float64)
    cut = np.sort(counts)[::-1][min(n, counts.shape[0]) - 1]
    return pd.Index(uniques).isin(table.index[counts >= cut])


def finish(values: np.ndarray, keys, base, k, per_query, what):
    """The mean over the queries that have a value, or the per-query frame;
    the measure is named ``base@k`` (``base`` without a cut-off)."""
    name = base if k is None else f"{base}@{k}"
    check_flags(per_query=per_query)
    if per_query:
        return pd.DataFrame({"qid": keys, name: values})
    ok = ~np.isnan(values)
    if not ok.any():
        return undefined(
            f"{name} is undefined for every query ({what}); nan is returned.", 3
        )
    return float(values[ok].mean())


def labels_of(y_true, n):
    y = numeric(y_true, "y_true")
    check_length("y_true", y.shape[0], n, "item_id")
    return y
