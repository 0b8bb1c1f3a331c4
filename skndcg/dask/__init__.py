"""Grouped ranking metrics on a :class:`dask.dataframe.DataFrame`.

The same numbers as :mod:`skndcg.metrics` computed in memory, on a table spread
over partitions or over a cluster. Each query is scored whole by the in-memory
:func:`skndcg.metrics.ranking_report` inside one partition, and the means are put
together from per-query values and weights exactly as in memory.

Rows are shuffled by query id only when needed. A frame indexed by the query id
with known divisions (``ddf.set_index("qid")``) is already laid out by query, as is
one whose caller passes ``partitioned_by_qid=True``; every other frame is shuffled
by query id first, keeping the order of each query's rows (which the tie rules
``"stable"``, ``"reverse"`` and ``"quicksort"`` read). Known divisions are
checked as the partitions are scored: when one query id lies in two partitions
(sorted Parquet shards that share a query report such divisions), the means are
computed again on the frame shuffled by query id.

Needs the ``dask`` extra: ``pip install 'skndcg[dask]'``.
"""

import math

import numpy as np

from .._partial._driver import columns_of, finish, setup_of, sum_columns
from .._partial._pieces import report_template
from ._frame import (
    END_COLUMNS,
    compute,
    import_dask,
    lay_out,
    score_partition,
    spanning_qid,
)


def _prepare(args):
    import_dask()
    from dask.dataframe.utils import meta_nonempty

    ddf, cols = args["ddf"], columns_of(args)
    spec = setup_of(args, "ddf")
    layout = lay_out(ddf, cols, args["partitioned_by_qid"], args["options"])
    if spec.needs_label_max:
        # ERR's default g_max: the largest label, before any shuffle.
        import dask

        labels = layout.labels(ddf)
        top, has_nan = dask.compute(labels.max(), labels.isna().any())
        spec.know_label_max([top, math.nan] if has_nan else [top])
    sample = meta_nonempty(ddf._meta)
    if layout.qid_in_index or cols["qid_col"] not in sample.columns:
        sample = sample.reset_index()
    template = report_template(sample, spec.names, **spec.columns)
    kwargs = dict(
        layout_shuffled=layout.shuffled,
        qid_in_index=layout.qid_in_index,
        expected=layout.expected,
        template=template,
        spec=spec,
    )
    return spec.names, layout, template, kwargs


