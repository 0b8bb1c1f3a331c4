"""Measures without a block kernel: one call of ``per_query`` per query, in a
loop built from source for its arity (compiled, and written to a module numba
caches when the kernel imports by name; or run as Python). Each query's rows
are ranked once for all of them: retrieved rows first, best score first, ties
in row order (``ties="average"``: ``_tie_orders.py``).
"""

from __future__ import annotations

import sys
import textwrap

import numpy as np

from ..._native._jit import jit, native, numpy_twin, plain
from ...utils._values import py
from .._conventions import TieRule
from . import _tie_orders as T
from ._rank import argsort_desc

_loops: dict = {}

_AVERAGE = """\
    m = 0
    for g in tied:
        m = max(m, nret[g])
    ws = workspace(m)
    for g in tied:
        lo = starts[g]
        n = nret[g]
        lab = ry[lo:lo + n]
        kk = depth(k, n, by_k)
        nb = find_blocks(lab, rs[lo:lo + n], kk, form, binary, thr, ws)
        calls[g] = prepare(lab, nb, kk, form, binary, thr, ws, cap)
        if calls[g] > cap:
            continue
        buf = lab.copy()
        w = first(buf, lab, nb, form, ws)
        total = 0.0
        while w == w:
            total += w * {value}
            w = advance(buf, lab, nb, form, ws)
        out[g] = total
"""
_EACH = """\
    for g in range(starts.shape[0]):
        lo = starts[g]
        if nret[g] == 0 and not {empty}:
            out[g] = 0.0
        else:
            out[g] = {value}
"""
_HELPERS = ("workspace", "depth", "find_blocks", "prepare", "first", "advance")


def _loop(n_args, use_ideal, empty=False, average=False, compiled=True, f=None):
    """``(loop, whether f is its first argument)``: the loop calling
    ``f(labels, k[, ideal], *args)`` for every query (nothing retrieved: 0, or
    ``f`` on the empty list when ``empty``), or with ``average`` the expectation
    over the orders of tied rows for the queries ``tied``. As Python it checks
    each value with the extra arguments ``value(v, g)`` and ``failed(exc, g)``;
    compiled, an importable ``f`` is a global of a written module."""
    written = compiled and _importable(f)
    key = (n_args, use_ideal, empty, average, compiled, f if written else None)
    if key not in _loops:
        names = [f"a{i}" for i in range(n_args)]
        call = ", ideal[lo:ends[g]]" if use_ideal else ""
        call += "".join(f", {a}[g]" for a in names)
        params = (
            f"ry, starts, nret, k{''.join(', ' + a for a in names)}, ideal, ends, out"
        )
        if average:
            params += ", tied, rs, by_k, form, binary, thr, cap, calls"
            value = f"f(buf, k{call})"
        else:
            value = f"f(ry[lo:lo + nret[g]], k{call})"
        if not compiled:
            params += ", value, failed"
            value = f"value({value}, g)"
        body = (_AVERAGE if average else _EACH).format(value=value, empty=empty)
        module = _written_loop(f"def loop({params}):\n{body}", f) if written else None
        if module is not None:
            _loops[key] = (module.loop, False)
        else:  # f is the loop's first argument
            scope = {
                name: native(getattr(T, name)) if compiled else getattr(T, name)
                for name in _HELPERS
            }
            if not compiled:  # a try costs nothing until something is raised
                body = "    g = -1\n    try:\n" + textwrap.indent(body, "    ")
                body += "    except Exception as exc:\n        failed(exc, g)\n"
            src = f"def loop(f, {params}):\n{body}"
            exec(compile(src, f"<skndcg per-query loop {key}>", "exec"), scope)
            if compiled:
                from numba import njit

                _loops[key] = (njit(scope["loop"]), True)
            else:
                _loops[key] = (scope["loop"], True)
    return _loops[key]


def _importable(f) -> bool:
    """Whether the kernel ``f`` is what its module and name import."""
    func = getattr(f, "py_func", None)
    module = getattr(func, "__module__", None)
    qualname = getattr(func, "__qualname__", "")
    if module in (None, "__main__") or "<" in qualname or "." in qualname:
        return False
    return getattr(sys.modules.get(module), qualname, None) is f


