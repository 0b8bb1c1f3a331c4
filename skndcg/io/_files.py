"""A TREC run file joined with its qrels file: one join, three roads, same rules:
numpy for small files and unjudged documents told apart (``_plainjoin``), the
files' bytes (``_fastjoin``), else the DataFrame readers (``_join``)."""

import os

from .._native._jit import plain, plain_road
from ..utils._args import check_flags
from . import _plainjoin
from ._arrange import check_depth
from ._join import join_codes
from ._trec import read_trec_qrels, read_trec_run

#: Bytes of a TREC line, about: the files' size over this is the rows of work.
_LINE_BYTES = 32


def join_trec_files(run, qrels, *, depth=None, by_docno=False, unjudged="zero",
                    judged_only=False, all_judged=False):  # fmt: skip
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
    unjudged : {"zero", "nan", "pool"}, default="zero"
        Label of a retrieved document nobody judged and of a negative judgment,
        as :func:`join_run_qrels` gives it.
    judged_only : bool, default=False
        Drop the retrieved documents without a judgment or with a negative one
        after the depth cut (trec_eval ``-J``; needs ``unjudged`` "nan" or
        "pool"). A query the run answers (every judged query with
        ``all_judged``) that is left no row keeps one row, judged 0 and not
        retrieved (``placeholders`` counts them); other judged queries without
        results are dropped.
    all_judged : bool, default=False
        With ``judged_only``: score every judged query (trec_eval ``-c``).

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
    check_flags(by_docno=by_docno, judged_only=judged_only, all_judged=all_judged)
    if unjudged not in ("zero", "nan", "pool"):
        raise ValueError(
            f"unjudged={unjudged!r} is not valid; expected 'zero', 'nan' or 'pool'."
        )
    if judged_only and unjudged == "zero":
        raise ValueError(
            "judged_only=True drops the unjudged documents, which unjudged='zero' "
            "labels 0: pass unjudged='nan' or 'pool'."
        )
    check_depth(depth)
    options = {"depth": depth, "by_docno": by_docno}
    size = file_size(run, qrels)  # small enough files take the numpy road
    if unjudged != "zero" or (size is not None and plain_road(size // _LINE_BYTES)):
        return _plainjoin.join(run, qrels, unjudged=unjudged, judged_only=judged_only,
                               all_judged=all_judged, **options)  # fmt: skip
    if not plain():
        from . import _fastjoin  # (the compiled scanner, loaded when used)

        fast = _fastjoin.join_files(run, qrels, doc_order=not by_docno, **options)
        if fast is not None:
            coded, tag = fast
            coded.tag = tag
            coded.presorted = bool(by_docno)
            return coded
    run_frame = read_trec_run(run)
    coded = join_codes(run_frame, read_trec_qrels(qrels), depth=depth)
    coded.tag = str(run_frame["tag"].iloc[-1])  # trec_eval keeps the last tag
    return coded


def file_size(*paths):
    """The files' bytes, or None when one cannot be sized."""
    try:
        return sum(os.path.getsize(p) for p in paths)
    except (OSError, TypeError, ValueError):  # (ValueError: a NUL byte)
        return None
