"""Large Parquet predictions, read whole queries at a time."""

from __future__ import annotations

import numpy as np

from ..utils._counts import check_rows
from . import _text
from ._columns import check_flat, check_present, checked_rows, column_names
from ._pandas import pd
from ._parquet import ParquetColumns


def read_predictions_chunks(
    path, *, qid, label, score, doc=None, weight=None, item=None,
    chunk_rows=1 << 20, empty_labels=False,
):  # fmt: skip
    """Read a Parquet predictions file in chunks of whole queries, in file order.

    The rows are checked as :func:`read_predictions` checks them (the same
    messages, naming the file's rows), a chunk at a time, so that a file larger
    than memory can be scored query by query (as
    :func:`skndcg.streaming.score_parquet` does). A chunk ends where the query
    id changes, so a query whose rows are together in the file is never split
    between two chunks.

    Parameters
    ----------
    path : str, path-like or ParquetColumns
        A Parquet file, whatever its name (needs pyarrow), or one already
        opened (its footer is then not read again).
    qid, label, score : str
        Names of the query id, relevance label and score columns.
    doc : str or None, default=None
        Name of a document id column, if any.
    weight : str or None, default=None
        Name of a per-row weight column, if any (read, not checked).
    item : str or None, default=None
        Name of an item id column, if any (read, not checked).
    chunk_rows : int, default=1048576
        Rows read at a time; a chunk holds at most about as many (more when
        one query is longer). The rows of a query that a read splits come as
        one chunk of their own.
    empty_labels : bool, default=False
        Let an empty label through as NaN (a row nobody judged, which the
        metric functions read with ``nan_label="unjudged"``) instead of
        refusing it.

    Returns
    -------
    chunks : iterator of pandas.DataFrame
        Each chunk holds the named columns as stored, indexed by the file's
        row numbers.

    Raises
    ------
    ValueError
        As :func:`read_predictions` does; raised when the chunk holding the
        bad row is read.

    See Also
    --------
    read_predictions : The whole file at once.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from skndcg.io import read_predictions_chunks
    >>> path = os.path.join(tempfile.mkdtemp(), "p.parquet")
    >>> pd.DataFrame({"q": [1, 1, 2], "y": [1, 0, 1],
    ...               "s": [0.5, 0.2, 0.9]}).to_parquet(path)
    >>> chunks = read_predictions_chunks(path, qid="q", label="y", score="s",
    ...                                  chunk_rows=1)
    >>> [chunk.index.tolist() for chunk in chunks]
    [[0, 1], [2]]
    """
    file = path if isinstance(path, ParquetColumns) else None
    name = file.path if file else _text.check_path(path, "predictions file")
    wanted = column_names(
        qid=qid, label=label, score=score, doc=doc, weight=weight, item=item
    )
    check_rows(chunk_rows, "chunk_rows")
    file = file or ParquetColumns(name)
    check_present(name, wanted, file.names)
    check_flat(name, wanted)
    return _parquet_chunks(file, wanted, int(chunk_rows), empty_labels)


def _parquet_chunks(file, wanted, chunk_rows, empty_labels):
    name = file.path
    checked = {k: v for k, v in wanted.items() if k not in ("weight", "item")}
    use = list(dict.fromkeys(wanted.values()))
    qid = wanted["qid"]
    # The rows of the last query of a batch wait, joined to the head of the
    # next batch; the rest is yielded as slices of what pyarrow gave.
    carry, row = None, 0
    for frame in file.frames(use, chunk_rows):
        if len(frame) == 0:
            continue
        frame.index = pd.RangeIndex(row, row + len(frame))  # the file's rows
        row += len(frame)
        q = frame[qid].to_numpy()
        change = np.flatnonzero(q[1:] != q[:-1]) + 1
        if carry is not None:
            # The carried query goes on for the rows up to the first change.
            head = 0
            try:  # (ids that do not compare, a missing one, are not the same)
                same = bool(q[0] == carry[qid].to_numpy()[-1])
            except (TypeError, ValueError):
                same = False
            if same:
                head = int(change[0]) if len(change) else len(frame)
            if head:
                carry = pd.concat([carry, frame.iloc[:head]])
                if head == len(frame):  # the whole batch continues the query
                    continue
                frame = frame.iloc[head:]
                change = change[1:] - head
            yield _check_chunk(carry, name, checked, empty_labels)
            carry = None
        done = int(change[-1]) if len(change) else 0
        carry = frame.iloc[done:]
        if done:
            yield _check_chunk(frame.iloc[:done], name, checked, empty_labels)
    if carry is not None:
        yield _check_chunk(carry, name, checked, empty_labels)
    elif row == 0:
        raise ValueError(f"{name} has no rows.")


def _check_chunk(frame, name, wanted, empty_labels):
    """``frame`` once its rows pass :func:`read_predictions`' checks (plain
    numeric columns checked in place)."""
    quick = {k: v for k, v in wanted.items() if k not in ("label", "score")}
    for arg, allow_nan in (("label", empty_labels), ("score", True)):
        values = frame[wanted[arg]].to_numpy()
        kind = values.dtype.kind
        if kind in "iub":
            continue  # integers and booleans hold no NaN nor infinity
        if kind == "f":
            bad = np.isinf(values) if allow_nan else ~np.isfinite(values)
            if not bad.any():
                continue
        quick[arg] = wanted[arg]  # checked as read_predictions does
    checked_rows(frame, name, True, quick, empty_labels)
    return frame
