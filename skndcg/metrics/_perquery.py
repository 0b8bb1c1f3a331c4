"""Measures without a block kernel: one call of ``per_query`` per query.

The rows of each query are ranked once for all such measures (after the tie rule
has reordered them): query ``g`` keeps the span ``starts[g]:ends[g]`` of the
grouped arrays, its retrieved rows first, best score first. Under
``ties="average"`` tied rows are ranked least relevant first (the rule of
``ties="pessimistic"``), so a value never depends on the row order.

A numba-compiled ``per_query`` runs inside a compiled loop over the queries (one
loop per arity, built from source and compiled once per measure); a plain
Python one is called from Python.
"""

from __future__ import annotations

import numpy as np

from .._native._jit import jit, native, plain
from ._rank import argsort_desc
from ._validate import py

_loops: dict = {}


def _loop(n_args: int, use_ideal: bool, empty: bool = False):
    """A compiled loop calling ``f(labels, k[, ideal], *args)`` for every query
    (with nothing retrieved: 0, or ``f`` on the empty list when ``empty``)."""
    key = (n_args, use_ideal, empty)
    if key not in _loops:
        from numba import njit

        names = [f"a{i}" for i in range(n_args)]
        call = ", ideal[lo:ends[g]]" if use_ideal else ""
        call += "".join(f", {a}[g]" for a in names)
        src = (
            f"def loop(f, ry, starts, nret, k{''.join(', ' + a for a in names)}, "
            "ideal, ends, out):\n"
            "    for g in range(starts.shape[0]):\n"
            "        lo = starts[g]\n"
            f"        if nret[g] == 0 and not {empty}:\n"
            "            out[g] = 0.0\n"
            "        else:\n"
            f"            out[g] = f(ry[lo:lo + nret[g]], k{call})\n"
        )
        scope: dict = {}
        exec(compile(src, f"<skndcg per-query loop {key}>", "exec"), scope)
        _loops[key] = njit(scope["loop"])
    return _loops[key]


def ranked_order(y_g, s_g, grouping, *, pessimistic: bool) -> np.ndarray:
    """Row order putting each query's rows, best score first, in its own span
    (unretrieved rows, NaN scores, last; ties in row order, or least relevant
    first when ``pessimistic``)."""
    out = np.empty(s_g.shape[0], dtype=np.int64)
    _rank_spans(y_g, s_g, grouping.starts, grouping.ends, pessimistic, out)
    return out


@jit
def _rank_spans(y, s, starts, ends, pessimistic, out):
    mmax = 0
    for g in range(starts.shape[0]):
        mmax = max(mmax, ends[g] - starts[g])
    first = np.empty(mmax, dtype=np.int64)
    order = np.empty(mmax, dtype=np.int64)
    tmp = np.empty(mmax, dtype=np.int64)
    key = np.empty(mmax, dtype=np.float64)
    for g in range(starts.shape[0]):
        lo = starts[g]
        m = ends[g] - lo
        if pessimistic:
            # Least relevant first among tied scores: by label, then stably.
            for i in range(m):
                key[i] = -np.float64(y[lo + i])
            argsort_desc(key, m, first, tmp)
        else:
            for i in range(m):
                first[i] = i
        for i in range(m):
            v = s[lo + first[i]]
            key[i] = -np.inf if v != v else v
        argsort_desc(key, m, order, tmp)
        for i in range(m):
            out[lo + i] = lo + first[order[i]]


def _span_start(grouping) -> np.ndarray:
    """Per grouped row, the first row of its query's span."""
    by_start = np.argsort(grouping.starts, kind="stable")
    return np.repeat(grouping.starts[by_start], grouping.sizes[by_start])


