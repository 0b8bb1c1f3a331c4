"""Beyond accuracy: catalogue coverage and intra-list diversity of the top ``k``,
exact expectations over random orders of tied rows (``_topk``)."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ..._native._jit import jit
from ..._native._threads import num_threads, run_chunks
from .._core._group import query_weights
from .._core._validate import as_1d, undefined
from ._items import check_choice, item_categories_csr, item_codes, item_vectors, py
from ._topk import Ranked, check_ties, cutoffs, membership, rank

_METRICS = ("jaccard", "mismatch", "cosine")


def catalog_coverage_score(
    item_id, y_score, qid, *, k=10, catalog=None, ties="average"
):
    """Share of the catalogue that appears in the top ``k`` of at least one query.

    Catalogue coverage@k counts the distinct items recommended to anybody and
    divides by the size of the catalogue. A model that shows every user the same
    best sellers scores low however accurate it is. Pass a category per row as
    ``item_id`` to measure category coverage instead (the share of categories
    that reach some top ``k``).

    Parameters
    ----------
    item_id : array-like of shape (n_samples,)
        Item id of each row, of any hashable dtype. An item may be a candidate of
        many queries, and more than once within one query.
    y_score : array-like of shape (n_samples,)
        Predicted score of each row; higher ranks first.
    qid : array-like of shape (n_samples,)
        Query (or user) id of each row, of any hashable dtype.
    k : int, sequence of int or None, default=10
        Cut-off. ``None`` counts every row. A sequence returns one value per
        cut-off.
    catalog : None, int or array-like, default=None
        The catalogue: ``None`` for the distinct items of ``item_id``, an int for
        its size, or the catalogue's item ids (duplicates count once). Every item
        of ``item_id`` must belong to it.
    ties : {"average", "stable", "reverse"}, default="average"
        Which of equally scored rows enter the top ``k`` when a tie straddles the
        cut-off. ``"average"`` returns the exact expected coverage when each
        query's tied rows are ordered uniformly at random, independently across
        queries (what i.i.d. random jitter of the scores does, computed without
        sampling); the result does not depend on the row order. ``"stable"``
        keeps the input order, ``"reverse"`` the reverse input order.

    Returns
    -------
    coverage : float or ndarray of shape (n_cutoffs,)
        Covered items divided by the catalogue size, in ``[0, 1]``.

    See Also
    --------
    intra_list_diversity_score : How different the items within each top k are.

    References
    ----------
    .. [1] M. Ge, C. Delgado-Battenfeld and D. Jannach, "Beyond accuracy: evaluating
       recommender systems by coverage and serendipity", RecSys 2010.

    Examples
    --------
    >>> from skndcg.metrics import catalog_coverage_score
    >>> item_id = ["a", "b", "c", "a", "b", "d"]
    >>> y_score = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> catalog_coverage_score(item_id, y_score, qid, k=2)
    0.5
    >>> catalog_coverage_score(item_id, y_score, qid, k=2, catalog=10)
    0.2
    """
    ties = check_ties(ties)
    ks, single = cutoffs(k)
    codes, uniques = item_codes(item_id)
    n_items = catalog_size(catalog, uniques)
    r = rank(y_score, qid, codes.shape[0], ties)
    item = codes[r.rows]
    out = np.array([_covered(r, item, kk, uniques.shape[0]) / n_items for kk in ks])
    return float(out[0]) if single else out


def catalog_size(catalog, uniques: np.ndarray) -> int:
    n_seen = uniques.shape[0]
    if catalog is None:
        return n_seen
    if isinstance(catalog, numbers.Integral) and not isinstance(catalog, bool):
        if catalog < n_seen:
            raise ValueError(
                f"catalog={catalog!r} is smaller than the {n_seen} distinct items of "
                "item_id; pass the catalogue size (at least the number of distinct "
                "items) or the catalogue's item ids."
            )
        return int(catalog)
    if isinstance(catalog, (str, bytes, bool, numbers.Number)):
        raise TypeError(
            f"catalog must be None, an int (the catalogue size) or an array-like of "
            f"item ids, got {catalog!r}."
        )
    if isinstance(catalog, (set, frozenset)):
        catalog = list(catalog)
    _, cat = item_codes(catalog, "catalog")
    missing = ~pd.Index(uniques).isin(cat)
    if missing.any():
        raise ValueError(
            f"item_id has {int(missing.sum())} item(s) outside catalog (first "
            f"{py(uniques[np.flatnonzero(missing)[0]])!r}); every recommended item "
            "must belong to the catalogue."
        )
    return int(cat.shape[0])


def _covered(r: Ranked, item: np.ndarray, k, n_items: int) -> float:
    """(Expected) number of distinct items in some query's top k."""
    prob, boundary = membership(r, k)
    certain = np.zeros(n_items, dtype=bool)
    certain[item[prob == 1.0]] = True
    b = np.flatnonzero(boundary & ~certain[item])
    if b.shape[0] == 0:
        return float(certain.sum())
    # Copies of each item in each query's boundary block.
    o = b[np.lexsort((item[b], r.gid[b]))]
    g, it = r.gid[o], item[o]
    new = np.ones(o.shape[0], dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (it[1:] != it[:-1])
    first = np.flatnonzero(new)
    c = np.diff(np.append(first, o.shape[0])).astype(np.float64)
    m = r.block_len[o[first]].astype(np.float64)
    take = (k - r.block_pos[o[first]]).astype(np.float64)
    it = it[first]
    from scipy.special import gammaln  # here, not at import: start-up time

    # P(no copy among `take` of the m tied rows) = C(m - c, take) / C(m, take).
    sure = m - c < take
    certain[it[sure]] = True
    with np.errstate(divide="ignore", invalid="ignore"):
        log_none = np.where(
            c == 1,
            np.log1p(-take / m),
            gammaln(m - c + 1)
            - gammaln(m - c - take + 1)
            - gammaln(m + 1)
            + gammaln(m - take + 1),
        )
    keep = ~certain[it]
    total = np.bincount(it[keep], weights=log_none[keep], minlength=n_items)
    maybe = np.zeros(n_items, dtype=bool)
    maybe[it[keep]] = True
    return float(certain.sum() + np.sum(-np.expm1(total[maybe])))


def intra_list_diversity_score(
    item_id,
    y_score,
    qid,
    *,
    k=10,
    item_categories=None,
    item_features=None,
    metric="jaccard",
    ties="average",
    sample_weight=None,
):
    """Mean pairwise distance between the items of each top ``k``, over queries.

    Intra-list diversity (ILD) of one query is the mean distance over the
    unordered pairs of its top ``k`` rows; the score averages it over queries.
    A query with fewer than two rows has no pair and is skipped; when every
    query is skipped the result is ``nan`` with an ``UndefinedMetricWarning``.

    Parameters
    ----------
    item_id : array-like of shape (n_samples,)
        Item id of each row, of any hashable dtype.
    y_score : array-like of shape (n_samples,)
        Predicted score of each row; higher ranks first.
    qid : array-like of shape (n_samples,)
        Query (or user) id of each row, of any hashable dtype.
    k : int, sequence of int or None, default=10
        Cut-off; ``None`` uses whole lists; a sequence returns one value per
        cut-off.
    item_categories : mapping or array-like, default=None
        Categories of the items, for ``metric="jaccard"`` (a collection of labels
        per item, e.g. a list of genres; a single label counts as a one-label set)
        or ``metric="mismatch"`` (one hashable label per item). Either *by item*: a
        dict or a pandas Series indexed by item id, holding every item of
        ``item_id``; or *by row*: a list or 1-D numpy array aligned with
        ``item_id``. Pass a column of the same frame as ``item_id`` by row, with
        ``.to_numpy()``.
    item_features : mapping or array-like, default=None
        Feature vectors for ``metric="cosine"``: *by item*, a dict of vectors or a
        pandas DataFrame indexed by item id (numeric columns); or *by row*, a 2-D
        array of shape (n_samples, n_features). Vectors must be finite and
        non-zero.
    metric : {"jaccard", "mismatch", "cosine"}, default="jaccard"
        Distance between two items: ``1 - |A & B| / |A | B|`` of their category
        sets, ``0`` for the same category and ``1`` otherwise, or ``1 - cos`` of
        their feature vectors (in ``[0, 2]``).
    ties : {"average", "stable", "reverse"}, default="average"
        Which of equally scored rows enter the top ``k``, as in
        :func:`catalog_coverage_score`; ``"average"`` gives the exact expected
        ILD over random orders of the tied rows. Its cost grows with the square
        of the number of rows that can enter a top ``k``.
    sample_weight : array-like of shape (n_samples,) or mapping, default=None
        Query weights, as in :func:`~skndcg.metrics.grouped_ndcg_score`.

    Returns
    -------
    diversity : float or ndarray of shape (n_cutoffs,)
        Mean ILD@k over the queries with at least two rows.

    See Also
    --------
    catalog_coverage_score : Share of the catalogue that is ever recommended.

    References
    ----------
    .. [1] C.-N. Ziegler, S. M. McNee, J. A. Konstan and G. Lausen, "Improving
       recommendation lists through topic diversification", WWW 2005.

    Examples
    --------
    >>> from skndcg.metrics import intra_list_diversity_score
    >>> genres = {"a": ["drama"], "b": ["drama", "crime"], "c": ["comedy"]}
    >>> item_id = ["a", "b", "c", "a", "c"]
    >>> y_score = [3, 2, 1, 2, 1]
    >>> qid = [1, 1, 1, 2, 2]
    >>> intra_list_diversity_score(
    ...     item_id, y_score, qid, k=2, item_categories=genres)
    0.75
    >>> intra_list_diversity_score(
    ...     item_id, y_score, qid, k=3, item_categories=genres)
    0.916...
    """
    ties = check_ties(ties)
    check_choice("metric", metric, _METRICS)
    ks, single = cutoffs(k)
    codes, uniques = item_codes(item_id)
    n = codes.shape[0]
    if metric == "cosine":
        if item_categories is not None:
            raise ValueError(
                "metric='cosine' compares item_features; item_categories must be "
                "None (use metric='jaccard' or 'mismatch' for categories)."
            )
        if item_features is None:
            raise ValueError("metric='cosine' needs item_features; got None.")
        unit, vectors = item_vectors(item_features, item_id, codes, uniques)
        indptr = labels = np.zeros(1, dtype=np.int64)  # no label sets
    else:
        if item_features is not None:
            raise ValueError(
                f"metric={metric!r} compares item_categories; item_features must be "
                "None (use metric='cosine' for feature vectors)."
            )
        if item_categories is None:
            raise ValueError(f"metric={metric!r} needs item_categories; got None.")
        unit, indptr, labels = item_categories_csr(
            item_categories, item_id, codes, uniques, single=metric == "mismatch"
        )
        vectors = np.zeros((0, 0))  # no feature vectors
    r = rank(y_score, qid, n, ties)
    weights = None
    if sample_weight is not None:
        if not isinstance(sample_weight, (dict, pd.Series)):
            w = as_1d(sample_weight, "sample_weight")
            if w.shape[0] != n:
                raise ValueError(
                    f"sample_weight has {w.shape[0]} rows but item_id has {n}; pass "
                    "one weight per row (constant within a query) or a mapping from "
                    "query id to weight."
                )
        weights = query_weights(sample_weight, r.grouping, n)
    unit_r = unit[r.rows]
    out = []
    for kk in ks:
        prob, boundary = membership(r, kk)
        keep = np.flatnonzero(prob > 0)
        n_q = r.qsize.shape[0]
        bounds = np.zeros(n_q + 1, dtype=np.int64)
        np.cumsum(np.bincount(r.gid[keep], minlength=n_q), out=bounds[1:])
        length = r.qsize if kk is None else np.minimum(r.qsize, kk)
        # Both rows in the boundary block: P(both chosen) = t(t-1) / (m(m-1)).
        take = np.zeros(n_q)
        size = np.ones(n_q)
        tb = keep[boundary[keep]]
        take[r.gid[tb]] = kk - r.block_pos[tb] if kk is not None else 0
        size[r.gid[tb]] = r.block_len[tb]
        pair_both = take * (take - 1) / np.maximum(size * (size - 1), 1)
        sums = np.zeros(n_q)
        args = (bounds, prob[keep], boundary[keep], pair_both, unit_r[keep], sums)
        n_chunks = max(1, min(n_q, 4 * num_threads()))
        cosine = metric == "cosine"
        run_chunks(_ild, n_chunks, n_chunks, *args, cosine, indptr, labels, vectors)
        n_pairs = length * (length - 1) / 2.0
        with np.errstate(divide="ignore", invalid="ignore"):
            ild = np.where(n_pairs > 0, sums / n_pairs, np.nan)
        out.append(_mean(ild, weights))
    out = np.array(out)
    return float(out[0]) if single else out


def _mean(values: np.ndarray, weights) -> float:
    ok = ~np.isnan(values)
    if not ok.any():
        return undefined(
            "intra-list diversity is undefined: no query has two rows in its top k "
            "(a single item has no pair); nan is returned.",
            3,
        )
    if weights is None:
        return float(np.mean(values[ok]))
    total = np.sum(weights[ok])
    if total <= 0:
        raise ValueError(
            "sample_weight sums to zero over the queries that are scored; at least "
            "one query with two or more rows needs a positive weight."
        )
    return float(np.sum(values[ok] * weights[ok]) / total)


@jit
def _ild(
    t, n_chunks, bounds, prob, boundary, pair_both, unit, out, cosine, indptr,
    labels, vectors,
):  # fmt: skip
    # 1 - cos of two units' vectors, or the Jaccard distance of their label sets
    d = vectors.shape[1]
    n_q = bounds.shape[0] - 1
    for q in range(n_q * t // n_chunks, n_q * (t + 1) // n_chunks):
        lo, hi = bounds[q], bounds[q + 1]
        total = 0.0
        for i in range(lo, hi):
            ua = unit[i]
            for j in range(i + 1, hi):
                w = pair_both[q] if boundary[i] and boundary[j] else prob[i] * prob[j]
                ub = unit[j]
                if cosine:
                    dot = 0.0
                    for f in range(d):
                        dot += vectors[ua, f] * vectors[ub, f]
                    total += w * (1.0 - dot)
                    continue
                a, a_end = indptr[ua], indptr[ua + 1]
                b, b_end = indptr[ub], indptr[ub + 1]
                union = (a_end - a) + (b_end - b)
                inter = 0
                while a < a_end and b < b_end:
                    if labels[a] == labels[b]:
                        inter += 1
                        a += 1
                        b += 1
                    elif labels[a] < labels[b]:
                        a += 1
                    else:
                        b += 1
                total += w * (1.0 - inter / (union - inter))
        out[q] = total
