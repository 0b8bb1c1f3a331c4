"""Joining a run with its judgments into aligned metric inputs."""

import numpy as np

from . import _hashing, _text
from ._arrange import check_depth, depth_cut, docno_order
from ._data import CodedRanking, RankingData
from ._pandas import pd
from ._trec import duplicate_error


def _frame_column(frame, name, what):
    """Column ``name`` of a DataFrame (``as_frame`` or a reader made it)."""
    if name not in frame.columns:
        raise ValueError(
            f"{what} has no column {name!r}; its columns are {list(frame.columns)}."
        )
    col = frame[name]
    if col.isna().any():
        i = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise ValueError(f"{what} column {name!r} is missing a value at row {i}.")
    return col


def _codes(col):
    """Integer codes and their (string) categories of a query id column."""
    if not isinstance(col.dtype, pd.CategoricalDtype):
        col = col.astype("str").astype("category")
    cats = col.cat.categories
    if not (cats.dtype == object or pd.api.types.is_string_dtype(cats.dtype)):
        col = col.cat.rename_categories(cats.astype("str"))
    names = np.asarray(col.cat.categories, dtype=object)
    return col.cat.codes.to_numpy().astype(np.int64), names


def _raise_duplicates(qid, doc, candidates, names, frame, layout):
    """Raise for the first (query, document) pair that really repeats."""
    rows = np.flatnonzero(candidates)
    pairs = pd.DataFrame({"q": qid[rows], "d": doc.iloc[rows].to_numpy(dtype=object)})
    dup = pairs.duplicated().to_numpy()
    if dup.any():
        q, d = pairs["q"].to_numpy()[dup][0], pairs["d"].to_numpy()[dup][0]
        raise duplicate_error(frame.attrs.get("path"), layout, names[q], str(d))


def _exact_keys(r_q, r_doc, j_q, j_doc):
    """Keys of run rows equal to the position of their judgment (slow, exact)."""
    judged = pd.DataFrame({"q": j_q, "d": j_doc.to_numpy(dtype=object)})
    judged["at"] = np.arange(len(judged), dtype=np.uint64)
    rows = pd.DataFrame({"q": r_q, "d": r_doc.to_numpy(dtype=object)})
    found = rows.merge(judged, on=["q", "d"], how="left")["at"]
    # Rows without a judgment get a key beyond every judgment's.
    return found.fillna(len(judged)).to_numpy(dtype=np.uint64)