def evaluate_per_query(
    specs,
    y_g,
    s_g,
    unjudged_g,
    grouping,
    nret,
    n_rel,
    rel_thr,
    *,
    pessimistic,
    label_max=None,
    pooled_g=None,
):
    """Values ``(n_groups, len(specs))`` and the ``aux`` that decides emptiness.

    ``label_max`` is the largest label of the whole data when these rows are
    one piece of it (default: the largest label of these rows). ``pooled_g``
    marks the rows judged negative under trec_eval's rule ("in the pool, not
    judged"): a measure that uses unjudged rows (``"use"``) sees them as
    unjudged (NaN), like the rows nobody judged; one that reads the pool
    (``"pool"``) sees them as -1 and the rows nobody judged as NaN.
    """
    pool_marks, refused = None, unjudged_g  # negative labels are not refused
    if pooled_g is not None:
        pool_marks = pooled_g if unjudged_g is None else pooled_g & ~unjudged_g
        unjudged_g = pooled_g if unjudged_g is None else unjudged_g | pooled_g
    n_groups = grouping.n_groups
    values = np.empty((n_groups, len(specs)))
    aux = np.empty_like(values)
    nret_arr = grouping.sizes if nret is None else nret
    nret_arr = np.ascontiguousarray(nret_arr, dtype=np.int64)
    y0 = y_g.astype(np.float64)
    order = ranked_order(y0, s_g, grouping, pessimistic=pessimistic)
    ranked = y0[order]
    ranked_nan = ranked_pool = ranked
    if unjudged_g is not None:
        ranked_nan = np.where(unjudged_g[order], np.nan, ranked)
        ranked_pool = ranked_nan
        if pool_marks is not None:
            ranked_pool = np.where(pool_marks[order], -1.0, ranked_nan)
    ideal = None
    n_unjudged = 0 if unjudged_g is None else _per_group(unjudged_g, grouping)
    for j, sp in enumerate(specs):
        m = sp.definition
        if m.unjudged == "refuse" and refused is not None:
            g = int(np.flatnonzero(_per_group(refused, grouping))[0])
            raise ValueError(
                f"{sp.name} cannot use unjudged rows (NaN labels), and query "
                f"{py(grouping.keys[g])!r} has some; drop them, or judge them."
            )
        extras = []
        use_ideal = "ideal" in m.needs
        if use_ideal and ideal is None:
            ideal = y0[np.lexsort((-y0, _span_start(grouping)))]
        for need in m.needs:
            if need == "n_relevant":
                extras.append(n_rel.astype(np.float64))
            elif need == "n_nonrelevant":
                extras.append((grouping.sizes - n_rel - n_unjudged).astype(np.float64))
            elif need == "label_max":
                if label_max is None:
                    label_max = float(y0.max()) if y0.size else 0.0
                extras.append(np.full(n_groups, float(label_max)))
            elif need == "rel_threshold":
                extras.append(np.full(n_groups, float(rel_thr)))
        for _, v in sp.params:
            extras.append(np.full(n_groups, np.nan if v is None else float(v)))
        ry = {"use": ranked_nan, "pool": ranked_pool}.get(m.unjudged, ranked)
        ry = np.array(ry)
        ideal_arr = ideal if use_ideal else np.empty(0)
        if m.compiled and not plain():
            out = _run_compiled(sp, m, ry, grouping, nret_arr, extras, ideal_arr)
        else:
            out = _run_python(sp, m, ry, grouping, nret_arr, extras, ideal_arr)
        bad = ~np.isfinite(out)
        if bad.any():
            g = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"measure {sp.name!r} returned {float(out[g])!r} for query "
                f"{py(grouping.keys[g])!r}; a measure must return a finite number."
            )
        values[:, j] = out
        if m.empty_when == "never":
            aux[:, j] = 1.0
        else:
            aux[:, j] = n_rel
    return values, aux


def _per_group(mask, grouping) -> np.ndarray:
    """How many rows of each query are set in ``mask`` (grouped rows)."""
    by_start = np.argsort(grouping.starts, kind="stable")
    gid = np.repeat(by_start, grouping.sizes[by_start])
    return np.bincount(gid, weights=mask, minlength=grouping.n_groups).astype(np.int64)


def _run_compiled(sp, m, ry, grouping, nret, extras, ideal):
    from numba.core.errors import TypingError

    out = np.empty(grouping.n_groups)
    loop = _loop(len(extras), ideal.size > 0, m.scores_empty_lists)
    try:
        loop(
            native(m.per_query), ry, grouping.starts, nret, sp.k, *extras, ideal,
            grouping.ends, out,
        )  # fmt: skip
    except TypingError as exc:
        first = " ".join(str(exc).split())[:600]
        raise TypeError(
            f"measure {sp.name!r}: its compiled per_query could not be called "
            f"as per_query(ranked_labels, k{', ...' if extras else ''}) returning "
            f"a float ({first})."
        ) from None
    return out


def _run_python(sp, m, ry, grouping, nret, extras, ideal):
    out = np.empty(grouping.n_groups)
    use_ideal = ideal.size > 0
    f = m.per_query
    for g in range(grouping.n_groups):
        lo = grouping.starts[g]
        if nret[g] == 0 and not m.scores_empty_lists:
            out[g] = 0.0
            continue
        args = [ry[lo : lo + nret[g]], sp.k]
        if use_ideal:
            args.append(ideal[lo : grouping.ends[g]])
        args.extend(e[g] for e in extras)
        v = f(*args)
        try:
            out[g] = float(v)
        except (TypeError, ValueError):
            raise TypeError(
                f"measure {sp.name!r} returned {v!r} ({type(v).__name__}) for "
                f"query {py(grouping.keys[g])!r}; per_query must return a float."
            ) from None
    return out
