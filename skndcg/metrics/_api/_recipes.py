"""Label transforms and query weights that fix common NDCG pitfalls.

Each helper returns plain arrays that plug into the grouped metrics: a gain
callable for ``gain=``, labels for ``y_true``, per-row weights for
``sample_weight=``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...utils._docstrings import with_references
from .._beyond._items import check_choice, mapping_index, numeric, py
from .._core._group import group_constant, group_rows
from .._core._validate import as_1d, check_length
from ._ranking import REFERENCES


@with_references(REFERENCES)
def sqrt_gain(y):
    """Square-root gain: ``sqrt(label)``, flattening the top of a rating scale.

    With star ratings, the step from 4 to 5 stars says less about preference than
    the step from 1 to 2; the square root shrinks high grades together while
    keeping their order. Pass the function itself as ``gain=``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Non-negative labels.

    Returns
    -------
    gains : ndarray of shape (n_samples,)
        ``sqrt(y)`` as float64.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import sqrt_gain
    >>> sqrt_gain([0, 1, 4, 5])
    array([0.        , 1.        , 2.        , 2.23606798])

    As the gain of a grouped metric:

    >>> from skndcg.metrics import grouped_ndcg_score
    >>> y_true = [5, 3, 4, 1]
    >>> y_score = [0.1, 0.4, 0.3, 0.2]
    >>> qid = [1, 1, 1, 1]
    >>> round(grouped_ndcg_score(y_true, y_score, qid, k=4), 4)
    0.8649
    >>> round(grouped_ndcg_score(y_true, y_score, qid, k=4, gain=sqrt_gain), 4)
    0.9296
    """
    arr = numeric(y, "y")
    if (arr < 0).any():
        raise ValueError(
            f"sqrt_gain needs non-negative labels, got min {py(arr.min())!r}; shift or "
            "clip the labels first."
        )
    return np.sqrt(arr)


def _group_ids(qid, n: int):
    """Grouping and the (canonical) query index of each input row."""
    q = as_1d(qid, "qid", allow_object=True)
    check_length("qid", q.shape[0], n, "y")
    grouping = group_rows(qid, n)
    gid = np.empty(n, dtype=np.int64)
    gid[grouping.take(np.arange(n))] = grouping.row_query
    return grouping, gid


@with_references(REFERENCES)
def minmax_labels_per_query(y, qid, *, constant="zero"):
    """Rescale labels to ``[0, 1]`` within each query.

    When labels of different queries come from different sources (a 1-5 rating
    scale here, click counts up to 100 there), the ideal DCG of each query lives
    on its own scale. Per-query min-max normalisation, ``(y - min) / (max - min)``,
    puts every query's best item at 1 and its worst at 0.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels, one per row.
    qid : array-like of shape (n_samples,)
        Query id of each row, of any hashable dtype.
    constant : {"zero", "one", "error"}, default="zero"
        Labels of a query whose labels are all equal: ``"zero"`` (so the query has
        nothing relevant, and the grouped metrics skip it by default), ``"one"``
        (every item fully relevant) or ``"error"`` (raise).

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Normalised labels in the input row order.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import minmax_labels_per_query
    >>> y = [1, 5, 3, 0, 100, 50]
    >>> qid = ["rated", "rated", "rated", "clicks", "clicks", "clicks"]
    >>> minmax_labels_per_query(y, qid)
    array([0. , 1. , 0.5, 0. , 1. , 0.5])
    """
    check_choice("constant", constant, ("zero", "one", "error"))
    arr = numeric(y, "y")
    grouping, gid = _group_ids(qid, arr.shape[0])
    lo = np.full(grouping.n_groups, np.inf)
    hi = np.full(grouping.n_groups, -np.inf)
    np.minimum.at(lo, gid, arr)
    np.maximum.at(hi, gid, arr)
    span = (hi - lo)[gid]
    flat = span == 0
    if flat.any() and constant == "error":
        g = gid[np.flatnonzero(flat)[0]]
        raise ValueError(
            f"query {py(grouping.keys[g])!r} has all labels equal to {py(lo[g])!r}, so "
            "min-max normalisation is undefined (constant='error'); pass "
            "constant='zero' or 'one'."
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (arr - lo[gid]) / span
    out[flat] = 1.0 if constant == "one" else 0.0
    return out


@with_references(REFERENCES)
def log_frequency_weights(qid, frequency):
    """Per-row query weights ``log(frequency + 1)``, for ``sample_weight=``.

    An unweighted mean over queries lets every query count once; a mean weighted
    by raw traffic lets the head queries drown the long tail. Weighting by the
    logarithm of the frequency sits between the two. The base of the logarithm
    does not matter: a weighted mean is unchanged by scaling every weight.

    Parameters
    ----------
    qid : array-like of shape (n_samples,)
        Query id of each row, of any hashable dtype.
    frequency : array-like of shape (n_samples,) or mapping
        How often each query occurs (searches, visits): one value per row,
        constant within each query, or a dict / pandas Series from query id to
        frequency. Finite and ``>= 0``; a frequency of 0 gives weight 0.

    Returns
    -------
    weights : ndarray of shape (n_samples,)
        ``log1p(frequency)`` of each row's query, in the input row order.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import log_frequency_weights
    >>> qid = ["head", "head", "tail", "tail"]
    >>> w = log_frequency_weights(qid, {"head": 999, "tail": 9})
    >>> w.round(3)
    array([6.908, 6.908, 2.303, 2.303])

    The weights go straight into ``sample_weight``:

    >>> from skndcg.metrics import grouped_ndcg_score
    >>> y_true, y_score = [1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2]
    >>> round(grouped_ndcg_score(y_true, y_score, qid, sample_weight=w), 4)
    0.9077
    """
    n = as_1d(qid, "qid", allow_object=True).shape[0]
    grouping, gid = _group_ids(qid, n)
    if isinstance(frequency, (dict, pd.Series)):
        if isinstance(frequency, dict):
            frequency = pd.Series(
                list(frequency.values()), index=mapping_index(frequency)
            )
        if not frequency.index.is_unique:
            raise ValueError(
                "frequency is indexed by query id but has duplicates (first "
                f"{py(frequency.index[frequency.index.duplicated()][0])!r})."
            )
        pos = frequency.index.get_indexer(grouping.keys)
        if (pos < 0).any():
            missing = grouping.keys[np.flatnonzero(pos < 0)[0]]
            raise ValueError(
                f"frequency lacks query {py(missing)!r}; every query of qid needs one."
            )
        freq = numeric(frequency.to_numpy()[pos], "frequency")[gid]
    else:
        freq = numeric(frequency, "frequency")
        if freq.shape[0] != n:
            raise ValueError(
                f"frequency has {freq.shape[0]} rows but qid has {n}; give one value "
                "per row (constant within a query) or a mapping from query id."
            )
        group_constant(freq, grouping, "frequency")
    if (freq < 0).any():
        raise ValueError(f"frequency must be >= 0, got min {py(freq.min())!r}.")
    return np.log1p(freq)
