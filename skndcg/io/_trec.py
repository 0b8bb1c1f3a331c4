"""TREC run and qrels files: reading and writing."""

import csv

import numpy as np

from ..utils._counts import check_rows
from . import _tables, _text
from ._arrange import check_depth
from ._pandas import pd


def read_trec_run(path):
    """Read a TREC run file: ``qid Q0 docno rank score tag`` per line.

    Fields are separated by any whitespace. As trec_eval does, the second
    (``Q0``) and fourth (rank) fields are ignored, fields after the run tag are
    ignored, blank lines and lines starting with ``#`` are skipped, and the rank
    of a document comes from its score alone. Gzip-compressed files (``.gz`` or
    any file starting with the gzip magic bytes) are read transparently.
    Query and document ids are kept as written, as strings (``01`` and ``1``
    are two queries, as in trec_eval). LF, CRLF and CR all end a line, and a
    UTF-8 byte order mark at the start of the file is skipped; every reader of
    skndcg (this one, ``skndcg score`` and the streamed readers) reads a file
    the same way.

    Parameters
    ----------
    path : str or path-like
        The run file.

    Returns
    -------
    run : pandas.DataFrame
        One row per line, in file order, with columns ``qid`` (categorical
        strings), ``doc_id`` (strings), ``score`` (float64, read as double like
        trec_eval 10.0) and ``tag`` (categorical strings).

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        When the file is empty, or a line has fewer than six fields or a score
        that is not a finite number; the message names the file, the line and
        its text.

    See Also
    --------
    read_trec_qrels : The judgments to score a run against.
    join_run_qrels : Aligned arrays for the metric functions.
    write_trec_run : The reverse operation.

    Notes
    -----
    Duplicated (query, document) pairs are refused by :func:`join_run_qrels`,
    where trec_eval refuses them too (it stops with "duplicate docs").

    Examples
    --------
    >>> import tempfile, os
    >>> from skndcg.io import read_trec_run
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "run.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    >>> run = read_trec_run(path)
    >>> run
      qid doc_id  score   tag
    0  q1     d1    2.5  bm25
    1  q1     d2    1.5  bm25
    """
    name = _text.check_path(path, "run file")
    run = _tables.read_table(name, _text.RUN)
    run.attrs["path"] = name
    return run


def read_trec_run_chunks(path, *, chunk_lines=1 << 20):
    """Read a TREC run in chunks of rows, in file order, in bounded memory.

    The rows, values and errors are those of :func:`read_trec_run`, read
    ``chunk_lines`` rows at a time: the file is parsed a block of bytes at a
    time by the same reader, so a file larger than memory can be scored query
    by query (as :func:`skndcg.streaming.score_trec_run` does).

    Parameters
    ----------
    path : str or path-like
        The run file; ``.gz`` is read transparently.
    chunk_lines : int, default=1048576
        Rows per chunk (the last one may hold fewer).

    Returns
    -------
    chunks : iterator of pandas.DataFrame
        Each chunk has the columns ``qid``, ``doc_id``, ``score`` and ``tag``
        as from :func:`read_trec_run`; ``attrs["path"]`` names the file, so
        that :func:`join_run_qrels` names its lines in its messages.

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        As :func:`read_trec_run` does, naming the file, line and its text;
        raised when the chunk holding the line is read.

    See Also
    --------
    read_trec_run : The whole file at once.

    Examples
    --------
    >>> import tempfile, os
    >>> from skndcg.io import read_trec_run_chunks
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("q1 Q0 d1 1 2.5 r\\nq1 Q0 d2 2 1.5 r\\nq2 Q0 d1 1 3 r\\n")
    >>> [len(chunk) for chunk in read_trec_run_chunks(path, chunk_lines=2)]
    [2, 1]
    """
    name = _text.check_path(path, "run file")
    check_rows(chunk_lines, "chunk_lines")
    return _tables.iter_chunks(name, _text.RUN, int(chunk_lines))


def read_trec_qrels(path):
    """Read a TREC qrels file: ``qid iteration docno relevance`` per line.

    Fields are separated by any whitespace; the second field is ignored;
    blank lines and lines starting with ``#`` are skipped; ``.gz`` files are read
    transparently; ids, line ends and a byte order mark are read as
    :func:`read_trec_run` reads them. Relevance is an integer. Negative values
    are kept: trec_eval reads them as "in the pool but not judged", never
    relevant and not counted among the judged relevant documents
    (:func:`join_run_qrels` labels them 0).

    Parameters
    ----------
    path : str or path-like
        The qrels file.

    Returns
    -------
    qrels : pandas.DataFrame
        One row per line, in file order, with columns ``qid`` (categorical
        strings), ``doc_id`` (strings) and ``relevance`` (int64).

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        When the file is empty, a line has other than four fields or a
        relevance that is not an integer, or a (query, document) pair is judged
        twice (trec_eval stops with "duplicate docs" there); the message names
        the file and line.

    See Also
    --------
    read_trec_run : The run to score.
    join_run_qrels : Aligned arrays for the metric functions.

    Examples
    --------
    >>> import tempfile, os
    >>> from skndcg.io import read_trec_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("q1 0 d1 2\\nq1 0 d7 0\\nq2 0 d3 -1\\n")
    >>> read_trec_qrels(path)
      qid doc_id  relevance
    0  q1     d1          2
    1  q1     d7          0
    2  q2     d3         -1
    """
    name = _text.check_path(path, "qrels file")
    qrels = _tables.read_table(name, _text.QRELS)
    dup = qrels.duplicated(["qid", "doc_id"]).to_numpy()
    if dup.any():
        row = qrels.iloc[int(np.flatnonzero(dup)[0])]
        raise duplicate_error(name, _text.QRELS, str(row["qid"]), str(row["doc_id"]))
    qrels.attrs["path"] = name
    return qrels