def grouped_ranking_scores(
    ddf,
    metrics,
    *,
    qid_col,
    label_col,
    score_col,
    doc_col=None,
    sample_weight_col=None,
    sample_weight=None,
    item_col=None,
    popularity=None,
    partitioned_by_qid=None,
    progress=None,
    **options,
):
    """Means of several ranking metrics over the queries of a dask DataFrame.

    Equal (to rounding, far below 1e-12) to
    :func:`skndcg.metrics.grouped_ranking_scores` on the same rows
    gathered in memory, in the order of the partitions.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per (query, candidate). Queries may span partitions.
    metrics : str or sequence of str
        Metric names, as in :func:`skndcg.metrics.grouped_ranking_scores`.
    qid_col, label_col, score_col : str
        Columns holding the query ids, the relevance labels and the scores.
        ``qid_col`` may also name the index.
    doc_col : str, default=None
        Column of document ids, passed on as ``doc_id`` (used by the tie rules
        that order tied scores by document id).
    sample_weight_col : str, default=None
        Column of per-row query weights, constant within a query.
    sample_weight : dict or pandas.Series, default=None
        Query weights as a mapping from query id to weight (instead of
        ``sample_weight_col``).
    item_col : str, default=None
        Column of item ids, passed on as ``item_id``: read by the per-user
        beyond-accuracy measures (``"novelty@10"``, ``"arp@10"``,
        ``"aplt@10"``, ``"aclt@10"``, ``"long_tail_recall@10"``,
        ``"serendipity@10"``), which need ``popularity`` too.
    popularity : dict or array-like, default=None
        The items' training popularity, as in
        :func:`skndcg.metrics.grouped_ranking_scores` (a dict of counts by
        item, or the training log's item ids). It is sent whole with every
        partition, so each query reads the same table as in memory.
    partitioned_by_qid : bool or None, default=None
        ``None``: rows are shuffled by query id unless ``ddf`` is indexed by
        ``qid_col`` with known divisions. ``True``: the caller promises every
        query lies within one partition, so nothing is shuffled; the promise is
        checked (the queries counted per partition must add up to the distinct
        query ids) and a broken one raises. ``False``: always shuffle.
    progress : bool or None, default=None
        Show a progress bar over partitions (after a few seconds). ``None``: only
        when standard error is a terminal.
    **options
        Every other keyword of :func:`skndcg.metrics.grouped_ranking_scores`
        (``convention``, ``gain``, ``ties``, ``empty``, ``k``-free options, ...),
        passed on unchanged.

    Returns
    -------
    scores : dict
        Metric name (as given) to its mean over queries.

    See Also
    --------
    ranking_report : The per-query values behind the means, as a dask DataFrame.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from skndcg.dask import grouped_ranking_scores
    >>> df = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2],
    ...                    "label": [1, 0, 2, 0, 1, 1],
    ...                    "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]})
    >>> ddf = dd.from_pandas(df, npartitions=3)
    >>> scores = grouped_ranking_scores(ddf, ["ndcg@2", "mrr"], qid_col="qid",
    ...                                 label_col="label", score_col="score")
    >>> {name: round(value, 4) for name, value in scores.items()}
    {'ndcg@2': 0.3835, 'mrr': 0.75}
    >>> df["item"] = ["a", "b", "c", "a", "d", "b"]
    >>> grouped_ranking_scores(dd.from_pandas(df, npartitions=3),
    ...                        ["novelty@2", "arp@2"], qid_col="qid",
    ...                        label_col="label", score_col="score",
    ...                        item_col="item",
    ...                        popularity={"a": 4, "b": 2, "c": 1, "d": 1})
    {'novelty@2': 1.75, 'arp@2': 2.75}
    """
    names, layout, _, kwargs = _prepare(locals())
    import pandas as pd

    # Known divisions are trusted once checked: a query found in two
    # partitions (by their smallest and largest ids) sends the frame through
    # the shuffle (as partitioned_by_qid=False).
    ends = not layout.shuffled and not layout.verify
    meta = pd.DataFrame({c: pd.Series(dtype="float64") for c in sum_columns(names)})
    if ends:
        meta = meta.assign(**{c: pd.Series(dtype=object) for c in END_COLUMNS})
    sums = layout.frame.map_partitions(
        score_partition, what="sums", meta=meta, ends=ends, **kwargs
    )
    delayeds = list(sums.to_delayed())
    if layout.verify:
        frame = layout.frame
        ids = frame.index.to_series() if layout.qid_in_index else frame[qid_col]
        delayeds.append(ids.nunique().to_delayed())
    results = compute(delayeds, progress)
    parts = pd.concat(results[: sums.npartitions], ignore_index=True)
    if ends:
        if spanning_qid(parts) is not None:
            return grouped_ranking_scores(
                ddf, metrics, **columns_of(locals()), sample_weight=sample_weight,
                popularity=popularity, partitioned_by_qid=False,
                progress=progress, **options,
            )  # fmt: skip
        parts = parts.drop(columns=list(END_COLUMNS))
    parts = parts.to_numpy(dtype=np.float64)
    if layout.verify and int(parts[:, -1].sum()) != int(results[-1]):
        raise ValueError(
            f"partitioned_by_qid=True, but the partitions hold "
            f"{int(parts[:, -1].sum())} query groups for {int(results[-1])} "
            f"distinct ids in {qid_col!r}: some queries are split across "
            "partitions. Drop the flag to have rows shuffled by query id, or lay "
            f"the frame out by query first (e.g. ddf.set_index({qid_col!r}))."
        )
    message = "ddf has no rows; at least one row is required."
    return finish(parts, kwargs["spec"], message)[0]


def ranking_report(
    ddf,
    *,
    metrics=("ndcg@10",),
    qid_col,
    label_col,
    score_col,
    doc_col=None,
    sample_weight_col=None,
    sample_weight=None,
    item_col=None,
    popularity=None,
    partitioned_by_qid=None,
    **options,
):
    """One row per query, lazily, as a dask DataFrame.

    Each partition holds the :func:`skndcg.metrics.ranking_report` of the whole
    queries it holds, with the same columns; each query appears once (unless
    ``partitioned_by_qid=True`` is passed for a frame that splits queries, which
    is not checked here). Rows follow the partitions, and within one partition
    the query ids.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per (query, candidate).
    metrics : str or sequence of str, default=("ndcg@10",)
        Metric names, as in :func:`skndcg.metrics.ranking_report`.
    qid_col, label_col, score_col, doc_col, sample_weight_col, sample_weight
        As in :func:`grouped_ranking_scores`.
    item_col, popularity : default=None
        As in :func:`grouped_ranking_scores`.
    partitioned_by_qid : bool or None, default=None
        As in :func:`grouped_ranking_scores`.
    **options
        Every other keyword of :func:`skndcg.metrics.ranking_report`.

    Returns
    -------
    report : dask.dataframe.DataFrame
        The per-query report; nothing is computed until asked.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from skndcg.dask import ranking_report
    >>> df = pd.DataFrame({"qid": ["a", "b", "a", "b", "a"],
    ...                    "label": [3, 0, 2, 0, 0],
    ...                    "score": [0.1, 0.3, 0.9, 0.2, 0.5]})
    >>> report = ranking_report(dd.from_pandas(df, npartitions=2),
    ...                         metrics="ndcg@3", qid_col="qid",
    ...                         label_col="label", score_col="score")
    >>> local = report.compute().sort_values("qid", ignore_index=True)
    >>> local[["qid", "n_items", "ndcg@3"]].round(4)
      qid  n_items  ndcg@3
    0   a        3  0.8212
    1   b        2     NaN
    """
    _, layout, template, kwargs = _prepare(locals())
    return layout.frame.map_partitions(
        score_partition, what="report", meta=template, clear_divisions=True, **kwargs
    )


__all__ = ["grouped_ranking_scores", "ranking_report"]
