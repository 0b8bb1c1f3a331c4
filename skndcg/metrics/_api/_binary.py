"""Public grouped metrics of binary relevance: MAP, MRR, precision, recall, hits."""

from __future__ import annotations

from .._core import _blocks as K
from ._ranking import doc, score


@doc
def grouped_map_score(
    y_true,
    y_score,
    qid,
    *,
    k=10,
    denominator=None,
    rel_threshold=None,
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    doc_id=None,
    nan_score=None,
    queries=None,
):
    """Mean average precision at ``k`` (AP@k averaged over queries).

    AP@k sums the precision at the position of every relevant row ranked in the
    top ``k`` and divides by ``denominator``. With ``ties="average"`` the result is
    the exact expectation over the orderings of tied rows [3]_.

    Parameters
    ----------
    {common}
    k : int, sequence of int or None, default=10
        Cut-off; ``None`` uses the whole list; a sequence returns an array.
    denominator : {{"relevant", "min_k_relevant", "hits"}}, default=None
        What the sum of precisions is divided by: the number of relevant rows of
        the query (``"relevant"``, the default; trec_eval and ranx), the smaller
        of ``k`` and that number (``"min_k_relevant"``; LightGBM, Spark, Microsoft
        Recommenders), or the relevant rows retrieved in the top ``k``
        (``"hits"``; torchmetrics).
    {binary}

    Returns
    -------
    score : float or ndarray of shape (n_cutoffs,)
        Mean AP@k over the scored queries.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import grouped_map_score
    >>> y_true = [1, 0, 1, 0, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> qid = [1, 1, 1, 1, 1, 1]
    >>> round(grouped_map_score(y_true, y_score, qid, k=None), 4)
    0.7222
    >>> round(grouped_map_score(y_true, y_score, qid, k=3), 4)
    0.5556
    >>> round(grouped_map_score(y_true, y_score, qid, k=3, denominator="hits"), 4)
    0.8333
    """
    return score(K.AP, denominator_of="ap_denominator", **locals())


@doc
def grouped_mrr_score(
    y_true,
    y_score,
    qid,
    *,
    k=None,
    rel_threshold=None,
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    doc_id=None,
    nan_score=None,
    queries=None,
):
    """Mean reciprocal rank: ``1 / rank`` of the first relevant row, averaged.

    With a cut-off ``k``, a query whose first relevant row ranks below ``k``
    scores 0 (RR@k). With ``ties="average"`` the result is the exact expectation
    over the orderings of tied rows [3]_.

    Parameters
    ----------
    {common}
    k : int, sequence of int or None, default=None
        Cut-off; ``None`` (the default) uses the whole list.
    {binary}

    Returns
    -------
    score : float or ndarray of shape (n_cutoffs,)
        Mean reciprocal rank over the scored queries.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import grouped_mrr_score
    >>> y_true, y_score = [0, 1, 0, 0, 0, 1], [3, 2, 1, 3, 2, 1]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> grouped_mrr_score(y_true, y_score, qid)
    0.41666...
    >>> grouped_mrr_score(y_true, y_score, qid, k=2)
    0.25
    """
    return score(K.RR, **locals())


@doc
def grouped_precision_score(
    y_true,
    y_score,
    qid,
    *,
    k=10,
    denominator=None,
    rel_threshold=None,
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    doc_id=None,
    nan_score=None,
    queries=None,
):
    """Precision at ``k``: the share of relevant rows in the top ``k``, averaged.

    Parameters
    ----------
    {common}
    k : int, sequence of int or None, default=10
        Cut-off; ``None`` uses the whole list; a sequence returns an array.
    denominator : {{"k", "min_k_items"}}, default=None
        ``"k"`` (the default; trec_eval, ranx, torchmetrics) divides by ``k`` even
        when a query has fewer than ``k`` rows, so such a query cannot reach 1;
        ``"min_k_items"`` divides by the number of rows actually ranked
        (torchmetrics' ``adaptive_k=True``).
    {binary}

    Returns
    -------
    score : float or ndarray of shape (n_cutoffs,)
        Mean P@k over the scored queries.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import grouped_precision_score
    >>> y_true, y_score, qid = [1, 0, 1], [0.9, 0.8, 0.7], [5, 5, 5]
    >>> grouped_precision_score(y_true, y_score, qid, k=2)
    0.5
    >>> round(grouped_precision_score(y_true, y_score, qid, k=5), 4)
    0.4
    >>> round(grouped_precision_score(y_true, y_score, qid, k=5,
    ...                               denominator="min_k_items"), 4)
    0.6667
    """
    return score(K.PRECISION, denominator_of="p_denominator", **locals())


@doc
def grouped_recall_score(
    y_true,
    y_score,
    qid,
    *,
    k=10,
    rel_threshold=None,
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    doc_id=None,
    nan_score=None,
    queries=None,
):
    """Recall at ``k``: the share of a query's relevant rows found in its top ``k``.

    Parameters
    ----------
    {common}
    k : int, sequence of int or None, default=10
        Cut-off; ``None`` uses the whole list; a sequence returns an array.
    {binary}

    Returns
    -------
    score : float or ndarray of shape (n_cutoffs,)
        Mean R@k over the scored queries.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import grouped_recall_score
    >>> grouped_recall_score([1, 0, 1, 1], [0.9, 0.8, 0.7, 0.1], [1, 1, 1, 1], k=2)
    0.33333...
    """
    return score(K.RECALL, **locals())


@doc
def grouped_hit_rate_score(
    y_true,
    y_score,
    qid,
    *,
    k=10,
    rel_threshold=None,
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    doc_id=None,
    nan_score=None,
    queries=None,
):
    """Hit rate at ``k``: the share of queries with a relevant row in their top ``k``.

    With ``ties="average"``, a query whose top ``k`` is cut through a block of
    tied rows scores the probability that a relevant row lands above the cut.

    Parameters
    ----------
    {common}
    k : int, sequence of int or None, default=10
        Cut-off; ``None`` uses the whole list; a sequence returns an array.
    {binary}

    Returns
    -------
    score : float or ndarray of shape (n_cutoffs,)
        Mean hit@k over the scored queries.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import grouped_hit_rate_score
    >>> grouped_hit_rate_score([0, 1, 0, 0, 0, 1], [3, 2, 1, 3, 2, 1],
    ...                        [1, 1, 1, 2, 2, 2], k=2)
    0.5
    >>> grouped_hit_rate_score([0, 1, 0], [1, 1, 1], [1, 1, 1], k=1)
    0.33333...
    """
    return score(K.HIT, **locals())