def join_codes(run, qrels, *, run_only="drop", depth=None):
    """The join on integer codes; see :func:`join_run_qrels`."""
    if run_only not in ("drop", "keep"):
        raise ValueError(f"run_only must be 'drop' or 'keep', got {run_only!r}.")
    check_depth(depth)
    r_q, r_names = _codes(_frame_column(run, "qid", "run"))
    r_doc = _frame_column(run, "doc_id", "run").astype("str").reset_index(drop=True)
    score = _frame_column(run, "score", "run").to_numpy(dtype=np.float64)
    if not np.isfinite(score).all():
        i = int(np.flatnonzero(~np.isfinite(score))[0])
        raise ValueError(f"run scores must be finite, got {score[i]!r} at row {i}.")
    j_q, j_names = _codes(_frame_column(qrels, "qid", "qrels"))
    j_doc = _frame_column(qrels, "doc_id", "qrels").astype("str").reset_index(drop=True)
    rel = _frame_column(qrels, "relevance", "qrels").to_numpy()
    if not np.issubdtype(rel.dtype, np.integer):
        raise ValueError(
            f"qrels column 'relevance' must hold integers, got dtype {rel.dtype}."
        )
    rel = rel.astype(np.int64)
    if len(rel) == 0:
        raise ValueError("qrels has no rows: there is nothing to score against.")

    names = np.array(sorted(set(r_names) | set(j_names)), dtype=object)
    r_q = np.searchsorted(names, r_names)[r_q] if len(r_q) else r_q
    j_q = np.searchsorted(names, j_names)[j_q]
    judged = np.zeros(len(names), dtype=bool)
    judged[j_q] = True

    keep = judged[r_q] if run_only == "drop" else np.ones(len(r_q), dtype=bool)
    blocks = _hashing.QueryBlocks(r_q)
    doc_order = docno_order(r_q, score, r_doc, blocks)
    if depth is not None:
        keep &= depth_cut(r_q, score, doc_order, depth)
    r_hash = _hashing.string_hashes(r_doc)
    # (trec_eval checks only the documents within its depth for repeats, too)
    repeats = blocks.repeated(r_hash) & keep
    del blocks
    if not keep.all():
        r_q, score, doc_order = r_q[keep], score[keep], doc_order[keep]
        r_doc = r_doc[keep].reset_index(drop=True)
        r_hash, repeats = r_hash[keep], repeats[keep]
    if repeats.any():
        _raise_duplicates(r_q, r_doc, repeats, names, run, _text.RUN)
    r_key = _hashing.mix(r_q, r_hash)
    j_key = _hashing.mix(j_q, _hashing.string_hashes(j_doc))
    repeats = _hashing.repeated(j_key)
    if repeats.any():
        _raise_duplicates(j_q, j_doc, repeats, names, qrels, _text.QRELS)
        # Distinct judgments share a key: give each one its own.
        j_key = np.arange(len(j_key), dtype=np.uint64)
        r_key = _exact_keys(r_q, r_doc, j_q, j_doc)

    # The keys propose the matches, the strings confirm them.
    found = _hashing.lookup(j_key, r_key)
    rows = np.flatnonzero(found >= 0)
    match = found[rows]
    same = (r_q[rows] == j_q[match]) & (
        r_doc.iloc[rows].to_numpy(dtype=object)
        == j_doc.iloc[match].to_numpy(dtype=object)
    )
    rows, match = rows[same], match[same]
    label = np.zeros(len(r_q), dtype=np.int64)
    label[rows] = rel[match]
    top = int(doc_order.max(initial=-1))
    missing = np.ones(len(j_q), dtype=bool)
    missing[match] = False

    return CodedRanking(
        qid=np.concatenate([r_q, j_q[missing]]).astype(np.int64),
        names=names,
        docs=(r_doc, j_doc[missing]),
        y_true=np.maximum(np.concatenate([label, rel[missing]]), 0),
        y_score=np.concatenate([score, np.full(int(missing.sum()), np.nan)]),
        # Unretrieved rows take no rank; their keys only need to be unique.
        doc_order=np.concatenate(
            [doc_order, np.arange(int(missing.sum()), dtype=np.int64) + 1 + top]
        ),
    )


