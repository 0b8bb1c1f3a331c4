"""``--popularity FILE``: the items' training counts, a line ``ITEM COUNT`` each
(blank lines and ``#`` lines skipped, ``.gz`` read transparently)."""

from __future__ import annotations

import gzip
import math

from ..utils._number_text import number_or_nan
from ._errors import UsageError


def read_popularity(path) -> dict:
    """``{item id: count}`` of a popularity file (see the module).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "pop.tsv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("# item count\\nd1\\t4\\nd2,2\\n\\nd3 1\\n")
    >>> read_popularity(path)
    {'d1': 4.0, 'd2': 2.0, 'd3': 1.0}
    """
    name = str(path)
    opener = gzip.open if name.endswith(".gz") else open
    counts, seen = {}, {}
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for number, text in enumerate(fh, start=1):
                fields = text.replace(",", " ").split()
                if not fields or fields[0].startswith("#"):
                    continue
                item, count = _line(name, number, text, fields)
                if item in seen:
                    raise UsageError(
                        f"{name}, line {number}: item {item!r} again (first on "
                        f"line {seen[item]}); give each item one count"
                    )
                seen[item] = number
                counts[item] = count
    except OSError as exc:
        raise UsageError(f"--popularity {name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name}: not UTF-8 text ({exc.reason})") from None
    if not counts:
        raise UsageError(
            f"{name} holds no item: --popularity reads lines 'ITEM COUNT' (the "
            "training interactions of each item)"
        )
    return counts


def _line(name, number, text, fields):
    """The item and count of one line, or the error naming it."""
    where = f"{name}, line {number}: {text.strip()[:80]!r}"
    if len(fields) != 2:
        raise UsageError(
            f"{where} has {len(fields)} fields; a line holds an item id and its "
            "training count, separated by blanks, a tab or a comma"
        )
    count = number_or_nan(fields[1])
    if not math.isfinite(count) or count < 0:
        raise UsageError(f"{where}: the count {fields[1]!r} is not a number >= 0")
    return fields[0], count
