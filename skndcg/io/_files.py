"""A TREC run file joined with its qrels file: the fastest door, same rules."""

from __future__ import annotations

from . import _fastjoin
from ._join import join_codes
from ._trec import read_trec_qrels, read_trec_run


def join_trec_files(run, qrels, *, depth=None, by_docno=False):
    """Join a TREC run file with its qrels file, as ``skndcg score`` scores them.

    The rows of :func:`join_run_qrels` on :func:`read_trec_run` and
    :func:`read_trec_qrels` of the two files (the same reader, the same rules
    and errors), with integer query codes instead of strings: regular files are
    joined on their bytes by a compiled scanner, anything else (or an error to
    report with its file, line and text) goes through the DataFrame readers.

    Parameters
    ----------
    run, qrels : str or path-like
        The TREC run and qrels files (``.gz`` read transparently).
    depth : int or None, default=None
        Keep only each query's ``depth`` best retrieved documents (trec_eval
        ``-M``).
    by_docno : bool, default=False
        Put each query's rows in descending document id order, unretrieved rows
        last, when the fast join can (``presorted`` tells): for scoring with
        ties broken by document id, where row order does not matter.

    Returns
    -------
    coded : CodedRanking
        The joined rows; ``tag`` is the run tag of the last line.

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`read_trec_run`, :func:`read_trec_qrels` and
        :func:`join_run_qrels` do.

    See Also
    --------
    join_run_qrels : The same rows with string ids, from DataFrames.

    Examples
    --------
    >>> import os, tempfile
    >>> from skndcg.io import join_trec_files
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "run"), "w") as fh:
    ...     _ = fh.write("q1 Q0 d1 1 2 r\\nq1 Q0 d2 2 1 r\\n")
    >>> with open(os.path.join(folder, "qrels"), "w") as fh:
    ...     _ = fh.write("q1 0 d2 1\\nq1 0 d3 1\\n")
    >>> coded = join_trec_files(os.path.join(folder, "run"),
    ...                         os.path.join(folder, "qrels"))
    >>> coded.names, coded.y_true, coded.y_score, coded.tag
    (array(['q1'], dtype=object), array([0, 1, 1]), array([ 2.,  1., nan]), 'r')
    """
    fast = _fastjoin.join_files(
        run, qrels, depth=depth, by_docno=by_docno, doc_order=not by_docno
    )
    if fast is not None:
        coded, tag = fast
        coded.tag = tag
        coded.presorted = bool(by_docno)
        return coded
    run_frame = read_trec_run(run)
    coded = join_codes(run_frame, read_trec_qrels(qrels), depth=depth)
    coded.tag = str(run_frame["tag"].iloc[-1])  # trec_eval keeps the last tag
    return coded
