"""The aligned arrays the readers and joins give the metric functions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._arrange import check_depth, depth_cut, docno_order
from ._pandas import pd


@dataclass(frozen=True, eq=False, repr=False)
class RankingData:
    """Aligned per-row arrays for the metric functions: one row per judged or
    retrieved (query, document) pair.

    Returned by :func:`join_run_qrels` and :func:`read_predictions`. Pass the
    fields straight to the metric functions; rows whose ``y_score`` is NaN are
    judged but not retrieved, which ``nan_score="unretrieved"`` tells the metric
    functions.

    Parameters
    ----------
    qid : ndarray of shape (n_rows,)
        Query id of each row.
    doc_id : ndarray of shape (n_rows,) or None
        Document id of each row (None when the source had no document column).
    y_true : ndarray of shape (n_rows,)
        Relevance labels; retrieved documents that were never judged have 0.
    y_score : ndarray of shape (n_rows,)
        Scores, NaN for documents that were judged but not retrieved.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.io import RankingData
    >>> data = RankingData(np.array(["q1", "q1"]), np.array(["d1", "d2"]),
    ...                    np.array([1, 0]), np.array([0.5, np.nan]))
    >>> data
    RankingData(n_rows=2, n_queries=1, n_unretrieved=1)
    >>> data.to_frame()
      qid doc_id  y_true  y_score
    0  q1     d1       1      0.5
    1  q1     d2       0      NaN
    """

    qid: np.ndarray
    doc_id: np.ndarray | None
    y_true: np.ndarray
    y_score: np.ndarray

    def __len__(self):
        return len(self.y_true)

    def __repr__(self):
        n_queries = len(pd.unique(pd.Series(self.qid)))
        unretrieved = int(np.isnan(self.y_score).sum())
        return (
            f"RankingData(n_rows={len(self)}, n_queries={n_queries}, "
            f"n_unretrieved={unretrieved})"
        )

    def coded(self, *, depth=None):
        """The rows with integer query codes, as ``skndcg score`` scores them.

        Parameters
        ----------
        depth : int or None, default=None
            Keep only each query's ``depth`` best scored rows (by score, then
            by document id, both descending); the others get a NaN score.

        Returns
        -------
        coded : CodedRanking
            The same rows; ``doc_order`` is None without document ids.

        Examples
        --------
        >>> import numpy as np
        >>> from skndcg.io import RankingData
        >>> data = RankingData(np.array(["q2", "q1", "q1"]), None,
        ...                    np.array([1, 0, 1]), np.array([0.5, 0.2, 0.9]))
        >>> coded = data.coded(depth=1)
        >>> coded.qid, coded.names, coded.y_score
        (array([1, 0, 0]), array(['q1', 'q2'], dtype=object), array([0.5, nan, 0.9]))
        """
        check_depth(depth)
        codes, names = pd.factorize(self.qid, sort=True)
        qid = codes.astype(np.int64)
        y_score = np.array(self.y_score, dtype=np.float64)
        order = None
        if self.doc_id is not None:
            order = docno_order(qid, y_score, pd.Series(self.doc_id, dtype="str"))
        if depth is not None:
            tie = order if order is not None else np.zeros(len(qid), dtype=np.int64)
            y_score[~depth_cut(qid, y_score, tie, depth)] = np.nan
        names = np.asarray(names, dtype=object)
        return CodedRanking(qid, names, None, self.y_true, y_score, order)

    def to_frame(self):
        """The rows as a DataFrame.

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``qid``, ``doc_id`` (when there are document ids),
            ``y_true`` and ``y_score``, one row per row of the data.
        """
        columns = {"qid": self.qid}
        if self.doc_id is not None:
            columns["doc_id"] = self.doc_id
        columns.update(y_true=self.y_true, y_score=self.y_score)
        return pd.DataFrame(columns)


@dataclass(eq=False, repr=False)
class CodedRanking:
    """Aligned rows with integer query codes: what ``skndcg score`` scores.

    Returned by :func:`join_trec_files` and :meth:`RankingData.coded`. No
    string is kept per row, so that a run of ten million lines is scored
    without ten million strings.

    Parameters
    ----------
    qid : ndarray of shape (n_rows,)
        int64 code of each row's query: its position in ``names``.
    names : ndarray
        The query ids (str for TREC files), sorted.
    docs : tuple or None
        Two arrays: the document ids of the retrieved rows, then those of the
        judged rows not retrieved (see ``public()``); None without document ids.
    y_true : ndarray of shape (n_rows,)
        Relevance labels.
    y_score : ndarray of shape (n_rows,)
        Scores; NaN for a judged document that was not retrieved.
    doc_order : ndarray of shape (n_rows,) or None
        int64 key that orders tied scores of a query by document id (pass it
        as ``doc_id`` to the metric functions), or None.
    tag : str or None
        The run tag of the run file's last line (as trec_eval reports it).
    presorted : bool
        Whether each query's rows already come in descending document id order
        (unretrieved rows last), so that keeping tied rows in row order is
        ordering them by document id.
    placeholders : int
        Rows that are no document: with ``judged_only``, one row (judged 0,
        not retrieved) keeps each scored query that has no judged row left.
    empty_cells : int
        Score cells a predictions file left empty (see :func:`open_input`).
    y_model : ndarray of shape (n_rows,) or None
        A second source's labels (a model's judgments, beside the human ones
        in ``y_true``: see ``model_qrels`` in :func:`open_input`), or None.
    grades : tuple of (float, float) or None
        With ``y_model``: the lowest and highest judgment of the human qrels
        file, its queries outside the run included.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.io import RankingData
    >>> coded = RankingData(np.array(["q2", "q1", "q1"]), None,
    ...                     np.array([1, 0, 1]), np.array([0.5, 0.2, 0.9])).coded()
    >>> coded
    CodedRanking(n_rows=3, n_queries=2)
    >>> coded.qid, coded.names
    (array([1, 0, 0]), array(['q1', 'q2'], dtype=object))
    """

    qid: np.ndarray  # int64 codes into names, which are sorted like strcmp
    names: np.ndarray
    docs: tuple | None  # str Series of the retrieved rows, then the unretrieved
    y_true: np.ndarray
    y_score: np.ndarray
    doc_order: np.ndarray | None  # int64: docno order among tied scores
    tag: str | None = None
    presorted: bool = False
    placeholders: int = 0  # rows -J added to keep a query it left empty
    empty_cells: int = 0
    y_model: np.ndarray | None = None  # model's labels beside the humans'
    grades: tuple | None = None  # (lowest, highest) human judgment

    def __repr__(self):
        return f"CodedRanking(n_rows={len(self.y_true)}, n_queries={len(self.names)})"

    def public(self):
        return RankingData(
            self.names[self.qid],
            np.concatenate([np.asarray(d, dtype=object) for d in self.docs]),
            self.y_true,
            self.y_score,
        )