def duplicate_error(path, layout, qid, doc):
    """The error for a document listed twice under one query, with its lines."""
    where = ""
    if path is not None:
        lines = _text.find_lines(path, qid, doc)
        where = f"{path}, lines {', '.join(map(str, lines))}: "
    return ValueError(
        f"{where}document {doc!r} appears more than once for query {qid!r} in the "
        f'{layout.kind}; trec_eval stops on such input ("duplicate docs"). '
        "Keep one line per (query, document) pair."
    )


def _check_ids(values, what):
    text = pd.Series(values, dtype="str")
    bad = text.isna() | (text == "") | text.str.contains(r"[ \t\r\n\x0b\x0c]")
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(
            f"{what} must be non-empty strings without whitespace to be written "
            f"to a TREC file; got {values[i]!r} at row {i}."
        )
    return text


def write_trec_run(path, qid, doc_id, y_score, *, tag="skndcg", depth=None):
    """Write scores as a TREC run file that trec_eval and :func:`read_trec_run` read.

    Each query's documents are written best first, ordered by score and then by
    document id, both descending, the order trec_eval gives them; the rank
    column counts from 1. Scores are written with enough digits to be read
    back exactly. A path ending with ``.gz`` is written gzip-compressed.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists).
    qid : array-like of shape (n_samples,)
        Query id of each row.
    doc_id : array-like of shape (n_samples,)
        Document id of each row; unique within a query.
    y_score : array-like of shape (n_samples,)
        Finite scores, higher is better.
    tag : str, default="skndcg"
        Run tag written in the last column.
    depth : int or None, default=None
        Write only each query's ``depth`` best documents.

    Returns
    -------
    None

    See Also
    --------
    read_trec_run : Read it back.

    Examples
    --------
    >>> import tempfile, os
    >>> from skndcg.io import read_trec_run, write_trec_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> write_trec_run(path, ["q1", "q1", "q2"], ["d1", "d2", "d3"],
    ...                [0.2, 0.7, 0.1], tag="demo")
    >>> print(open(path).read(), end="")
    q1 Q0 d2 1 0.7 demo
    q1 Q0 d1 2 0.2 demo
    q2 Q0 d3 1 0.1 demo
    >>> read_trec_run(path)["doc_id"].tolist()
    ['d2', 'd1', 'd3']
    """
    score = np.asarray(y_score, dtype=np.float64)
    if score.ndim != 1:
        raise ValueError(f"y_score must be one-dimensional, got shape {score.shape}.")
    q = _check_ids(np.asarray(qid, dtype=object), "qid")
    d = _check_ids(np.asarray(doc_id, dtype=object), "doc_id")
    if not (len(q) == len(d) == len(score)):
        raise ValueError(
            f"qid, doc_id and y_score must have the same length, got {len(q)}, "
            f"{len(d)} and {len(score)}."
        )
    if not np.isfinite(score).all():
        i = int(np.flatnonzero(~np.isfinite(score))[0])
        raise ValueError(f"y_score must be finite, got {score[i]!r} at row {i}.")
    if not isinstance(tag, str) or not tag or any(c.isspace() for c in tag):
        raise ValueError(f"tag must be a non-empty string without spaces, got {tag!r}.")
    check_depth(depth)
    frame = pd.DataFrame({"qid": q, "doc_id": d, "score": score})
    dup = frame.duplicated(["qid", "doc_id"]).to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise ValueError(
            f"document {d[i]!r} appears more than once for query {q[i]!r}; a run "
            "lists each document once per query."
        )
    frame = frame.sort_values(
        ["qid", "score", "doc_id"], ascending=[True, False, False], kind="stable"
    )
    rank = frame.groupby("qid", sort=False).cumcount().to_numpy() + 1
    frame.insert(1, "Q0", "Q0")
    frame.insert(3, "rank", rank)
    frame["tag"] = tag
    if depth is not None:
        frame = frame[rank <= depth]
    lines = frame.to_csv(
        sep=" ",
        header=False,
        index=False,
        lineterminator="\n",
        quoting=csv.QUOTE_NONE,
        quotechar="\t",  # ids hold no whitespace, so nothing is ever quoted
    )
    _text.write_lines(path, [lines])
