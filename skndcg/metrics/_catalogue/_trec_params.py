"""How trec_eval's ``-m`` parameters read: ``P.5,10``, ``ndcg.1=0.5``,
``utility.2,-1,0,0``, ``rbp.p=0.95``, ``relstring.20``; each reader gives a
skndcg metric name or an error naming the argument and what was expected.
"""

from __future__ import annotations

import re

from ...utils._number_text import number_text
from . import _registry as R
from ._trec_table import DOUBLE, PAIRS, TREC_FAMILIES, VECTOR

#: Families that take trec_eval's level=gain parameters (``ndcg.1=0.5``).
GAINED = ("ndcg", "dcg", "ideal_dcg")


def cut_name(family: str, value) -> str:
    if TREC_FAMILIES[family][1] in DOUBLE:
        return f"{family}_{value:3.2f}"
    return f"{family}_{value}"


def trec_metric(family: str, value=None) -> str:
    measure, how, _ = TREC_FAMILIES[family]
    if how == "cut":
        return f"{measure}@{value}"
    if how in DOUBLE:
        return f"{measure}({how}={value:g})"
    return measure


def parse_gains(text: str, arg: str) -> tuple:
    """trec_eval's ndcg gains, ``1=0.5,3=9``: ((level, gain), ...) sorted; levels
    >= 1 and gains >= 0 (trec_eval also takes negative ones)."""
    out = {}
    for part in text.split(","):
        level, eq, gain = part.partition("=")
        try:
            lv, g = int(number_text(level)), float(number_text(gain))
        except ValueError:
            lv, g = None, None
        if not eq or lv is None:
            raise ValueError(
                f"trec_eval measure {arg!r}: the parameters are level=gain "
                f"pairs separated by ',' (as in ndcg.1=0.5,2=3), got {part!r}."
            )
        if lv < 1 or not g >= 0 or g == float("inf"):
            raise ValueError(
                f"trec_eval measure {arg!r}: {part!r}: skndcg takes gains >= 0 "
                "for levels >= 1 (level 0 and unjudged documents gain 0)."
            )
        if lv in out:
            raise ValueError(f"trec_eval measure {arg!r} gives level {lv} twice.")
        out[lv] = g
    return tuple(sorted(out.items()))


def gain_function(gains: tuple):
    """The ``gain=`` function of trec_eval's custom ndcg gains.

    Parameters
    ----------
    gains : sequence of (level, gain) pairs
        As a :class:`TrecMeasure` carries them (``ndcg.1=0.5,2=3``).

    Returns
    -------
    callable
        Labels to gains: each listed level its gain, every other level its
        own value; labels below 0 count as 0.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import expand, gain_function
    >>> measure = expand("ndcg.1=0.5,2=3")[0][0]
    >>> measure.gains
    ((1, 0.5), (2, 3.0))
    >>> gain_function(measure.gains)([0, 1, 2, 4]).tolist()
    [0.0, 0.5, 3.0, 4.0]
    """
    import numpy as np

    def gain(y):
        out = np.maximum(np.asarray(y, dtype=np.float64), 0.0)
        mapped = out.copy()
        for level, g in gains:
            mapped[out == level] = g
        return mapped

    return gain


def plain_number(v) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def vector_metric(family: str, text: str, arg: str) -> str:
    """The skndcg name of ``utility.2,-1,0,0`` or ``set_F.0.5``."""
    names = VECTOR[family]
    try:
        values = [float(number_text(p)) for p in text.split(",")]
    except ValueError:
        values = []
    if len(values) != len(names):
        raise ValueError(
            f"trec_eval measure {arg!r}: {family} takes {len(names)} number"
            f"{'s' if len(names) > 1 else ''} ({', '.join(names)}) separated by "
            f"',', got {text!r}."
        )
    measure = TREC_FAMILIES[family][0]
    given = ", ".join(f"{n}={v:g}" for n, v in zip(names, values, strict=True))
    return f"{measure}({given})"


