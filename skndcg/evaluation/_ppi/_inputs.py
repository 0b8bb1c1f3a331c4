"""Checks of two label sources (human and model) and their per-query values."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from numbers import Real

import numpy as np
import pandas as pd

from ...metrics import ranking_report
from ...utils._args import check_flags
from .._compare._inputs import examples_text
from .._stats._resampling import check_length

_examples = partial(examples_text, count=False)


def _float(name, values):
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold numbers, got {values!r:.80}.") from None
    if out.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {out.shape}.")
    return out


def check_labels(y_true, y_model, qid, *, expected_labels=False, grades=None):
    """Checked ``(y_true, y_model, qid, judged_rows)``: a query is human-judged
    when any of its rows has a (non-NaN) human label."""
    check_flags(expected_labels=expected_labels)
    y_true = _float("y_true", y_true)
    y_model = _float("y_model", y_model)
    qid = np.asarray(qid)
    if not (y_true.shape == y_model.shape == qid.shape):
        raise ValueError(
            "y_true, y_model and qid must have one value per row, got lengths "
            f"{y_true.shape[0]}, {y_model.shape[0]} and {qid.shape[0]}."
        )
    if np.isinf(y_true).any():
        raise ValueError("y_true holds infinite values; a human label is a grade.")
    labelled = ~np.isnan(y_true)
    if not labelled.any():
        raise ValueError(
            "y_true has no human label (every value is NaN): a prediction-powered "
            "estimate needs human labels on at least two queries, drawn at random."
        )
    codes, uniq = pd.factorize(qid, sort=False)
    judged_q = np.zeros(uniq.size, bool)
    judged_q[codes[labelled]] = True
    judged = judged_q[codes]
    missing = np.isnan(y_model)
    if missing.any():
        empty = np.ones(uniq.size, bool)
        empty[codes[~missing]] = False
        bad = uniq[empty & judged_q]
        if bad.size:
            raise ValueError(
                f"the human-judged queries {_examples(bad)} have no model labels "
                "(y_model is NaN on all their rows); every query needs the model's "
                "labels, the human-judged ones included."
            )
        raise ValueError(
            f"y_model is NaN on {int(missing.sum())} rows (queries "
            f"{_examples(np.unique(qid[missing]))}); give the model's label (or "
            "expected label) of every row."
        )
    h = y_true[labelled]
    inferred = grades is None
    if inferred:
        lo, hi = float(h.min()), float(h.max())
    elif not (
        isinstance(grades, tuple)
        and len(grades) == 2
        and all(isinstance(g, Real) and np.isfinite(g) for g in grades)
        and grades[0] < grades[1]
    ):
        raise ValueError(
            f"grades must be a tuple (lowest, highest) of two finite numbers with "
            f"lowest < highest, got {grades!r}."
        )
    else:
        lo, hi = float(grades[0]), float(grades[1])
    where = "the human labels' range" if inferred else "grades"
    if (h < lo).any() or (h > hi).any():
        raise ValueError(
            f"y_true holds {_examples(np.unique(h[(h < lo) | (h > hi)]))}, outside "
            f"grades=({lo:g}, {hi:g})."
        )
    hint = "" if not inferred else " (or pass grades=(lowest, highest))"
    out = (y_model < lo) | (y_model > hi)
    if out.any():
        raise ValueError(
            f"y_model holds {_examples(np.unique(y_model[out]))}, outside "
            f"{where} [{lo:g}, {hi:g}]: are the grades on different scales? Map "
            "the model's labels onto the human grades first" + hint + "."
        )
    if not expected_labels:
        integral = np.all(h == np.round(h))
        if integral and np.any(y_model != np.round(y_model)):
            bad = np.unique(y_model[y_model != np.round(y_model)])
            raise ValueError(
                f"y_model holds {_examples(bad)}, which are not grades of the "
                f"human scale [{lo:g}, {hi:g}]; if they are expected labels (a "
                "mean grade under the model's label distribution), pass "
                "expected_labels=True."
            )
    return y_true, y_model, qid, judged


def scores_per_row(y_score, qid, name="y_score"):
    """``y_score`` as an array of one score per row of ``qid``, or an error."""
    n = qid.shape[0]
    return check_length(y_score, n, f"{name} must have one value per row ({n} rows)")


def inclusion_per_query(inclusion_probability, qids, judged_q, qid_rows):
    """One inclusion probability per query (``None``: uniform, ``n / N``)."""
    n, N = int(judged_q.sum()), judged_q.size
    if inclusion_probability is None:
        return np.full(N, n / N)
    spec = inclusion_probability
    if isinstance(spec, (Mapping, pd.Series)):
        pi = pd.Series(spec).reindex(qids).to_numpy(dtype=float)
    else:
        rows = _float("inclusion_probability", spec)
        if rows.shape != qid_rows.shape:
            raise ValueError(
                "inclusion_probability must hold one value per row "
                f"({qid_rows.shape[0]} rows) or be a mapping from query id, got "
                f"shape {rows.shape}."
            )
        frame = pd.DataFrame({"qid": qid_rows, "pi": rows})
        spread = frame.groupby("qid", sort=False)["pi"].nunique(dropna=False)
        if (spread > 1).any():
            raise ValueError(
                "inclusion_probability varies within the queries "
                f"{_examples(spread.index[spread > 1])}; a query is judged or not "
                "as a whole."
            )
        pi = frame.drop_duplicates("qid").set_index("qid")["pi"]
        pi = pi.reindex(qids).to_numpy(dtype=float)
    bad = judged_q & ~((pi > 0) & (pi <= 1))
    if bad.any():
        raise ValueError(
            "inclusion_probability must be in (0, 1] for every human-judged query, "
            f"got {_examples(pi[bad])} for the queries {_examples(qids[bad])}."
        )
    return np.where(judged_q, pi, 1.0)


def two_reports(y_true, y_model, y_score, qid, judged, metrics, options):
    """Per-query frames under the model's labels (all queries) and the humans'
    (judged queries; an unlabelled row of a judged query is not relevant)."""
    model = ranking_report(y_model, y_score, qid, metrics=metrics, **options)
    y_h = y_true[judged]
    # A per-row doc_id is cut to the judged rows.
    options = dict(options)
    doc_id = options.get("doc_id")
    if doc_id is not None and np.asarray(doc_id).shape == judged.shape:
        options["doc_id"] = np.asarray(doc_id)[judged]
    if np.isnan(y_h).any():
        options.setdefault("nan_label", "unjudged")
    human = ranking_report(
        y_h, y_score[judged], qid[judged], metrics=metrics, **options
    )
    return model, human


def ratio_parts(model_vals, human_vals):
    """``(a_h, d_h, a_f, d_f)`` of a mean with NaN (skipped) queries."""
    d_f = (~np.isnan(model_vals)).astype(float)
    d_h = (~np.isnan(human_vals)).astype(float)
    return np.nan_to_num(human_vals), d_h, np.nan_to_num(model_vals), d_f
