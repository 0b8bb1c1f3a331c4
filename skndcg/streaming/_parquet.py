"""Scoring a Parquet file batch by batch, in bounded memory."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from .._partial._means import N_SUMS, averaging, combine, metric_names, partial_sums
from .._partial._pieces import (
    check_columns,
    check_weights,
    label_sums,
    report_piece,
)
from ..io import read_predictions_chunks
from ._order import GroupedCheck


def import_pyarrow():
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - the extra installs it
        raise ImportError(
            "skndcg.streaming needs pyarrow; install it with "
            "pip install 'skndcg[stream]'."
        ) from exc
    return pq


def _run_starts(q: np.ndarray) -> np.ndarray:
    """Row where each run of equal query ids starts."""
    if q.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(q[1:] != q[:-1]) + 1
    return np.concatenate([[0], change])


def _progress_bar(total, progress):
    show = sys.stderr.isatty() if progress is None else bool(progress)
    if not show:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="rows", unit_scale=True, delay=3, file=sys.stderr)


class _Scorer:
    """Scores whole queries and keeps the partial sums of their means."""

    def __init__(self, where, names, rules, columns, queries):
        self.where = where
        self.names = names
        self.rules = rules
        self.columns = columns
        self.queries = queries
        self.parts: list[np.ndarray] = []
        self.weighted = False

    def score(self, frame: pd.DataFrame, first_row: int) -> None:
        if len(frame) == 0:
            return
        try:
            report = report_piece(frame, self.names, **self.columns)
        except (ValueError, TypeError) as exc:
            last = first_row + len(frame) - 1
            raise type(exc)(f"{self.where}, rows {first_row}-{last}: {exc}") from exc
        self.weighted = "weight" in report.columns
        label_sum = None
        if self.rules.empty_rule == "label_sum":
            label_sum = label_sums(
                frame,
                report,
                label_col=self.columns["label_col"],
                qid_col=self.columns["qid_col"],
            )
        self.parts.append(
            partial_sums(
                report,
                self.names,
                self.rules,
                queries=self.queries,
                label_sum=label_sum,
            )
        )


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
    batch_size=1 << 20,
    progress=None,
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
    batch_size : int, default=1048576
        Rows decoded at a time; memory grows with it (plus the longest query).
    progress : bool or None, default=None
        Show a progress bar over rows (after a few seconds). ``None``: only when
        standard error is a terminal.
    **options
        Every other keyword of :func:`skndcg.metrics.grouped_ranking_scores`.

    Returns
    -------
    scores : dict
        Metric name (as given) to its mean over queries.

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
    return stream_parquet(
        path,
        metrics,
        qid_col=qid_col,
        label_col=label_col,
        score_col=score_col,
        doc_col=doc_col,
        sample_weight_col=sample_weight_col,
        sample_weight=sample_weight,
        batch_size=batch_size,
        progress=progress,
        **options,
    )[0]


def stream_parquet(
    path,
    metrics,
    *,
    qid_col,
    label_col,
    score_col,
    doc_col=None,
    sample_weight_col=None,
    sample_weight=None,
    batch_size=1 << 20,
    progress=None,
    **options,
):
    """:func:`score_parquet`, also returning the number of queries each mean covers."""
    pq = import_pyarrow()
    names = metric_names(metrics)
    check_weights(sample_weight_col, sample_weight)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer):
        raise TypeError(f"batch_size must be an int >= 1, got {batch_size!r}.")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size!r}.")
    for key in ("y_true", "y_score", "qid", "metrics", "doc_id"):
        if key in options:
            raise TypeError(
                f"{key!r} is not an option here: the rows come from the file's "
                "columns (qid_col, label_col, score_col, doc_col, sample_weight_col)."
            )
    where = str(path)
    file = pq.ParquetFile(path)
    wanted = {
        "qid_col": qid_col,
        "label_col": label_col,
        "score_col": score_col,
        "doc_col": doc_col,
        "sample_weight_col": sample_weight_col,
    }
    check_columns(file.schema_arrow.names, wanted, where)
    chunks = read_predictions_chunks(
        path, qid=qid_col, label=label_col, score=score_col, doc=doc_col,
        weight=sample_weight_col, chunk_rows=batch_size,
    )  # fmt: skip
    columns = dict(wanted, sample_weight=sample_weight, options=options)
    rules = averaging(options.get("convention"), options.get("empty"))
    scorer = _Scorer(where, names, rules, columns, options.get("queries"))
    check = GroupedCheck(where, qid_col)
    bar = _progress_bar(file.metadata.num_rows, progress)
    carry = None
    first_row = 0  # file row of the first row of ``carry``
    try:
        for chunk in chunks:  # whole queries, rows checked as read_predictions does
            n_new = len(chunk)
            frame = chunk.reset_index(drop=True)
            if carry is not None and len(carry):
                frame = pd.concat([carry, frame], ignore_index=True)
            starts = _run_starts(frame[qid_col].to_numpy())
            if starts.shape[0] == 0:
                continue
            done = int(starts[-1])  # rows before the last query are complete
            keys = frame[qid_col].to_numpy()[starts[:-1]]
            check.add(np.asarray(keys), first_row + starts[:-1])
            scorer.score(frame.iloc[:done], first_row)
            carry = frame.iloc[done:]
            first_row += done
            if bar is not None:
                bar.update(n_new)
        if carry is not None and len(carry):
            key = carry[qid_col].to_numpy()[:1]
            check.add(np.asarray(key), np.array([first_row]))
            scorer.score(carry, first_row)
    finally:
        if bar is not None:
            bar.close()
    if not scorer.parts:
        raise ValueError(f"{where} has no rows; at least one row is required.")
    means = combine(scorer.parts, names, rules, weighted=scorer.weighted)
    parts = np.asarray(scorer.parts, dtype=np.float64).reshape(len(scorer.parts), -1)
    counts = {name: int(parts[:, N_SUMS * j + 2].sum()) for j, name in enumerate(names)}
    return means, counts
