"""A TREC run joined with two judgment files: the humans' and a model's.

What ``skndcg score RUN --qrels HUMAN --model-qrels MODEL`` scores: every
query of the run (the model must judge each one), with the documents the run
retrieved and those either file judged, unretrieved ones with a NaN score.
The lines are read, and repeated documents refused, as in the numpy join of a
run with its qrels (``_plainjoin``).
"""

from __future__ import annotations

import numpy as np

from . import _text
from ._arrange import check_depth, depth_cut
from ._data import CodedRanking
from ._plainjoin import as_text, check_unique, find, read, shared_codes


def join(run_path, qrels_path, model_path, *, depth=None):
    """A :class:`CodedRanking` with ``y_true`` (the human labels: NaN on a query
    ``qrels_path`` does not judge, 0 for a document it did not judge), ``y_model``
    (the model's: 0 for a document it did not judge), ``docs`` and ``grades``."""
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
    in_run, by_human, by_model = (
        np.bincount(q, minlength=names.size) > 0 for q in (r_q, h_q, m_q)
    )
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
