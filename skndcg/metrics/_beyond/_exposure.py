"""How evenly the lists expose the catalogue: Gini, entropy, coverage (one number
for all the lists together, from each item's exposure)."""

from __future__ import annotations

import numpy as np

from .._core._validate import undefined
from ._coverage import catalog_size
from ._items import check_choice
from ._listwise import top_k_lists


def _log2_attention(lists, k):
    """Expected attention over the ranks a tied block spreads its rows on."""
    r = lists.ranked
    top = int(r.qsize.max()) + 1
    cum = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(top) + 2.0))))
    where = np.empty(r.rows.shape[0], dtype=np.int64)
    where[r.rows] = np.arange(r.rows.shape[0])
    at = where[lists.row]  # ranked position of every entry
    bp, bl = r.block_pos[at], r.block_len[at]
    end = bp + bl if k is None else np.minimum(bp + bl, k)
    return (cum[end] - cum[bp]) / bl


#: The weight of each shown entry, per ``weighting=``.
_WEIGHTINGS = {"uniform": lambda lists, k: lists.prob, "log2": _log2_attention}


def item_exposure(
    item_id, y_score, qid, *, k=10, catalog=None, weighting="uniform", ties="average"
):
    """Exposure of every catalogue item (zeros for items never shown)."""
    check_choice("weighting", weighting, _WEIGHTINGS)
    lists = top_k_lists(item_id, y_score, qid, k, ties)
    n_catalog = catalog_size(catalog, lists.uniques)
    w = _WEIGHTINGS[weighting](lists, k)
    exposure = np.bincount(lists.item, weights=w, minlength=lists.uniques.shape[0])
    return np.concatenate([exposure, np.zeros(n_catalog - lists.uniques.shape[0])])


_PARAMS = """
    Parameters
    ----------
    item_id, y_score, qid : array-like of shape (n_samples,)
        Item, score and query (user) of every row.
    k : int or None, default=10
        Cut-off.
    catalog : None, int or array-like, default=None
        The catalogue, as in :func:`catalog_coverage_score`; its items never
        shown count with exposure 0.
    weighting : {"uniform", "log2"}, default="uniform"
        A slot's exposure: 1, or the attention ``1 / log2(rank + 1)``.
    ties : {"average", "stable", "reverse"}, default="average"
        As in :func:`catalog_coverage_score` (expected exposure over random
        orders of tied rows)."""


_REFERENCES = """
    References
    ----------
    .. [1] G. Adomavicius and Y. Kwon, "Improving aggregate recommendation
       diversity using ranking-based techniques", IEEE TKDE 24(5), 2012."""


def _doc(f):
    f.__doc__ = f.__doc__.replace("    {params}", _PARAMS.strip("\n")).replace(
        "    {references}", _REFERENCES.strip("\n")
    )
    return f


@_doc
def exposure_gini_score(
    item_id, y_score, qid, *, k=10, catalog=None, weighting="uniform", ties="average"
):
    """Gini coefficient of the items' exposure in the top ``k`` of all lists.

    ``G = sum_i (2 i - n - 1) e_(i) / (n sum_i e_i)`` over the ``n``
    catalogue items sorted by exposure ``e``: 0 when every item is shown
    equally often, close to 1 when a few items take every slot (Adomavicius
    & Kwon, 2012; LensKit's exposure Gini with ``weighting="log2"``).

    {params}

    Returns
    -------
    gini : float

    {references}

    Examples
    --------
    >>> from skndcg.metrics import exposure_gini_score
    >>> item = ["a", "b", "a", "c"]
    >>> exposure_gini_score(item, [2, 1, 2, 1], [1, 1, 2, 2], k=1, catalog=3)
    0.6666666666666666
    """
    e = np.sort(item_exposure(**locals()))
    n = e.shape[0]
    i = np.arange(1, n + 1)
    return float(np.sum((2 * i - n - 1) * e) / (n * e.sum()))


@_doc
def exposure_entropy_score(
    item_id, y_score, qid, *, k=10, catalog=None, weighting="uniform", ties="average"
):
    """Shannon entropy (bits) of the items' share of exposure in all lists.

    ``H = -sum_i s_i log2(s_i)`` with ``s_i`` item ``i``'s share of all
    exposure (Adomavicius & Kwon, 2012): ``log2(n)`` when the ``n`` catalogue
    items are shown equally, 0 when one item takes every slot.

    {params}

    Returns
    -------
    entropy : float

    {references}

    Examples
    --------
    >>> from skndcg.metrics import exposure_entropy_score
    >>> exposure_entropy_score(["a", "b", "a", "c"], [2, 1, 2, 1], [1, 1, 2, 2],
    ...                        k=2)
    1.5
    """
    return _entropy(item_exposure(**locals()))


def _entropy(e):
    s = e[e > 0] / e.sum()  # (every kept row is exposed: the sum is positive)
    return float(-np.sum(s * np.log2(s)))


@_doc
def distributional_coverage_score(
    item_id, y_score, qid, *, k=10, catalog=None, weighting="uniform", ties="average"
):
    """Exposure entropy over its maximum: ``H / log2(n)`` for ``n`` items.

    1 when every catalogue item gets the same exposure, 0 when one item gets
    it all: catalogue coverage that also asks how evenly the catalogue is
    covered (the normalised entropy of Adomavicius & Kwon, 2012).

    {params}

    Returns
    -------
    coverage : float in [0, 1]

    {references}

    Examples
    --------
    >>> from skndcg.metrics import distributional_coverage_score
    >>> distributional_coverage_score(["a", "b", "a", "c"], [2, 1, 2, 1],
    ...                               [1, 1, 2, 2], k=2, catalog=4)
    0.75
    """
    e = item_exposure(**locals())
    if e.shape[0] < 2:
        return undefined(
            "distributional_coverage is undefined for a one-item catalogue (its "
            "entropy has no range); nan is returned.",
            2,
        )
    return _entropy(e) / float(np.log2(e.shape[0]))
