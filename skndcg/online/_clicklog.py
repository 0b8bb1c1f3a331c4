"""Checks of a flat click log, shared by the counterfactual estimators."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..evaluation._shared import check_length
from ..utils._values import py
from ._ranking import check_ids, query_codes


@dataclass
class ClickLog:
    """A checked log: arrays aligned with the caller's rows."""

    codes: np.ndarray  # query code of each row, 0..n_queries-1
    n_queries: int
    shown: np.ndarray  # bool
    position: np.ndarray  # int64, 0 where not shown
    click: np.ndarray  # float64 0/1
    score: np.ndarray  # float64


def _first(mask):
    return int(np.flatnonzero(mask)[0])


def check_qid(qid):
    """``qid`` as an array, or an error unless it is non-empty and 1-D."""
    q = np.asarray(qid)
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"qid must be a non-empty 1-D array, got shape {q.shape}.")
    return q


def column(values, name, n, dtype=None):
    """``values`` as a 1-D array of ``n`` values, or an error naming ``name``."""
    must = f"{name} must hold one value per row of the log ({n} values, as qid)"
    return check_length(values, n, must, dtype)


def score_column(values, name, n):
    """``values`` as ``n`` float scores, none NaN, or an error naming ``name``."""
    score = column(values, name, n, np.float64)
    nan = np.isnan(score)
    if nan.any():
        raise ValueError(
            f"{name} contains {int(nan.sum())} NaN value(s), first at row "
            f"{_first(nan)}; every candidate needs a score."
        )
    return score


def probabilities(values, name, must="hold probabilities", at="index"):
    """``values`` as float64 probabilities, or an error naming ``name`` and the
    first value outside [0, 1] (NaN included)."""
    p = np.asarray(values, dtype=np.float64)
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        i = _first(bad)
        raise ValueError(
            f"{name} must {must} in [0, 1], got {p[i].item()!r} at {at} {i}."
        )
    return p


def examination_or_default(examination, depth):
    """``examination`` as float64, or ``1 / position`` for positions 1..depth."""
    if examination is None:
        return 1.0 / np.arange(1, depth + 1)
    return np.asarray(examination, dtype=np.float64)


def positions(position, n, name="position", unshown=True):
    """``position`` as ``n`` floats (whole numbers >= 1, NaN where the row was
    not shown, when ``unshown``) and the mask of shown rows, or an error naming
    ``name``."""
    what = "a whole number >= 1 (1 for the top slot)" + (
        " or NaN where the row was not shown" if unshown else ""
    )
    pos = column(position, name, n)
    if pos.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be {what}, got dtype {pos.dtype}.")
    pos = pos.astype(np.float64)
    shown = ~np.isnan(pos)
    bad = ~((pos >= 1) & (pos == np.round(pos)) & (pos < np.inf))
    if unshown:
        bad &= shown
    if bad.any():
        i = _first(bad)
        raise ValueError(f"{name} must be {what}, got {pos[i].item()!r} at row {i}.")
    return pos, shown


def refuse_repeats(q, codes, values, name, why, rows=None):
    """Raise naming two rows (among the mask ``rows``) of one query (``codes``,
    ids ``q``) that share a value of ``values`` (the column ``name``), and
    ``why`` that is wrong."""
    rows = np.arange(codes.size) if rows is None else np.flatnonzero(rows)
    if not rows.size:
        return
    c, v = codes[rows], np.asarray(values)[rows]
    n_q = int(c.max()) + 1
    span = int(v.max()) - int(v.min()) + 1 if v.dtype.kind in "iu" else 0
    if 0 < span * n_q < 2**62:
        key = c * span + (v - v.min()).astype(np.int64)
    else:
        f, uniques = pd.factorize(v)
        span, key = len(uniques), c * len(uniques) + f
    # the repeated keys, smallest first: by counting when the keys are dense,
    # else by sorting
    if span * n_q <= 8 * c.size:
        repeated = np.flatnonzero(np.bincount(key) > 1)
    else:
        ordered = np.sort(key)
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if repeated.size:
        local = np.flatnonzero(key == repeated[0])[:2]
        raise ValueError(
            f"rows {rows[local].tolist()} share qid {py(q[rows[local[0]]])!r} and "
            f"{name} {py(v[local[0]])!r}: {why}"
        )