def join_run_qrels(run, qrels, *, run_only="drop", depth=None, unjudged="zero"):
    """Join a run with its judgments into aligned arrays for the metric functions.

    Every retrieved document becomes a row with its score; its label is its
    judgment, or 0 when it was never judged. Every judged document the run did
    not retrieve becomes a row with a NaN score: it counts in the ideal DCG, the
    relevant count and the recall and AP denominators but takes no rank when
    scored with ``nan_score="unretrieved"``. A judged query the run did not
    answer has only such rows, and scores 0. Negative judgments, which trec_eval
    reads as "in the pool but not judged", are labelled 0.

    Parameters
    ----------
    run : pandas.DataFrame, mapping or ranx Run
        Columns ``qid``, ``doc_id`` and ``score``, as from :func:`read_trec_run`;
        or ``{qid: {doc_id: score}}`` (as pytrec_eval, ir_measures and ranx
        take it), or a ranx ``Run``.
    qrels : pandas.DataFrame, mapping or ranx Qrels
        Columns ``qid``, ``doc_id`` and ``relevance`` (integers), as from
        :func:`read_trec_qrels`; or ``{qid: {doc_id: relevance}}``, or a ranx
        ``Qrels``.
    run_only : {"drop", "keep"}, default="drop"
        Queries the run answers but the qrels do not judge: dropped, as
        trec_eval does (it evaluates judged queries only), or kept with every
        label 0.
    depth : int or None, default=None
        Keep only each query's ``depth`` best retrieved documents, by score and
        then by document id, both descending, as trec_eval ``-M depth`` does.
        Judged documents cut off this way become unretrieved rows.
    unjudged : {"zero", "nan", "pool"}, default="zero"
        Label of a retrieved document nobody judged (and of a negative
        judgment): 0, trec_eval's "not relevant", or NaN, which the metric
        functions read as unjudged with ``nan_label="unjudged"`` (for ``bpref``
        and ``judged@k``; every other measure still counts it as not relevant).
        ``"pool"`` labels the documents nobody judged NaN and keeps negative
        judgments as they are: trec_eval's "in the pool, not judged", which
        ``infap`` tells apart from "not in the pool" (under
        ``convention="trec_eval"``, every other measure reads them as the
        ``"nan"`` join gives them).

    Returns
    -------
    data : RankingData
        Fields ``qid``, ``doc_id``, ``y_true`` and ``y_score``: the retrieved
        rows in run order, then the unretrieved ones in qrels order.

    Raises
    ------
    ValueError
        When a column is missing (the message lists those present), a score is
        not finite, or a document appears twice for one query among the
        retrieved rows kept (trec_eval stops with "duplicate docs" there; the
        message names the file and lines when the run was read from a file).

    See Also
    --------
    read_trec_run, read_trec_qrels : Read the inputs.
    skndcg.metrics.grouped_ranking_scores : Score the result.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.io import join_run_qrels
    >>> run = pd.DataFrame({"qid": ["q1", "q1", "q9"], "doc_id": ["d1", "d5", "d1"],
    ...                     "score": [2.0, 1.0, 3.0]})
    >>> qrels = pd.DataFrame({"qid": ["q1", "q1", "q2"],
    ...                       "doc_id": ["d1", "d2", "d7"], "relevance": [1, 2, 1]})
    >>> data = join_run_qrels(run, qrels)
    >>> data
    RankingData(n_rows=4, n_queries=2, n_unretrieved=2)
    >>> data.to_frame()
      qid doc_id  y_true  y_score
    0  q1     d1       1      2.0
    1  q1     d5       0      1.0
    2  q1     d2       2      NaN
    3  q2     d7       1      NaN
    >>> join_run_qrels(run, qrels, unjudged="nan").y_true
    array([ 1., nan,  2.,  1.])
    >>> join_run_qrels({"q1": {"d1": 2.0, "d5": 1.0}},
    ...                {"q1": {"d1": 1, "d2": 2}}).y_true
    array([1, 0, 2])
    """
    if unjudged not in ("zero", "nan", "pool"):
        raise ValueError(
            f"unjudged={unjudged!r} is not valid; expected 'zero' (label 0), "
            "'nan' (a NaN label marks a document nobody judged) or 'pool' (NaN, "
            "and negative judgments kept)."
        )
    from ._mappings import as_frame

    run, qrels = as_frame(run, "run"), as_frame(qrels, "qrels")
    data = join_codes(run, qrels, run_only=run_only, depth=depth).public()
    if unjudged == "zero":
        return data
    judged = qrels if unjudged == "pool" else qrels[qrels["relevance"].to_numpy() >= 0]
    pairs = pd.MultiIndex.from_arrays([judged["qid"], judged["doc_id"]])
    at = pairs.get_indexer(pd.MultiIndex.from_arrays([data.qid, data.doc_id]))
    y = data.y_true
    if unjudged == "pool":
        y = judged["relevance"].to_numpy(dtype=np.float64)[np.maximum(at, 0)]
    y = np.where(at >= 0, y, np.nan)
    return RankingData(data.qid, data.doc_id, y, data.y_score)
