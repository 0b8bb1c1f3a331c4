"""Scoring a Parquet file batch by batch, in bounded memory."""

from .._partial._driver import (
    columns_of,
    finish,
    label_candidates,
    progress_bar,
    setup_of,
    sums_of,
    whole_queries,
)
from .._partial._pieces import check_columns
from ..io import ParquetColumns, read_predictions_chunks
from ..metrics._shared import RowsError
from ..utils._args import check_flags
from ..utils._counts import check_rows
from ._order import GroupedCheck


def score_parquet(
    path,
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
    batch_size=1 << 20,
    progress=None,
    return_counts=False,
    **options,
):
    """Means of ranking metrics over a Parquet file too large for memory.

    The file is read once, in order, ``batch_size`` rows at a time (row groups are
    decoded one by one by pyarrow). Every query whose rows are all read is scored
    with the in-memory :func:`skndcg.metrics.ranking_report`; the rows of the last
    query of a batch wait for the next batch, so queries may cross batch and
    row-group boundaries. The means are put together from the per-query values
    exactly as :func:`skndcg.metrics.grouped_ranking_scores` would compute them on
    the whole file in memory.

    Parameters
    ----------
    path : str or path-like
        A Parquet file whose rows are grouped by query id (each query's rows
        together, e.g. sorted by it). This is checked as the file is read: a query
        id that comes back after another query raises an error; a file not
        grouped by query can be scored with :mod:`skndcg.dask`.
    metrics : str or sequence of str
        Metric names, as in :func:`skndcg.metrics.grouped_ranking_scores`.
    qid_col, label_col, score_col : str
        Columns holding the query ids, the relevance labels and the scores.
    doc_col : str, default=None
        Column of document ids, passed on as ``doc_id``.
    sample_weight_col : str, default=None
        Column of per-row query weights, constant within a query.
    sample_weight : dict or pandas.Series, default=None
        Query weights as a mapping from query id to weight.
    item_col : str, default=None
        Column of item ids, passed on as ``item_id``: read by the per-user
        beyond-accuracy measures (``"novelty@10"``, ``"arp@10"``,
        ``"aplt@10"``, ``"aclt@10"``, ``"long_tail_recall@10"``,
        ``"serendipity@10"``), which need ``popularity`` too.
    popularity : dict or array-like, default=None
        The items' training popularity, as in
        :func:`skndcg.metrics.grouped_ranking_scores` (a dict of counts by
        item, or the training log's item ids); every batch reads the whole
        table, as the whole file would in memory.
    batch_size : int, default=1048576
        Rows decoded at a time; memory grows with it (plus the longest query).
    progress : bool or None, default=None
        Show a progress bar over rows (after a few seconds). ``None``: only when
        standard error is a terminal.
    return_counts : bool, default=False
        Also return the number of queries each mean covers.
    **options
        Every other keyword of :func:`skndcg.metrics.grouped_ranking_scores`.

    Returns
    -------
    scores : dict
        Metric name (as given) to its mean over queries.
    counts : dict
        Metric name to the number of queries its mean covers; only with
        ``return_counts=True``.

    Examples
    --------
    >>> import pandas as pd
    >>> import tempfile, pathlib
    >>> from skndcg.streaming import score_parquet
    >>> df = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2],
    ...                    "label": [1, 0, 2, 0, 1, 1],
    ...                    "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "run.parquet"
    ...     df.to_parquet(path, row_group_size=4)
    ...     scores = score_parquet(path, ["ndcg@2", "mrr"], qid_col="qid",
    ...                            label_col="label", score_col="score",
    ...                            batch_size=2)
    >>> {name: round(value, 4) for name, value in scores.items()}
    {'ndcg@2': 0.3835, 'mrr': 0.75}
    """
    check_rows(batch_size, "batch_size")
    check_flags(return_counts=return_counts)
    spec = setup_of(locals(), "the file")
    where = str(path)
    file = ParquetColumns(path)
    check_columns(file.names, columns_of(spec.columns), where)
    chunks = read_predictions_chunks(
        file, qid=qid_col, label=label_col, score=score_col, doc=doc_col,
        weight=sample_weight_col, item=spec.columns["item_col"],
        chunk_rows=batch_size,
        empty_labels=options.get("nan_label") == "unjudged",  # as in memory
    )  # fmt: skip
    if spec.needs_label_max:
        found = []
        for frame in file.frames([label_col], batch_size):
            found += label_candidates(frame[label_col].to_numpy())
        spec.know_label_max(found)
    batches = (chunk.reset_index(drop=True) for chunk in chunks)
    check = GroupedCheck(where, qid_col)
    parts = []
    with progress_bar(file.num_rows, progress) as bar:
        for first_row, piece in whole_queries(
            batches, qid_col, check, bar, aligned=True
        ):
            try:
                parts.append(sums_of(piece, spec))
            except (ValueError, TypeError) as exc:
                last = first_row + len(piece) - 1
                err = exc
                if isinstance(exc, RowsError):  # the row as the file numbers it
                    err = exc.placed(f"first at row {first_row + exc.row} of the file")
                raise type(err)(f"{where}, rows {first_row}-{last}: {err}") from exc
    means, counts = finish(
        parts, spec, f"{where} has no rows; at least one row is required."
    )
    return (means, counts) if return_counts else means
