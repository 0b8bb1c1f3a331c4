"""The one door of ``skndcg score``'s inputs: loaded whole, or left to stream."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..utils._args import check_flags
from . import _plainjoin
from ._columns import is_parquet, read_predictions
from ._files import file_size, join_trec_files
from ._parquet import ParquetColumns

# The sizes from which open_input streams (SKNDCG_STREAM_ROWS and
# SKNDCG_STREAM_BYTES set others; 0 streams every file).
STREAM_ROWS = 20_000_000
STREAM_BYTES = 1 << 30


@dataclass(frozen=True)
class Chunked:
    """A file too large to load: score it a batch of queries at a time.

    What :func:`open_input` returns for a file that :mod:`skndcg.streaming`
    should read: a TREC run with its qrels (:func:`skndcg.streaming.score_trec_run`),
    or Parquet predictions (:func:`skndcg.streaming.score_parquet`, ``qrels``
    None).

    Parameters
    ----------
    path : str or path-like
        The run, or the predictions file.
    qrels : str, path-like or None
        The run's qrels; None for predictions.
    qid, label, score, doc : str or None
        The predictions' column names (``doc`` None without one).
    depth : int or None
        Each query's best retrieved documents kept (a run only).

    Examples
    --------
    >>> from skndcg.io import Chunked
    >>> Chunked("run.txt", "qrels.txt", depth=1000).depth
    1000
    """

    path: object
    qrels: object = None
    qid: str | None = None
    label: str | None = None
    score: str | None = None
    doc: str | None = None
    depth: int | None = None


def open_input(path, qrels=None, *, qid=None, label=None, score=None, doc=None,
               depth=None, by_docno=False, unjudged="zero", judged_only=False,
               all_judged=False, stream=False, items=False,
               model_qrels=None):  # fmt: skip
    """A run joined with its qrels, or a predictions file, as ``skndcg score``
    scores it: loaded, or a :class:`Chunked` to stream when it is large.

    Parameters
    ----------
    path : str or path-like
        A TREC run (with ``qrels``), or a CSV or Parquet predictions file.
    qrels : str, path-like or None, default=None
        The run's qrels.
    qid, label, score, doc : str or None, default=None
        The predictions' column names, as in :func:`read_predictions`.
    depth : int or None, default=None
        Keep each query's ``depth`` best scored rows (trec_eval ``-M``).
    by_docno, unjudged, judged_only, all_judged
        As in :func:`join_trec_files` (a run only).
    stream : bool, default=False
        Whether the caller can score a :class:`Chunked` (it asks for the
        means alone). A run of at least 1 GiB (``SKNDCG_STREAM_BYTES`` in the
        environment sets another size) is then streamed, without
        ``unjudged`` nor ``judged_only``; so is a Parquet file of at least 20
        million rows (``SKNDCG_STREAM_ROWS``), without ``depth``.
    items : bool, default=False
        Keep the document id of each loaded row in ``docs`` (the item ids of
        the beyond-accuracy measures): a run's docno, or the ``doc`` column
        of predictions.
    model_qrels : str, path-like or None, default=None
        A second qrels file for the run: a model's judgments (an LLM judge's)
        of every query of the run, beside the human ones of ``qrels``. The
        rows are then every query's retrieved documents (its ``depth`` best)
        and the documents either file judged (NaN score), loaded with their
        ids in ``docs``; ``y_true`` holds the human labels as judged
        (negative ones too), 0 for a document ``qrels`` did not judge and NaN
        on the queries it does not judge; ``y_model`` the model's, 0 for a
        document it did not judge; ``grades`` the lowest and highest
        judgment of ``qrels``. Takes none of ``by_docno``, ``unjudged``,
        ``judged_only``, ``all_judged`` and ``stream``.

    Returns
    -------
    coded : CodedRanking or Chunked
        The rows (``empty_cells`` counts a predictions file's empty scores),
        or the file to stream.

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`join_trec_files` and :func:`read_predictions` do; ValueError
        too when a threshold in the environment is not a number >= 0, or when
        ``model_qrels`` judges no document of a query of the run.

    Examples
    --------
    >>> import os, tempfile
    >>> from skndcg.io import open_input
    >>> path = os.path.join(tempfile.mkdtemp(), "p.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("q,y,s\\n1,1,0.5\\n1,0,\\n")
    >>> coded = open_input(path, qid="q", label="y", score="s", stream=True)
    >>> coded.y_score, coded.empty_cells
    (array([0.5, nan]), 1)

    A run with human judgments of one query and a model's of both:

    >>> files = {"run": "q1 Q0 d1 1 2 r\\nq2 Q0 d1 1 2 r\\n",
    ...          "human": "q1 0 d2 1\\n", "model": "q1 0 d1 1\\nq2 0 d1 0\\n"}
    >>> for name, text in files.items():
    ...     with open(os.path.join(os.path.dirname(path), name), "w") as fh:
    ...         _ = fh.write(text)
    >>> run, human, model = (os.path.join(os.path.dirname(path), name)
    ...                      for name in files)
    >>> coded = open_input(run, human, model_qrels=model)
    >>> coded.names[coded.qid], coded.y_score
    (array(['q1', 'q1', 'q2'], dtype=object), array([ 2., nan,  2.]))
    >>> coded.y_true, coded.y_model
    (array([ 0.,  1., nan]), array([1., 0., 0.]))
    """
    check_flags(by_docno=by_docno, judged_only=judged_only, all_judged=all_judged,
                stream=stream, items=items)  # fmt: skip
    if model_qrels is not None:
        if qrels is None:
            raise ValueError("model_qrels needs the human judgments too: give qrels")
        if by_docno or unjudged != "zero" or judged_only or all_judged or stream:
            raise ValueError(
                "model_qrels takes none of by_docno, unjudged, judged_only, "
                "all_judged and stream"
            )
        return _plainjoin.join_two(path, qrels, model_qrels, depth=depth)
    if qrels is not None:
        if stream and unjudged == "zero" and not judged_only and _large_run(path):
            return Chunked(path, qrels, depth=depth)
        # (the numpy join keeps the docnos, and joins any pair)
        join = partial(_plainjoin.join, items=True) if items else join_trec_files
        return join(
            path, qrels, depth=depth, by_docno=by_docno, unjudged=unjudged,
            judged_only=judged_only, all_judged=all_judged,
        )  # fmt: skip
    columns = {"qid": qid, "label": label, "score": score, "doc": doc}
    if stream and depth is None and _large_parquet(path, qid, label, score):
        return Chunked(path, **columns)
    data = read_predictions(path, **columns)
    coded = data.coded(depth=depth)
    if items and data.doc_id is not None:
        coded.docs = (np.asarray(data.doc_id, dtype=object), np.zeros(0, object))
    coded.empty_cells = int(np.isnan(data.y_score).sum())
    return coded


def _threshold(name, default):
    """The streaming threshold ``default``, or the one set in the environment."""
    text = os.environ.get(name)
    if text is None:
        return default
    with contextlib.suppress(ValueError):
        if int(text) >= 0:
            return int(text)
    raise ValueError(
        f"the environment variable {name} must be a number >= 0, got {text!r}"
    )


def _large_run(path):
    """Whether a run is large enough to stream (not when it cannot be read:
    the in-memory reader reports the problem)."""
    size = file_size(path)
    return size is not None and size >= _threshold("SKNDCG_STREAM_BYTES", STREAM_BYTES)


def _large_parquet(path, *columns):
    """Whether a predictions file is Parquet with enough rows to stream."""
    if not is_parquet(path) or None in columns:
        return False
    try:
        n_rows = ParquetColumns(path).num_rows
    except (ImportError, OSError, ValueError):
        return False  # the in-memory reader reports the problem
    return n_rows >= _threshold("SKNDCG_STREAM_ROWS", STREAM_ROWS)
