"""Measures that read side inputs (item ids, popularity): ``row_values`` gives
one value per row, which ``per_query`` reads in place of the labels."""

from __future__ import annotations

import numpy as np

from .._catalogue._names import parse_metric
from ._perquery import evaluate_per_query


def check_side_inputs(names, given, *, hint="") -> list[str]:
    """The names among ``names`` whose measure reads side inputs, once
    ``given`` (each side input by the caller's argument name, ``"item_col="``,
    to its value or None) is checked: refused when given and unread, or read
    and missing (``hint`` follows the missing names). Every door's one rule.
    """
    specs = [parse_metric(n) for n in names]
    reads = [sp.name for sp in specs if sp.definition.side_inputs]
    if reads:
        lacking = [arg for arg, value in given.items() if value is None]
        if lacking:
            raise ValueError(
                f"metric {reads[0]!r} reads the item of each row and its training "
                f"popularity: pass {' and '.join(lacking)}{hint}."
            )
        return reads
    unused = [arg for arg, value in given.items() if value is not None]
    if unused:
        shown = ", ".join(repr(sp.name) for sp in specs[:5])
        more = ", ..." if len(specs) > 5 else ""
        raise ValueError(
            f"{' and '.join(unused)} {'is' if len(unused) == 1 else 'are'} read "
            "by the beyond-accuracy measures only ('novelty@10', 'arp@10', ...), "
            f"and none of the metrics asked for ({shown}{more}) is one."
        )
    return reads


def check_call_side(specs, side) -> None:
    """The side inputs of an in-memory call checked against its measures
    (``side``: the inputs by parameter name; None where a door takes none)."""
    for sp in specs:
        m = sp.definition
        lacking = [n for n in m.side_inputs if side is None or side.get(n) is None]
        if not lacking:
            continue
        from .._beyond._names import lookup

        entry = lookup(m.name)
        function = entry.function if entry is not None else "its own function"
        where = (
            "this entry point takes no item ids (skndcg.torch's tensors carry "
            "none), so it cannot compute it; skndcg.dask, skndcg.spark and "
            "skndcg.streaming take item_col= and popularity=, skndcg score "
            "--popularity FILE"
            if side is None
            else f"this call lacks {' and '.join(lacking)}"
        )
        raise ValueError(
            f"metric {sp.name!r} needs {' and '.join(m.side_inputs)}, which "
            "(y_true, y_score, qid) do not carry: pass "
            f"{', '.join(n + '=' for n in m.side_inputs)} to "
            "grouped_ranking_scores or ranking_report (make_ranking_scorer: "
            "item_col= and popularity=), or compute it with "
            f"skndcg.metrics.{function}; {where}."
        )
    if side is not None:
        check_side_inputs(specs, {f"{name}=": v for name, v in side.items()})


def evaluate_side(specs, side, relevant, grouping, perm, s_g, nret, rel_thr,
                  *, average, convention):  # fmt: skip
    """Values and ``aux`` ``(n_groups, len(specs))`` of measures with side
    inputs; ``relevant``: the binary relevance of the input rows."""
    values = np.empty((grouping.n_groups, len(specs)))
    aux = np.empty_like(values)
    for j, sp in enumerate(specs):
        v = np.asarray(sp.definition.row_values(sp, relevant, side), np.float64)
        v_g = grouping.take(v) if perm is None else grouping.take(v)[perm]
        out = evaluate_per_query(
            [sp], v_g, s_g, None, grouping, nret, grouping.count(v_g > 0), rel_thr,
            average=average, convention=convention,
        )  # fmt: skip
        values[:, j], aux[:, j] = out[0][:, 0], out[1][:, 0]
    return values, aux
