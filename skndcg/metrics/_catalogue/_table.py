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
    rows = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 14 10 18 6 14 10 8 30",
        "",
        "   * - Name",
        "     - Aliases",
        "     - Parameters",
        "     - ``@k``",
        "     - Reads",
        "     - Unjudged rows",
        "     - Better",
        "     - Description",
    ]
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
        rows += [
            f"   * - ``{m.name}``",
            f"     - {', '.join(f'``{a}``' for a in m.aliases) or 'none'}",
            f"     - {params}",
            f"     - {'yes' if m.cutoff else 'no'}",
            f"     - {reads}",
            f"     - {_UNJUDGED[m.unjudged]}",
            f"     - {'higher' if m.higher_is_better else 'lower'}",
            f"     - {m.description}",
        ]
    return "\n".join(rows) + "\n"
