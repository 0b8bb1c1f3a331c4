"""The joins of a TREC run with its qrels in numpy (no compiler, no pandas), by
the line reader's rules (``_text.columns``): for small files, unjudged documents
told apart, and a run with two qrels files (:func:`join_two`)."""

import numpy as np

from . import _text
from ._arrange import check_depth, depth_cut
from ._data import CodedRanking
from ._trec import duplicate_error


def join(run_path, qrels_path, *, depth, by_docno, unjudged, judged_only, all_judged,
         items=False):  # fmt: skip
    """A :class:`CodedRanking` of the two files: each query's retrieved rows
    (in run order, or by docno descending), then its unretrieved judgments;
    ``items`` keeps each row's docno in ``docs``."""
    run_path, run = read(run_path, _text.RUN)
    qrels_path, qrels = read(qrels_path, _text.QRELS)
    names, doc_names, (r_q, j_q), (r_d, j_d) = shared_codes(run, qrels)
    rel = qrels["relevance"]
    width = doc_names.size
    r_key, j_key = r_q * width + r_d, j_q * width + j_d
    score = run["score"]
    keep = _present(j_q, names)[r_q]  # queries nobody judged are dropped
    if depth is not None:
        keep &= depth_cut(r_q, score, r_d, depth)
    # (trec_eval checks only the documents within its depth for repeats, too)
    check_unique(run_path, _text.RUN, run, r_key, np.flatnonzero(keep))
    check_unique(qrels_path, _text.QRELS, qrels, j_key)
    found, match = find(r_key, j_key)
    found &= keep
    retrieved = np.zeros(rel.size, dtype=bool)
    retrieved[match[found]] = True
    rows_q = np.concatenate([r_q[keep], j_q[~retrieved]])
    doc = np.concatenate([r_d[keep], j_d[~retrieved]])
    y_score = np.concatenate([score[keep], np.full(int((~retrieved).sum()), np.nan)])
    label = np.where(found, rel[match], 0)[keep]
    if unjudged == "zero":
        y = np.maximum(np.concatenate([label, rel[~retrieved]]), 0)
    else:
        judged_row = np.concatenate([found[keep], np.ones((~retrieved).sum(), bool)])
        y = np.concatenate([label, rel[~retrieved]]).astype(np.float64)
        if unjudged == "nan":  # a negative judgment reads as unjudged
            judged_row &= y >= 0
        y[~judged_row] = np.nan
    placeholders = 0
    if judged_only:
        scored = _present(rows_q[~np.isnan(y_score)], names)[rows_q] | all_judged
        kept = (y >= 0) & scored
        # A scored query -J leaves no document keeps one row, judged 0 and not
        # retrieved: it adds nothing to any measure, and the query scores 0.
        lost = scored & ~_present(rows_q[kept], names)[rows_q]
        first = np.flatnonzero(lost)[np.unique(rows_q[lost], return_index=True)[1]]
        y[first], y_score[first], kept[first] = 0.0, np.nan, True
        placeholders = int(first.size)
        rows_q, doc, y, y_score = rows_q[kept], doc[kept], y[kept], y_score[kept]
        y = y.astype(np.int64)
    # Each query: its retrieved rows (by docno, descending, or in run order),
    # then the unretrieved ones; the queries with rows first, by name.
    unretrieved = np.isnan(y_score)
    within = -doc if by_docno else np.arange(doc.size)
    order = np.lexsort((within, unretrieved, rows_q))
    present, in_run = _present(rows_q, names), _present(r_q, names)
    recode = np.cumsum(present) - 1
    out_names = np.concatenate([names[present], names[in_run & ~present]])
    doc_order = None
    if not by_docno:
        doc_order = np.where(unretrieved, width + np.arange(doc.size), doc)[order]
    coded = CodedRanking(
        recode[rows_q[order]], out_names.astype(object), None, y[order],
        y_score[order], doc_order, as_text(run["tag"][-1]), bool(by_docno),
    )  # fmt: skip
    coded.placeholders = placeholders
    if items:
        coded.docs = (doc_names[doc[order]], np.zeros(0, dtype=object))
    return coded


