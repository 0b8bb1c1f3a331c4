"""The docs' table of measures, written from the registry."""

from __future__ import annotations

from . import _names  # noqa: F401  (registers the built-in measures)
from ._registry import measures

_UNJUDGED = {
    "not_relevant": "not relevant",
    "use": "used",
    "refuse": "refused",
    "pool": "used, apart from pooled",
}


def measure_table_rst() -> str:
    """Every registered measure as an rst ``list-table``.

    Examples
    --------
    >>> from skndcg.metrics._catalogue._table import measure_table_rst
    >>> print(measure_table_rst().splitlines()[0])
    .. list-table::
    """
    header = "Name|Aliases|Parameters|``@k``|Reads|Unjudged rows|Better|Description"
    rows = [".. list-table::", "   :header-rows: 1"]
    rows += ["   :widths: 14 10 18 6 14 10 8 30", "", *_row(*header.split("|"))]
    for m in measures():
        params = (
            "; ".join(
                f"``{p.name}`` in {p.interval()}, default "
                + ("from the data" if p.default is None else f"{p.default:g}")
                for p in m.params
            )
            or "none"
        )
        reads = "relevant or not" if m.binary else "labels"
        if m.needs:
            reads += ", " + ", ".join(n.replace("_", " ") for n in m.needs)
        rows += _row(
            f"``{m.name}``",
            ", ".join(f"``{a}``" for a in m.aliases) or "none",
            params,
            "yes" if m.cutoff else "no",
            reads,
            _UNJUDGED[m.unjudged],
            "higher" if m.higher_is_better else "lower",
            m.description,
        )
    return "\n".join(rows) + "\n"


def _row(*cells) -> list:
    """One row of the table: its first cell after ``*``, the others under it."""
    return ["   * - " + cells[0], *("     - " + cell for cell in cells[1:])]
