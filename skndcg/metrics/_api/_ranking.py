"""Public grouped ranking metrics on flat ``(y_true, y_score, qid)`` arrays."""

from __future__ import annotations

from ...utils._args import metric_names
from .._beyond._topk import cutoffs
from .._catalogue._names import MetricSpec
from .._conventions import pick
from .._core import _blocks as K
from .._core._engine import evaluate

#: The references every metric docstring cites.
REFERENCES = """
    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    .. [2] C. Burges, T. Shaked, E. Renshaw, A. Lazier, M. Deeds, N. Hamilton and
       G. Hullender, "Learning to rank using gradient descent", ICML 2005.
    .. [3] F. McSherry and M. Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008.
"""

_COMMON = """
    y_true : array-like of shape (n_samples,)
        Relevance label of each row (graded or binary). Lists, numpy arrays, pandas
        and polars Series are accepted.
    y_score : array-like of shape (n_samples,)
        Predicted score of each row; higher ranks first.
    qid : array-like of shape (n_samples,)
        Query (or user) id of each row, of any hashable dtype. Rows of one query
        need not be contiguous and queries may have any size, 1 included.
"""

_OPTIONS = """
    ties : {{"average", "stable", "reverse", "docid", "pessimistic"}}, default=None
        How rows with equal scores are ordered. ``"average"`` (the default) gives
        the exact expected value over every ordering of the tied rows (McSherry &
        Najork, 2008), so the result does not depend on the row order.
        ``"stable"`` keeps the input order within a query (LightGBM, XGBoost);
        ``"reverse"`` the reverse input order; ``"docid"`` orders them by
        ``doc_id``, descending (trec_eval); ``"pessimistic"`` puts the least
        relevant first (CatBoost).
    empty : {{"skip", "zero", "one", "error"}}, default=None
        What a query with nothing relevant scores: ``"skip"`` (the
        default) leaves it out of the average, ``"zero"`` and ``"one"`` score it
        0 or 1, ``"error"`` raises. When every query is skipped the result is
        ``nan`` with an ``UndefinedMetricWarning``.
    sample_weight : array-like of shape (n_samples,) or mapping, default=None
        Query weights: one value per row, constant within each query, or a
        mapping (dict or pandas Series) from query id to weight. The result is
        the weighted mean over the scored queries.
    convention : str or None, default=None
        A preset that reproduces another library's number on the same input:
        ``"skndcg"`` (default), ``"sklearn"``, ``"lightgbm"``, ``"xgboost"``,
        ``"trec_eval"`` (trec_eval 10.0), ``"pytrec_eval"`` (pytrec_eval-terrier
        0.5, scores compared as float32), ``"ranx"``, ``"catboost"`` or
        ``"torchmetrics"``. An
        explicit option that contradicts the preset raises ``ValueError``.
    doc_id : array-like of shape (n_samples,), default=None
        Document id of each row. With ``ties="docid"``, and with the
        ``"trec_eval"`` and ``"pytrec_eval"`` presets, rows with equal scores are
        ordered by document id, descending, as trec_eval does.
    nan_score : {{"error", "unretrieved"}}, default=None
        What a NaN in ``y_score`` means. ``"error"`` (the default) refuses it;
        ``"unretrieved"`` marks a judged row the system did not return: it counts
        in the ideal DCG, in the relevant count and in the recall and AP
        denominators, but never takes a rank.
    queries : {{"retrieved", "judged"}}, default=None
        Which queries the mean covers: those with at least one retrieved row
        (``"retrieved"``, the default, as trec_eval), or every query given
        (``"judged"``, trec_eval ``-c``), where a query with nothing retrieved
        scores 0.
"""

_BINARY = """
    rel_threshold : float or None, default=None
        A row is relevant when ``label >= rel_threshold``; when None, when
        ``label > 0`` (ir-measures' ``rel=2`` is ``rel_threshold=2``).
"""


def doc(fn):
    # Placeholders stand indented in the docstrings: the first inserted line
    # takes that indentation, the others carry their own. {binary} is
    # rel_threshold followed by the options.
    options = _OPTIONS.format().strip()
    fn.__doc__ = fn.__doc__.format(
        common=_COMMON.strip(),
        options=options,
        binary=f"{_BINARY.strip()}\n    {options}",
        references=REFERENCES.strip(),
    )
    return fn


