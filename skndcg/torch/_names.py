"""Measure names, read from the registry of :mod:`skndcg.metrics`, and the
tensor implementation of each registered measure family.

A name is parsed by the engine's own grammar (``"ndcg@10"``, ``"rbp(p=0.9)"``,
aliases such as ``"ap"``), so both packages accept exactly the same names. The
tensor implementation is then looked up by the measure's canonical name in
:data:`FAMILIES`; a registered measure without one (a measure added with
:func:`skndcg.metrics.define_measure`, whose ``per_query`` is Python or numba
code) is refused with an error that names it, unless the caller asks for the
CPU fallback.
"""

from __future__ import annotations

from ..metrics._names import MetricSpec, check_unique, parse_metric
from . import _families as F
from . import _perquery as Q
from . import _trec_curves as C
from . import _trec_families as T

#: Canonical measure name -> its tensor implementation. Each takes the ranked
#: rows (:class:`skndcg.torch._ranked.Ranked`), the cut-off and the options and
#: returns one value per query, and which queries are empty (None: the
#: registry's ``empty_when`` decides). Skipping and averaging happen elsewhere.
FAMILIES = {
    "ndcg": F.ndcg,
    "dcg": F.dcg,
    "idcg": F.idcg,
    "map": F.average_precision,
    "mrr": F.reciprocal_rank,
    "p": F.precision,
    "r": F.recall,
    "hit": F.hit_rate,
    "err": Q.err,
    "nerr": Q.nerr,
    "rbp": Q.rbp,
    "rbp_resid": Q.rbp_resid,
    "trec_rbp": Q.trec_rbp,
    "trec_rbp_resid": Q.trec_rbp_resid,
    "rprec": Q.rprec,
    "bpref": Q.bpref,
    "judged": Q.judged,
    **T.FAMILIES,
    "gm_bpref": Q.bpref,
    **C.FAMILIES,
}

#: Built-in measures without a tensor implementation, computed by
#: :mod:`skndcg.metrics` on a CPU copy of the rows (no ``cpu_fallback=True``
#: needed). Every built-in measure has one today, so the set is empty; a new
#: built-in measure needs a tensor implementation in FAMILIES or a place here,
#: and tests/peers_torch checks that it has one or the other.
CPU_ONLY = frozenset()

#: Measures read from blocks of tied rows (exact expectations under
#: ``ties="average"``); the others read rows one by one in rank order.
BLOCKS = frozenset({"ndcg", "dcg", "idcg", "map", "mrr", "p", "r", "hit"})


__all__ = ["BLOCKS", "CPU_ONLY", "FAMILIES", "check_unique", "implementation", "parse"]


def parse(name) -> MetricSpec:
    """Parse a measure name exactly as :mod:`skndcg.metrics` does."""
    return parse_metric(name)


def implementation(spec: MetricSpec, *, cpu_fallback: bool = False):
    """The tensor implementation of a parsed measure, or None when it is
    computed on a CPU copy (a built-in of :data:`CPU_ONLY`, or any measure
    without one when the CPU fallback is asked for); otherwise a clear error."""
    family = FAMILIES.get(spec.measure)
    if family is not None:
        return family
    if cpu_fallback or spec.measure in CPU_ONLY:
        return None
    m = spec.definition
    kind = "a numba-compiled" if m.compiled else "a plain Python"
    raise ValueError(
        f"measure {spec.measure!r} ({spec.name}) has no tensor implementation: "
        f"it is registered with {kind} per_query function, which runs on numpy "
        "arrays on the CPU, not on torch tensors. Pass cpu_fallback=True to "
        "compute it with skndcg.metrics on a CPU copy of the rows, or use "
        "skndcg.metrics.grouped_ranking_scores directly."
    )