def pairs_metric(family: str, text: str, arg: str) -> str:
    """The skndcg name of ``rbp.p=0.95``: trec_eval's name=value pairs."""
    measure = TREC_FAMILIES[family][0]
    given = {}
    for part in text.split(","):
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or name not in PAIRS[family]:
            raise ValueError(
                f"trec_eval measure {arg!r}: {family} takes "
                f"{', '.join(n + '=VALUE' for n in PAIRS[family])} here (as in "
                f"{family}.p=0.95), got {part!r}; trec_eval's level=gain pairs "
                f"for {family} are not read by skndcg."
            )
        if name in given:
            raise ValueError(f"trec_eval measure {arg!r} gives {name} twice.")
        try:
            v = float(number_text(value))
        except ValueError:
            v = value
        check = R.lookup(measure).param(name).check
        try:
            given[name] = check(measure, v)
        except ValueError as exc:
            raise ValueError(f"trec_eval measure {arg!r}: {exc}") from None
    inner = ", ".join(f"{n}={v!r}" for n, v in given.items())
    return f"{measure}({inner})"


def text_length(family: str, text: str, arg: str) -> int:
    """relstring's number of documents: ``relstring.20``."""
    if not number_text(text).isdigit():
        raise ValueError(
            f"trec_eval measure {arg!r}: {family} takes the number of documents "
            f"to show, an integer >= 0 (as in {family}.20), got {text!r}."
        )
    return int(text)


# How C's atol and atof read a number: the longest leading part that is one
# (trec_eval reads its -m parameters so: 23.4 is the cut-off 23, .25 is 0.25).
# Only ASCII digits and spaces are C's (re.ASCII): atol("\uff15") is 0.
_C_LONG = re.compile(r"\s*([+-]?\d+)", re.ASCII)
_C_DOUBLE = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)", re.ASCII)


def c_number(text: str, integer: bool):
    """``text`` read as trec_eval reads a parameter (C's ``atol`` for an
    integer, ``atof`` otherwise): its leading number, or None if it does not
    start with one (where trec_eval would read 0).

    Examples
    --------
    >>> from skndcg.metrics._catalogue._trec_params import c_number
    >>> c_number("23.4", integer=True), c_number(".25", integer=False)
    (23, 0.25)
    """
    match = (_C_LONG if integer else _C_DOUBLE).match(text)
    if match is None:
        return None
    return int(match.group(1)) if integer else float(match.group(1))


def parse_params(family: str, text: str, arg: str) -> tuple:
    how = TREC_FAMILIES[family][1]
    if how == "none":
        raise ValueError(
            f"trec_eval measure {arg!r}: {family} takes no parameters here."
        )
    values = []
    for part in text.split(","):
        v = c_number(part, integer=how == "cut")
        if v is None:
            kind = "integer cut-offs" if how == "cut" else "numbers"
            raise ValueError(
                f"trec_eval measure {arg!r}: {family} takes {kind} separated by "
                f"',' (as in {family}.{'5,10' if how == 'cut' else '0.1,0.5'}), "
                f"got {part!r}."
            )
        low, high = DOUBLE.get(how, (1, None))
        if v < low or (high is not None and v > high):
            expected = ">= 1" if how == "cut" else f"in [{low:g}, {high:g}]"
            raise ValueError(
                f"trec_eval measure {arg!r}: parameter {part!r} must be {expected}."
            )
        if v in values:
            raise ValueError(
                f"trec_eval measure {arg!r} gives the parameter {part!r} twice"
                + (f" (read as {v})." if how == "cut" else ".")
            )
        values.append(v)
    return tuple(sorted(values))


def parse_levels(family: str, text: str, arg: str) -> tuple:
    """The recall levels of ``11pt_avg..25,.5,.75`` (read with ``atof``), in the
    order given, duplicates kept; trec_eval walks them from the last one down,
    so only levels in increasing order give their average (others are refused)."""
    levels, parts = [], text.split(",")
    read = lambda p: c_number(p, integer=False)  # noqa: E731
    for part in parts:
        v = read(part)
        if v is None or not 0.0 <= v <= 1.0:
            raise ValueError(
                f"trec_eval measure {arg!r}: {family} takes recall levels in "
                f"[0, 1] separated by ',' (as in {family}.0.2,0.5,0.8), got "
                f"{part!r}."
            )
        levels.append(v)
    if levels != sorted(levels):
        raise ValueError(
            f"trec_eval measure {arg!r}: give {family}'s recall levels in "
            f"increasing order (as in {family}.{','.join(sorted(parts, key=read))}"
            "): trec_eval's average over levels out of order is not their "
            "average."
        )
    return tuple(levels)