def score(kind, y_true, y_score, qid, k, *, sample_weight=None, doc_id=None,
           denominator=None, denominator_of=None, **options):  # fmt: skip
    """The body of a public one-metric function, called with its arguments:
    metric ``kind`` at ``k``; ``denominator`` sets option ``denominator_of``."""
    if denominator_of is not None:
        options[denominator_of] = denominator
    ks, single = cutoffs(k)
    specs = [MetricSpec(kind, x) for x in ks]
    means = evaluate(
        y_true,
        y_score,
        qid,
        specs,
        sample_weight=sample_weight,
        doc_id=doc_id,
        **options,
    ).means(depth=2)  # the warning names the line calling the public function
    return float(means[0]) if single else means


@doc
def grouped_ndcg_score(
    y_true,
    y_score,
    qid,
    *,
    k=10,
    gain=None,
    discount="log2",
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    doc_id=None,
    nan_score=None,
    queries=None,
):
    """Normalised discounted cumulative gain at ``k``, averaged over queries.

    For each query, DCG@k sums the gains of the ``k`` best-scored rows, each
    divided by the discount of its position; NDCG@k divides that by the DCG@k of
    the ideal order (labels sorted by gain) [1]_. Unlike
    :func:`sklearn.metrics.ndcg_score`, the queries come as flat arrays with a
    query id per row, of any sizes.

    Parameters
    ----------
    {common}
    k : int, sequence of int or None, default=10
        Cut-off: only the top ``k`` positions count. ``None`` uses the whole
        list. A sequence of cut-offs is answered in one pass and returns an array.
    gain : {{"linear", "exponential"}} or callable, default=None
        Gain of a label: ``"linear"`` (the label itself, the default),
        ``"exponential"`` (``2**label - 1``, Burges et al. [2]_) or a vectorised
        callable mapping labels to gains.
    discount : "log2", array-like or callable, default="log2"
        Weight of each position: ``"log2"`` is ``1 / log2(rank + 1)``; an array
        gives per-position weights (for example from a position-bias model) and
        must cover every counted position; a callable receives the 1-based ranks.
    {options}

    Returns
    -------
    score : float or ndarray of shape (n_cutoffs,)
        Mean NDCG@k over the scored queries, or one mean per cut-off when ``k``
        is a sequence.

    See Also
    --------
    grouped_dcg_score : The unnormalised DCG@k.
    ranking_report : Per-query DCG, ideal DCG and NDCG.
    sklearn.metrics.ndcg_score : The same metric on a dense 2-D matrix.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import grouped_ndcg_score
    >>> y_true = [3, 2, 3, 0, 1, 2, 0, 1]
    >>> y_score = [0.9, 0.8, 0.1, 0.2, 0.5, 0.3, 0.7, 0.4]
    >>> qid = [1, 1, 1, 1, 1, 2, 2, 2]
    >>> round(grouped_ndcg_score(y_true, y_score, qid, k=3), 4)
    0.714
    >>> grouped_ndcg_score(y_true, y_score, qid, k=[1, 3])
    array([0.5       , 0.7139...])
    """
    return score(K.NDCG, **locals())


@doc
def grouped_dcg_score(
    y_true,
    y_score,
    qid,
    *,
    k=10,
    gain=None,
    discount="log2",
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    doc_id=None,
    nan_score=None,
    queries=None,
):
    """Discounted cumulative gain at ``k``, averaged over queries.

    DCG@k sums the gains of the ``k`` best-scored rows of a query, each divided
    by the discount of its position [1]_. It is not normalised, so queries with
    more relevant items weigh more; :func:`grouped_ndcg_score` normalises it.

    Parameters
    ----------
    {common}
    k : int, sequence of int or None, default=10
        Cut-off; ``None`` uses the whole list; a sequence returns an array.
    gain : {{"linear", "exponential"}} or callable, default=None
        Gain of a label, as in :func:`grouped_ndcg_score`.
    discount : "log2", array-like or callable, default="log2"
        Weight of each position, as in :func:`grouped_ndcg_score`.
    {options}

    Returns
    -------
    score : float or ndarray of shape (n_cutoffs,)
        Mean DCG@k over the scored queries.

    See Also
    --------
    grouped_ndcg_score : The normalised version.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import grouped_dcg_score
    >>> y_true = [3, 2, 3, 0, 1]
    >>> y_score = [5, 4, 3, 2, 1]
    >>> qid = [7, 7, 7, 7, 7]
    >>> round(grouped_dcg_score(y_true, y_score, qid, k=5), 4)
    6.1487
    """
    return score(K.DCG, **locals())