def join_two(run_path, qrels_path, model_path, *, depth=None):
    """A :class:`CodedRanking` of a run with human and model qrels, as
    :func:`skndcg.io.open_input` gives it with ``model_qrels``."""
    check_depth(depth)
    run_path, run = read(run_path, _text.RUN)
    qrels_path, human = read(qrels_path, _text.QRELS)
    model_path, model = read(model_path, _text.QRELS)
    names, doc_names, (r_q, h_q, m_q), (r_d, h_d, m_d) = shared_codes(run, human, model)
    width = doc_names.size
    r_key, h_key, m_key = r_q * width + r_d, h_q * width + h_d, m_q * width + m_d
    score = run["score"]
    keep = np.ones(r_q.size, dtype=bool)
    if depth is not None:
        keep = depth_cut(r_q, score, r_d, depth)
    check_unique(run_path, _text.RUN, run, r_key, np.flatnonzero(keep))
    check_unique(qrels_path, _text.QRELS, human, h_key)
    check_unique(model_path, _text.QRELS, model, m_key)
    in_run, by_human, by_model = (_present(q, names) for q in (r_q, h_q, m_q))
    missing = names[in_run & ~by_model]
    if missing.size:
        raise ValueError(
            f"{model_path} has no judgment for the queries "
            f"{', '.join(missing[:5])}{', ...' if missing.size > 5 else ''}"
            " of the run; the model must judge every query"
        )
    # The run's rows, then the documents either file judged that it did not
    # retrieve (within the depth), in docno order.
    judged = np.union1d(h_key[in_run[h_q]], m_key[in_run[m_q]])
    extra = np.setdiff1d(judged, r_key[keep], assume_unique=True)
    keys = np.concatenate([r_key[keep], extra])
    q, d = keys // width, keys % width
    order = np.argsort(q, kind="stable")
    rel = human["relevance"]
    y_true = _labels(keys, h_key, rel)
    y_true[~by_human[q]] = np.nan
    recode = np.cumsum(in_run) - 1
    return CodedRanking(
        recode[q[order]], names[in_run], (doc_names[d[order]], np.zeros(0, object)),
        y_true[order],
        np.concatenate([score[keep], np.full(extra.size, np.nan)])[order],
        d[order], as_text(run["tag"][-1]),
        y_model=_labels(keys, m_key, model["relevance"])[order],
        grades=(float(rel.min()), float(rel.max())),
    )  # fmt: skip


def _labels(keys, judged, relevance):
    """The judgment of each key as a float, 0 for a key not judged."""
    found, at = find(keys, judged)
    return np.where(found, relevance[at], 0).astype(np.float64)


def _present(codes, names):
    """Whether each name's code is among ``codes``."""
    return np.bincount(codes, minlength=names.size) > 0


def read(path, layout):
    """``(path, fields)`` of a run or qrels file, its ids maybe UTF-8 bytes."""
    path = _text.check_path(path, f"{layout.kind} file")
    return path, _text.columns(path, layout, text=False)


def shared_codes(*tables):
    """``(query names, document names, query codes, document codes)`` shared by
    the tables: sorted strings, and one int64 array per table (ids read as
    bytes in one table and as strings in another become strings in place)."""
    fields = [(table, key) for key in ("qid", "doc_id") for table in tables]
    ids = [table[key] for table, key in fields]
    if len({type(col[0]) for col in ids}) > 1:  # (a file read line by line)
        ids = [[as_text(v) for v in col] for col in ids]
        for (table, key), col in zip(fields, ids, strict=True):
            table[key] = col
    nuls = [b"\x00" if isinstance(col[0], bytes) else "\x00" for col in ids]
    exact = any(nul in nul[:0].join(col) for nul, col in zip(nuls, ids, strict=True))
    bounds = np.cumsum([len(table["qid"]) for table in tables])[:-1]
    out = []
    for cols in (ids[: len(tables)], ids[len(tables) :]):
        values = [v for col in cols for v in col]
        # (numpy's strings cut a trailing NUL: objects then)
        kind = object if exact else bytes if isinstance(values[0], bytes) else str
        names, codes = np.unique(np.array(values, dtype=kind), return_inverse=True)
        names = np.array(_all_text(names.tolist()), dtype=object)
        out += [names, np.split(codes.astype(np.int64).ravel(), bounds)]
    return out[0], out[2], out[1], out[3]


def check_unique(path, layout, table, keys, rows=None):
    """Refuse a key that repeats among ``rows`` (default all) of a file."""
    rows = np.arange(keys.size) if rows is None else rows
    first = np.unique(keys[rows], return_index=True)[1]
    if first.size < rows.size:  # the first key that repeats an earlier one
        again = np.ones(rows.size, dtype=bool)
        again[first] = False
        row = rows[int(np.flatnonzero(again)[0])]
        raise duplicate_error(
            path, layout, as_text(table["qid"][row]), as_text(table["doc_id"][row])
        )


def find(keys, judged):
    """``(found, at)``: whether each key is among the ``judged`` keys, and the
    position of its match there (of some judged key where it is not)."""
    by_key = np.argsort(judged)
    at = by_key[np.minimum(np.searchsorted(judged[by_key], keys), judged.size - 1)]
    return judged[at] == keys, at


def as_text(field):
    """An id read as UTF-8 bytes, or already a string, as a string."""
    return field.decode("utf-8") if isinstance(field, bytes) else field


def _all_text(ids):
    """:func:`as_text` of a list of ids, decoded in one call."""
    if not ids or not isinstance(ids[0], bytes):
        return ids
    return b"\n".join(ids).decode("utf-8").split("\n")