def _written_loop(src, f):
    """The module defining ``src``'s loop around the kernel ``f``, written so
    that numba caches it (:mod:`skndcg._native._written`), or None."""
    from ..._native._written import written_module

    func = f.py_func
    text = (
        f'"""The per-query loop of {func.__module__}.{func.__qualname__}, '
        "written by skndcg.metrics._core._perquery."
        '"""\n\n'
        "from skndcg._native._jit import jit\n"
        f"from skndcg.metrics._core._tie_orders import {', '.join(sorted(_HELPERS))}\n"
        f"from {func.__module__} import {func.__qualname__} as f\n\n\n"
        f"@jit\n{src}"
    )
    return written_module(text, (sys.modules[func.__module__].__file__,))


def ranked_order(s_g, grouping) -> tuple[np.ndarray, np.ndarray]:
    """Row order putting each query's rows, best score first, in its own span
    (unretrieved rows, NaN scores, last; ties in row order), and the scores in
    that order (NaN as -inf)."""
    out = np.empty(s_g.shape[0], dtype=np.int64)
    ranked = np.empty(s_g.shape[0], dtype=np.float64)
    _rank_spans(s_g, grouping.starts, grouping.ends, out, ranked)
    return out, ranked


@jit
def _rank_spans(s, starts, ends, out, ranked):
    mmax = 0
    for g in range(starts.shape[0]):
        mmax = max(mmax, ends[g] - starts[g])
    order = np.empty(mmax, dtype=np.int64)
    tmp = np.empty(mmax, dtype=np.int64)
    key = np.empty(mmax, dtype=np.float64)
    for g in range(starts.shape[0]):
        lo = starts[g]
        m = ends[g] - lo
        for i in range(m):
            v = s[lo + i]
            key[i] = -np.inf if v != v else v
        argsort_desc(key, m, order, tmp)
        for i in range(m):
            out[lo + i] = lo + order[i]
            ranked[lo + i] = key[order[i]]


@numpy_twin(_rank_spans)
def _rank_spans_numpy(s, starts, ends, out, ranked):
    for lo, hi in zip(starts.tolist(), ends.tolist(), strict=True):
        key = np.where(np.isnan(s[lo:hi]), -np.inf, s[lo:hi])
        order, tmp = np.empty(hi - lo, dtype=np.int64), np.empty(hi - lo, np.int64)
        argsort_desc(key, hi - lo, order, tmp)
        out[lo:hi] = lo + order
        ranked[lo:hi] = key[order]


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
    average,
    label_max=None,
    pooled_g=None,
    convention,
):
    """Values ``(n_groups, len(specs))`` and the ``aux`` that decides emptiness.

    With ``average``, a query needing more than ``MAX_CALLS`` calls is refused,
    naming the tie rules ``convention`` allows. ``label_max``: the largest label
    of the whole data (default: of these rows). ``pooled_g``: rows judged
    negative under trec_eval's rule, NaN to a measure with ``unjudged="use"``
    and -1 to one with ``"pool"`` (which sees the rows nobody judged as NaN).
    """
    pool_marks, refused = None, unjudged_g  # negative labels are not refused
    if pooled_g is not None:
        pool_marks = pooled_g if unjudged_g is None else pooled_g & ~unjudged_g
        unjudged_g = pooled_g if unjudged_g is None else unjudged_g | pooled_g
    n_groups = grouping.n_groups
    values = np.empty((n_groups, len(specs)))
    aux = np.empty_like(values)
    nret_arr = np.ascontiguousarray(grouping.sizes if nret is None else nret, np.int64)
    y0 = y_g.astype(np.float64)
    order, rs = ranked_order(s_g, grouping)
    ranked = y0[order]
    ranked_nan = ranked_pool = ranked
    if unjudged_g is not None:
        ranked_nan = np.where(unjudged_g[order], np.nan, ranked)
        ranked_pool = ranked_nan
        if pool_marks is not None:
            ranked_pool = np.where(pool_marks[order], -1.0, ranked_nan)
    ideal = None
    n_unjudged = 0 if unjudged_g is None else grouping.count(unjudged_g)
    for j, sp in enumerate(specs):
        m = sp.definition
        if m.unjudged == "refuse" and refused is not None:
            g = int(np.flatnonzero(grouping.count(refused))[0])
            raise ValueError(
                f"{sp.name} cannot use unjudged rows (NaN labels), and query "
                f"{py(grouping.keys[g])!r} has some; drop them, or judge them."
            )
        extras = []
        use_ideal = "ideal" in m.needs
        if use_ideal and ideal is None:
            ideal = y0[np.lexsort((-y0, grouping.starts[grouping.row_query]))]
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
        ry = np.array({"use": ranked_nan, "pool": ranked_pool}.get(m.unjudged, ranked))
        ideal_arr = ideal if use_ideal else np.empty(0)
        tie_scores = rs if average else None
        out, calls = _run(
            sp, m, ry, grouping, nret_arr, extras, ideal_arr, tie_scores, rel_thr
        )
        if (calls > T.MAX_CALLS).any():
            g = int(np.flatnonzero(calls > T.MAX_CALLS)[0])
            raise ValueError(_refusal(sp.name, grouping.keys[g], convention))
        bad = ~np.isfinite(out)
        if bad.any():
            g = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"measure {sp.name!r} returned {float(out[g])!r} for query "
                f"{py(grouping.keys[g])!r}; a measure must return a finite number."
            )
        values[:, j] = out
        aux[:, j] = 1.0 if m.empty_when == "never" else n_rel
    return values, aux