@doc
def grouped_ranking_scores(
    y_true,
    y_score,
    qid,
    metrics,
    *,
    gain=None,
    discount="log2",
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    rel_threshold=None,
    ap_denominator=None,
    p_denominator=None,
    doc_id=None,
    nan_score=None,
    queries=None,
    nan_label=None,
    item_id=None,
    popularity=None,
):
    """Several ranking metrics at once, with one grouping and one selection pass.

    Parameters
    ----------
    {common}
    metrics : sequence of str
        Metric names, ir-measures style and case-insensitive: ``"ndcg@10"``,
        ``"dcg@5"``, ``"map@10"`` (or ``"ap@10"``), ``"mrr"`` (or ``"rr@10"``),
        ``"p@5"``, ``"r@20"``, ``"hit@10"``, ``"rbp(p=0.8)"``, and any measure
        added with :func:`define_measure`. Without ``@k`` the whole list counts.
        The per-user beyond-accuracy measures ``"novelty(n_users=N)@k"``,
        ``"arp@k"``, ``"aplt(long_tail=0.2)@k"``, ``"aclt(long_tail=0.2)@k"``,
        ``"long_tail_recall(long_tail=0.2)@k"`` and ``"serendipity@k"`` read
        ``item_id`` and ``popularity`` too.
    gain : {{"linear", "exponential"}} or callable, default=None
        Gain of a label for the DCG family.
    discount : "log2", array-like or callable, default="log2"
        Position weights for the DCG family.
    {options}
    rel_threshold : float or None, default=None
        Binary relevance for MAP, MRR, precision, recall and hit rate: a row is
        relevant when ``label >= rel_threshold``, or ``label > 0`` when None.
    ap_denominator : {{"relevant", "min_k_relevant", "hits"}}, default=None
        Denominator of AP@k, see :func:`grouped_map_score`.
    p_denominator : {{"k", "min_k_items"}}, default=None
        Denominator of P@k, see :func:`grouped_precision_score`.
    nan_label : {{"error", "unjudged"}}, default=None
        What a NaN in ``y_true`` means. ``"error"`` (the default) refuses it;
        ``"unjudged"`` marks a retrieved row nobody judged: it is not relevant
        (trec_eval's rule) to every measure but those that use unjudged rows
        (``bpref``, ``judged@k``), and a measure that cannot tell refuses it.
    item_id : array-like of shape (n_samples,), default=None
        Item of each row, for the beyond-accuracy measures.
    popularity : dict or array-like, default=None
        Training popularity of the items, for the beyond-accuracy measures: a
        dict of counts by item, or the training log's item ids, as in
        :func:`novelty_score`. Every item of ``item_id`` must have a count.

    Returns
    -------
    scores : dict
        Metric name (as given) to its mean over queries.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import grouped_ranking_scores
    >>> scores = grouped_ranking_scores(
    ...     [1, 0, 2, 0, 1, 1], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], [1, 1, 1, 2, 2, 2],
    ...     ["ndcg@2", "mrr", "p@2"])
    >>> {{name: round(value, 4) for name, value in scores.items()}}
    {{'ndcg@2': 0.3835, 'mrr': 0.75, 'p@2': 0.5}}
    >>> grouped_ranking_scores(
    ...     [1, 0, 2, 0, 1, 1], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], [1, 1, 1, 2, 2, 2],
    ...     ["novelty@2", "arp@2"], item_id=["a", "b", "c", "a", "d", "b"],
    ...     popularity=["a", "a", "a", "a", "b", "b", "c", "d"])
    {{'novelty@2': 1.75, 'arp@2': 2.75}}
    """
    names = metric_names(metrics)
    means = evaluate(
        y_true,
        y_score,
        qid,
        names,
        sample_weight=sample_weight,
        doc_id=doc_id,
        side={"item_id": item_id, "popularity": popularity},
        **pick(locals()),
    ).means()
    return {name: float(v) for name, v in zip(names, means, strict=True)}
