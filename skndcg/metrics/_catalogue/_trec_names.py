"""trec_eval's names for the registry's measures, both ways (the public face is
``trec_dialect.py``), and ir_measures' names (``nDCG@10``, ``IPrec@0.1``,
``P(rel=2)@5``), most of which the grammar reads already since it ignores case.
The parameters of a family (``P.5,10``, ``rbp.p=0.95``) are read by
``_trec_params.py``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ...utils._number_text import number_text
from . import _registry as R
from ._trec_params import (  # noqa: F401  (gains re-exported for the command line)
    GAINED,
    cut_name,
    gain_function,
    pairs_metric,
    parse_gains,
    parse_levels,
    parse_params,
    plain_number,
    text_length,
    trec_metric,
    vector_metric,
)
from ._trec_table import (  # noqa: F401  (re-exported for the command line)
    COUNTS,
    DOUBLE,
    IR_MEASURES,
    LEVELS,
    NICKNAMES,
    PAIRS,
    SUMMED,
    TABLE_ORDER,
    TEXT,
    TREC_FAMILIES,
    VECTOR,
)


@dataclass(frozen=True)
class TrecMeasure:
    """One line of trec_eval's output, as :func:`skndcg.metrics.trec_dialect.expand`
    and :func:`~skndcg.metrics.trec_dialect.resolve` make it.

    Parameters
    ----------
    trec_name : str
        The line's name in trec_eval's output (``"P_10"``).
    metric : str or None
        skndcg's name of the measure (``"p@10"``), None for a count or text.
    order : tuple
        Where trec_eval prints the line: a sort key.
    gains : tuple
        ndcg's custom gains, ``((level, gain), ...)``, or ``()``.
    length : int or None
        relstring's number of documents, or None.
    levels : tuple
        11pt_avg's recall levels, averaged per query, or ``()``.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import expand
    >>> measure = expand("P_10")[0][0]
    >>> measure.trec_name, measure.metric
    ('P_10', 'p@10')
    """

    trec_name: str
    metric: str | None
    order: tuple
    gains: tuple = ()
    length: int | None = None
    levels: tuple = ()


_KNOWN = {*COUNTS, *TREC_FAMILIES, *TEXT}


def expand(arg: str) -> tuple[list[TrecMeasure], list[str]]:
    """The measures one trec_eval ``-m`` argument asks for.

    Parameters
    ----------
    arg : str
        A family with optional parameters (``"P"``, ``"P.5,10"``,
        ``"ndcg.1=0.5,2=3"``), one measure (``"P_10"``, ``"recip_rank"``) or
        a nickname (``"official"``), spelled as trec_eval spells it.

    Returns
    -------
    measures : list of TrecMeasure
        One per line of trec_eval's output.
    missing : list of str
        The families of a nickname that skndcg does not compute.

    Raises
    ------
    ValueError
        For a name trec_eval does not know or bad parameters; the message
        suggests the nearest valid name.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import expand
    >>> [(m.trec_name, m.metric) for m in expand("P.5,10")[0]]
    [('P_5', 'p@5'), ('P_10', 'p@10')]
    >>> expand("recip_rank")[0][0].metric
    'mrr'
    """
    if arg in NICKNAMES:
        known = [f for f in NICKNAMES[arg] if f in _KNOWN]
        missing = [f for f in NICKNAMES[arg] if f not in _KNOWN]
        return [m for f in known for m in expand(f)[0]], missing
    family, dot, text = arg.partition(".")
    name = f"{family}_{text}" if dot else family
    order = (TABLE_ORDER.index(family), 0) if family in TABLE_ORDER else None
    if family in COUNTS and not dot:
        return [TrecMeasure(family, None, order)], []
    if family in TEXT:
        length = text_length(family, text, arg) if dot else TEXT[family]
        return [TrecMeasure(name, None, order, length=length)], []
    if family in TREC_FAMILIES:
        how = TREC_FAMILIES[family][1]
        if family in GAINED and dot:
            gains = parse_gains(text, arg)
            return [TrecMeasure(name, trec_metric(family), order, gains)], []
        if family in LEVELS and dot:
            levels = parse_levels(family, text, arg)
            return [TrecMeasure(name, trec_metric(family), order, levels=levels)], []
        if how in ("vector", "pairs"):
            given = vector_metric if how == "vector" else pairs_metric
            metric = given(family, text, arg) if dot else trec_metric(family)
            return [TrecMeasure(name, metric, order)], []
        values = parse_params(family, text, arg) if dot else TREC_FAMILIES[family][2]
        if how == "none":
            return [TrecMeasure(family, trec_metric(family), order)], []
        return [
            TrecMeasure(cut_name(family, v), trec_metric(family, v), (order[0], v))
            for v in values
        ], []
    single = _single(arg)
    if single is not None:
        return [single], []
    from .._beyond._names import lookup

    beyond = lookup(re.split(r"[@(]", arg, maxsplit=1)[0])
    if beyond is not None:  # (those named by metric are refused before)
        raise ValueError(beyond.refusal(arg, carried="a run and its judgments"))
    raise ValueError(
        f"unknown measure {arg!r}.{suggestion(arg)} trec_eval's names look like "
        "'ndcg_cut_10', 'P.5,10' or 'official', skndcg's like 'ndcg@10', "
        "ir_measures' like 'nDCG@10'."
    )


def resolve(args) -> tuple[list[TrecMeasure], list[str]]:
    """The measures several ``-m`` arguments ask for, as trec_eval reads them.

    Each family comes once, with the parameters of its first argument that
    gives some (``-m official -m P.10`` is ``P_10`` alone), else with its
    defaults; the measures are in the order trec_eval prints them.

    Parameters
    ----------
    args : list of str
        trec_eval's ``-m`` arguments (see :func:`expand`).

    Returns
    -------
    measures : list of TrecMeasure
    missing : list of str
        The families of a nickname that skndcg does not compute.

    Raises
    ------
    ValueError
        For a name trec_eval does not know or bad parameters.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import resolve
    >>> [m.trec_name for m in resolve(["P.5", "map", "P.10"])[0]]
    ['map', 'P_5']
    """
    params, order, singles, missing = {}, [], [], []
    for arg in args:
        family, dot, _ = arg.partition(".")
        if arg in NICKNAMES:
            order += [f for f in NICKNAMES[arg] if f in _KNOWN]
            missing += [f for f in expand(arg)[1] if f not in missing]
        elif family in _KNOWN:
            if dot:
                expand(arg)  # checks the parameters
                params.setdefault(family, arg)
            order.append(family)
        else:
            singles += expand(arg)[0]
    out = []
    for family in dict.fromkeys(order):
        out += expand(params.get(family, family))[0]
    out += singles
    out.sort(key=lambda m: m.order)
    return out, missing


_SINGLE = re.compile(r"^([A-Za-z_]+?)_([0-9]+(?:\.[0-9]+)?)$")


def _single(name: str) -> TrecMeasure | None:
    """One trec_eval measure name (``P_10``, ``iprec_at_recall_0.10``)."""
    match = _SINGLE.match(name)
    if match is None:
        return None
    family, value = match.groups()
    how = TREC_FAMILIES[family][1] if family in TREC_FAMILIES else "none"
    if how in ("none", "vector", "pairs"):  # (no single-value name)
        return None
    if how == "cut":
        if "." in value or int(value) < 1:
            return None
        v = int(value)
    else:
        v = float(value)
        low, high = DOUBLE[how]
        if not low <= v <= high:
            return None
    return TrecMeasure(
        cut_name(family, v), trec_metric(family, v), (TABLE_ORDER.index(family), v)
    )


def translate(name: str) -> str | None:
    """The skndcg name of a trec_eval or ir_measures name, or None.

    Examples
    --------
    >>> from skndcg.metrics._catalogue._trec_names import translate
    >>> translate("ndcg_cut_10"), translate("recip_rank"), translate("IPrec@0.1")
    ('ndcg@10', 'mrr', 'iprec(recall=0.1)')
    """
    text = name.strip()
    for family, (_, how, _) in TREC_FAMILIES.items():
        if text.lower() == family.lower() and how in ("none", "vector", "pairs"):
            return trec_metric(family)
    single = _single(text) or _single(_case_family(text))
    if single is not None:
        return single.metric
    family, dot, params = text.partition(".")
    family = _case_family(family)
    if dot and family in VECTOR:
        return vector_metric(family, params, name)
    if dot and family in PAIRS:
        return pairs_metric(family, params, name)
    if dot and family in GAINED:
        raise ValueError(
            f"metric {name!r}: {family}'s gains apply to a whole call: ask for "
            f"{trec_metric(family)!r} with gain=a function of the labels (skndcg "
            f"score: -m {family}.1=0.5,2=3)."
        )
    if dot and family in TREC_FAMILIES and TREC_FAMILIES[family][1] != "none":
        values = parse_params(family, params, name)
        if len(values) == 1:
            return trec_metric(family, values[0])
        names = ", ".join(cut_name(family, v) for v in values)
        raise ValueError(
            f"metric {name!r} names {len(values)} metrics ({names}); give them "
            "one by one."
        )
    low = text.lower()
    match = re.match(r"^iprec@\s*([0-9]*\.?[0-9]+)$", low)
    if match:
        return f"iprec(recall={float(match.group(1)):g})"
    base, at, k = low.partition("@")
    if base in IR_MEASURES:
        return IR_MEASURES[base] + (f"@{k}" if at else "")
    return None


def _case_family(text: str) -> str:
    """``text`` with its family spelled as trec_eval does (``p_10`` -> ``P_10``)."""
    for family in sorted(TREC_FAMILIES, key=len, reverse=True):
        if text.lower().startswith(family.lower()):
            return family + text[len(family) :]
    return text


def split_rel(name: str) -> tuple[str, float | None]:
    """An ir_measures name without its ``rel=`` parameter, and that level.

    Parameters
    ----------
    name : str
        A metric name, such as ir_measures' ``"P(rel=2)@5"``.

    Returns
    -------
    name : str
        ``name`` without ``rel=``.
    level : float or None
        The relevance level ``rel=`` gives, or None when it gives none.

    Raises
    ------
    ValueError
        When ``rel=`` is not a number.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import split_rel
    >>> split_rel("P(rel=2)@5")
    ('P@5', 2.0)
    >>> split_rel("ndcg@10")
    ('ndcg@10', None)
    """
    match = re.match(r"^(.*?)\((.*)\)(.*)$", name.strip())
    if match is None:
        return name, None
    head, inner, tail = match.groups()
    parts = [p.strip() for p in inner.split(",") if p.strip()]
    rel = [p for p in parts if p.replace(" ", "").lower().startswith("rel=")]
    if not rel:
        return name, None
    value = rel[0].partition("=")[2].strip()
    try:
        level = float(number_text(value))
    except ValueError:
        raise ValueError(
            f"metric {name!r}: rel={value!r} must be a number (the relevance level)."
        ) from None
    rest = [p for p in parts if p not in rel]
    return head + (f"({', '.join(rest)})" if rest else "") + tail, level


def to_trec(metric) -> tuple[str, tuple] | None:
    """trec_eval's name of a metric and its place in trec_eval's order.

    Parameters
    ----------
    metric : str or MetricSpec
        A metric name (``"ndcg@10"``), or one read by
        :func:`skndcg.metrics.registry.parse`.

    Returns
    -------
    (str, tuple) or None
        trec_eval's name and a sort key that puts it where trec_eval prints
        it (its family's place in :data:`TABLE_ORDER` first), or None when
        trec_eval has no such measure.

    Examples
    --------
    >>> from skndcg.metrics.trec_dialect import to_trec
    >>> to_trec("ndcg@10")
    ('ndcg_cut_10', (26, 10))
    >>> to_trec("map")[0], to_trec("err@5")
    ('map', None)
    """
    from ._names import parse_metric

    spec = parse_metric(metric)
    m, k = spec.measure, spec.k
    for family, (measure, how, _) in TREC_FAMILIES.items():
        if measure != m:
            continue
        base = TABLE_ORDER.index(family)
        if how == "vector" and k is None:
            values = [spec.param(p) for p in VECTOR[family]]
            defaults = [spec.definition.param(p).default for p in VECTOR[family]]
            text = ",".join(plain_number(v) for v in values)
            return (family if values == defaults else f"{family}_{text}"), (base, 0)
        if how == "none" and k is None and not spec.params:
            return family, (base, 0)
        if how == "pairs" and k is None:
            given = [
                (p, spec.param(p)) for p in PAIRS[family]
                if spec.param(p) != spec.definition.param(p).default
            ]  # fmt: skip
            text = ",".join(f"{p}={plain_number(v)}" for p, v in given)
            return (f"{family}_{text}" if given else family), (base, 0)
        if how == "cut" and k is not None:
            return cut_name(family, k), (base, k)
        if how in DOUBLE:
            v = spec.param(how)
            return cut_name(family, v), (base, v)
    return None


def closest(name: str) -> str | None:
    """The valid name nearest to ``name`` (a cut-off ``@k`` kept), or None."""
    family, dot, params = name.strip().partition(".")
    if dot and family not in TREC_FAMILIES:  # a family with parameters: P.5,10
        near = difflib.get_close_matches(family, list(TREC_FAMILIES), n=1, cutoff=0.6)
        return f"{near[0]}.{params}" if near else None
    base, at, k = name.strip().partition("@")
    names = [n for m in R.measures() for n in (m.name, *m.aliases)]
    names += list(TREC_FAMILIES) + list(COUNTS) + list(NICKNAMES) + list(TEXT)
    for family, (_, how, defaults) in TREC_FAMILIES.items():
        if how != "none":
            names += [cut_name(family, v) for v in defaults]
    by_lower = {n.lower(): n for n in names}
    hit = difflib.get_close_matches(base.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[hit[0]] + at + k if hit else None


def suggestion(name: str) -> str:
    """``" Did you mean 'ndcg_cut_10'?"`` for a name that is not valid, or ""."""
    near = closest(name)
    return f" Did you mean {near!r}?" if near not in (None, name.strip()) else ""