def _refusal(name, key, convention) -> str:
    rules = "ties='stable', 'reverse', 'pessimistic' or 'docid' (with doc_id)"
    if "ties" not in convention.free:
        rules = f"convention='skndcg' with {rules} (convention={convention.name!r} "
        rules += "fixes ties='average')"
    elif convention.free["ties"] is not None:
        named = [t for t in convention.free["ties"] if not TieRule.of(t).average]
        rules = "ties=" + " or ".join(repr(t) for t in named)
    return (
        f"{name} cannot average over the orders of tied rows (ties='average') "
        f"for query {py(key)!r}: its tied rows with different labels take more "
        f"than {T.MAX_CALLS:,} label orders to average exactly, one call of the "
        f"measure each; break the ties by a rule instead: {rules}."
    )


def _run(sp, m, ry, grouping, nret, extras, ideal, rs, rel_thr):
    """Measure ``sp`` on every query: ``(values, calls)``, ``calls`` counting the
    orders averaged over per query (``rs``: the ranked scores under
    ``ties="average"``, else None)."""
    compiled = m.compiled and not plain()
    out = np.empty(grouping.n_groups)
    calls = np.zeros(grouping.n_groups)
    use_ideal = ideal.size > 0
    f = native(m.per_query) if compiled else m.per_query
    head = (ry, grouping.starts, nret, sp.k, *extras, ideal, grouping.ends, out)
    tail = ()
    if not compiled:

        def value(v, g):
            try:
                if isinstance(v, (str, bytes)):
                    raise TypeError
                return float(v)
            except (TypeError, ValueError):
                raise _Refused(
                    f"measure {sp.name!r} returned {v!r} ({type(v).__name__}) for "
                    f"query {py(grouping.keys[g])!r}; per_query must return a float."
                ) from None

        def failed(exc, g):
            if isinstance(exc, _Refused) or g < 0:
                raise exc
            raise RuntimeError(
                f"measure {sp.name!r} failed on query {py(grouping.keys[g])!r}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

        tail = (value, failed)

    shape = (len(extras), use_ideal, m.scores_empty_lists)
    kernel = m.per_query if compiled else None
    try:
        loop, takes_f = _loop(*shape, False, compiled, kernel)
        loop(*((f,) if takes_f else ()), *head, *tail)
        if rs is None:
            return out, calls
        # The queries whose tied rows change the value, averaged over their orders.
        ties = (m.depth == "k", T.FORMS.index(m.form), m.binary, float(rel_thr))
        blocks = np.zeros(grouping.n_groups, dtype=np.int64)
        T.tied_queries(ry, rs, grouping.starts, nret, sp.k, *ties, blocks)
        tied = np.flatnonzero(blocks)
        if tied.size:
            loop, takes_f = _loop(*shape, True, compiled, kernel)
            args = (tied, rs, *ties, T.MAX_CALLS, calls)
            loop(*((f,) if takes_f else ()), *head, *args, *tail)
    except Exception as exc:
        if not compiled:
            raise
        from numba.core.errors import TypingError

        if not isinstance(exc, TypingError):
            raise
        first = " ".join(str(exc).split())[:600]
        raise TypeError(
            f"measure {sp.name!r}: its compiled per_query could not be called "
            f"as per_query(ranked_labels, k{', ...' if extras else ''}) returning "
            f"a float ({first})."
        ) from None
    return out, calls


class _Refused(TypeError):
    """A value of a Python ``per_query`` that is not a number."""