def clicks(click, n):
    """``click`` as ``n`` floats 0/1 (from 0/1 or boolean values), checked."""
    clk = check_ids(column(click, "click", n), "click")
    if clk.dtype != bool:
        ok = (clk == 0) | (clk == 1)
        if not ok.all():
            i = _first(~ok)
            raise ValueError(
                f"click must be 0/1 or boolean, got {py(clk[i])!r} at row {i}."
            )
    return clk.astype(np.float64)


def check_click_log(qid, item, position, click, new_score):
    """Check the shared columns of a log; return a :class:`ClickLog`."""
    q = check_qid(qid)
    n = q.size
    it = check_ids(column(item, "item", n), "item")
    pos, shown = positions(position, n)
    clk = clicks(click, n)
    ghost = (clk > 0) & ~shown
    if ghost.any():
        raise ValueError(
            f"click is 1 on {int(ghost.sum())} row(s) never shown (position NaN), "
            f"first at row {_first(ghost)}: a click needs a logged position."
        )
    score = score_column(new_score, "new_score", n)
    codes, n_q = query_codes(q)
    ipos = np.where(shown, pos, 0).astype(np.int64)
    why = "each position of a logged list holds one item."
    refuse_repeats(q, codes, ipos, "position", why, shown)
    refuse_repeats(q, codes, it, "item", "an item is one row of a logged list "
                   "(give each impression of a query its own qid).")  # fmt: skip
    return ClickLog(codes, n_q, shown, ipos, clk, score)


def check_examination(examination, log, item, k, target):
    """Examination per position 1, 2, ... as a float array, checked; ``None``
    estimates it from the log."""
    from ..evaluation import PositionBias, estimate_position_bias

    if examination is None:
        s = log.shown
        try:
            examination = estimate_position_bias(
                log.position[s],
                log.click[s],
                qid=np.zeros(int(s.sum()), np.int64),
                doc=np.asarray(item)[s],
                n_resamples=0,
            )
        except ValueError as exc:
            raise ValueError(
                "examination=None: the examination could not be estimated from this "
                f"log ({exc}) Pass examination= (an array, or estimate_position_bias "
                "run on a log where items move between positions)."
            ) from exc
    depth = int(log.position.max())
    estimated = isinstance(examination, PositionBias)
    e = np.asarray(examination, dtype=np.float64)
    if e.ndim != 1 or e.size == 0:
        raise ValueError(
            f"examination must be a 1-D array of probabilities per position (or the "
            f"PositionBias estimate_position_bias returns), got shape {e.shape}."
        )
    if e.size < depth:
        raise ValueError(
            f"examination has {e.size} position(s) but the log shows items down to "
            f"position {depth}; give the examination of every logged position."
        )
    if target == "clicks" and e.size < k:
        raise ValueError(
            f"examination has {e.size} position(s) but k={k}: the expected clicks of "
            f"the new top {k} need the examination of each of its positions; pass "
            f"k <= {e.size} or a longer examination."
        )
    used = e[: max(depth, k if target == "clicks" else 0)]
    bad = ~np.isfinite(used) | (used <= 0) | ((used > 1) & (not estimated))
    if bad.any():
        i = _first(bad)
        raise ValueError(
            f"examination must be a probability in (0, 1] at every position used, got "
            f"{used[i].item()!r} at position {i + 1}."
        )
    return e


def check_logging_probability(logging_probability, log):
    """Probability the logger showed each row's item; 1/0 for a fixed logger."""
    if logging_probability is None:
        return log.shown.astype(np.float64)
    name = "logging_probability"
    p = column(logging_probability, name, log.shown.size, np.float64)
    p = probabilities(p, name, "be a probability", "row")
    zero = log.shown & (p == 0)
    if zero.any():
        i = _first(zero)
        raise ValueError(
            f"logging_probability is 0 at row {i}, which was shown at position "
            f"{log.position[i]}: a shown item had a positive chance of being shown "
            f"({int(zero.sum())} such row(s))."
        )
    return p
