"""The measure registry: every measure is declared once, as a :class:`Measure`,
here or by the user; the name grammar, the scorers, the reports, the command
line, the partial-result drivers and the docs' table of measures all read it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

from ._carry import pack_function, unpack_function

# Extra inputs a per-query kernel may ask for, in the order they are passed.
EXTRAS = ("ideal", "n_relevant", "n_nonrelevant", "label_max", "rel_threshold")
# Per-row inputs beyond ``(y_true, y_score, qid)`` a measure may read.
SIDE_INPUTS = ("item_id", "popularity")


@dataclass(frozen=True)
class Param:
    """One parameter of a measure: ``rbp(p=0.8)``.

    ``low``/``high`` bound the value (``open_low``/``open_high`` exclude the
    bound); ``integer`` asks for a whole number; ``default`` None means the
    kernel picks it from the data (documented in ``description``).
    """

    name: str
    default: float | None
    description: str
    low: float = -math.inf
    high: float = math.inf
    open_low: bool = False
    open_high: bool = False
    integer: bool = False

    def interval(self) -> str:
        lo = "(" if self.open_low else "["
        hi = ")" if self.open_high else "]"
        return f"{lo}{_fmt(self.low)}, {_fmt(self.high)}{hi}"

    def check(self, measure: str, value) -> float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(
                f"{measure}: parameter {self.name}={value!r} must be a number."
            )
        v = float(value)
        bad = (
            not math.isfinite(v)
            or v < self.low
            or v > self.high
            or (self.open_low and v == self.low)
            or (self.open_high and v == self.high)
            or (self.integer and not v.is_integer())
        )
        if bad:
            kind = "an integer" if self.integer else "a number"
            raise ValueError(
                f"{measure}: parameter {self.name}={_fmt(value)} is out of range; "
                f"expected {kind} in {self.interval()}."
            )
        return v


@dataclass(frozen=True)
class Aggregate:
    """How a measure's per-query values become its summary, when that is not
    their mean: the mean of ``term(values)``, passed through ``back``.

    trec_eval's gm_map is ``Aggregate(lambda v: log(max(v, 1e-5)), exp)``: the
    geometric mean with a floor. ``term`` must keep NaN (a skipped query) NaN.
    """

    term: Callable
    back: Callable
    description: str = ""


@dataclass(frozen=True)
class Measure:
    """A measure family, as the registry knows it.

    Attributes
    ----------
    name : str
        Canonical name (lower case), used in reports.
    description : str
        One line, shown in the docs' table of measures.
    aliases : tuple of str
        Other accepted names.
    params : tuple of Param
        Parameters given as ``name(p=0.8)``.
    cutoff : bool
        Whether ``@k`` is accepted.
    labels : {"graded", "binary"}
        Whether the measure reads label values or only relevant / not relevant.
    needs : tuple of str
        Extra inputs of ``per_query`` (see ``EXTRAS``), in order.
    unjudged : {"not_relevant", "use", "refuse", "pool"}
        What the measure does with unjudged rows: label 0, NaN, an error, or
        NaN with -1 for a negative judgment under trec_eval's label rule.
    empty_when : {"no_relevant", "ideal_zero", "never"}
        When a query counts as empty for ``empty=``.
    block_kind : int or None
        Kind of a built-in family in the fused kernel (``_blocks.py``).
    per_query : callable or None
        ``per_query(ranked_labels, k, *extras) -> float`` for every other measure.
    higher_is_better : bool
    aggregate : Aggregate or None
        The summary over queries when it is not the plain (weighted) mean.
    scores_empty_lists : bool
        Whether ``per_query`` is called for a query with nothing retrieved
        (on an empty list); otherwise such a query scores 0.
    builtin : bool
        Shipped with the library (user measures can be unregistered).
    depth : {"all", "k"}
        Which ranks ``per_query`` reads: any (``"all"``), or only the first
        ``k`` of a name with a cut-off (``"k"``; the list's length may be read
        too). Under ``ties="average"`` tied rows below the depth are not
        averaged over.
    form : {"any", "set", "sum"}
        How the value depends on the labels within the depth, for
        ``ties="average"``: in any way (every order of the tied rows is
        scored); only through their multiset (``"set"``: only a tie across the
        depth is scored, one call per count of each label above it); or as a
        sum of one term per rank, each depending only on the rank and its label,
        plus a part no label changes (``"sum"``: one call per label of each
        tie). A wrong declaration gives wrong values under ``ties="average"``;
        the defaults are always right.
    tensor : callable, str or None
        The kernel :mod:`skndcg.torch` runs on tensors, or where to import it
        from (``"package.module:function"``, imported on first use, so that
        importing a measure imports no torch): ``tensor(ranked, k, options)
        -> (values, empty or None)``, one value per query from the rows of
        ``skndcg.torch._ranked.Ranked``. None: the measure is computed by the
        numpy engine on a CPU copy of the rows.
    side_inputs : tuple of str
        Inputs beyond ``(y_true, y_score, qid)`` the measure reads (see
        ``SIDE_INPUTS``): the beyond-accuracy measures read item ids and
        their training popularity. Such a measure is not listed by
        :func:`measures`.
    row_values : callable or None
        With ``side_inputs``: ``row_values(spec, relevant, side) -> values``,
        one float per input row (``relevant``: the rows' binary relevance,
        ``side``: the inputs by name). ``per_query`` reads these values, in
        ranked order, in place of the labels; their count above 0 is the
        query's ``n_relevant``.
    """

    name: str
    description: str
    aliases: tuple = ()
    params: tuple = ()
    cutoff: bool = True
    labels: str = "graded"
    needs: tuple = ()
    unjudged: str = "not_relevant"
    empty_when: str = "no_relevant"
    block_kind: int | None = None
    per_query: Callable | None = None
    higher_is_better: bool = True
    builtin: bool = True
    aggregate: Aggregate | None = None
    scores_empty_lists: bool = False
    depth: str = "all"
    form: str = "any"
    tensor: Callable | str | None = None
    side_inputs: tuple = ()
    row_values: Callable | None = None

    @property
    def binary(self) -> bool:
        """Whether the measure reads relevance (label above the threshold)
        rather than the graded labels."""
        return self.labels == "binary"

    @property
    def reads_unjudged(self) -> bool:
        """Whether the measure tells unjudged rows apart (``"use"``, ``"pool"``):
        its inputs must keep them (NaN labels, ``nan_label="unjudged"``)."""
        return self.unjudged in ("use", "pool")

    @property
    def compiled(self) -> bool:
        """Whether ``per_query`` is a numba-compiled function."""
        return self.per_query is not None and hasattr(self.per_query, "py_func")

    def __reduce__(self):
        # A built-in measure is found by name; a user's measure carries its
        # definition, its function by reference or by value (``_carry.py``).
        if self.builtin:
            return (_builtin, (self.name,))
        fields = {f: getattr(self, f) for f in self.__dataclass_fields__}
        packed = pack_function(fields.pop("per_query"), self.name)
        return (_rebuild, (fields, *packed))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        valid = [p.name for p in self.params]
        raise ValueError(
            f"{self.name} has no parameter {name!r}; "
            + (f"valid parameters are {valid}." if valid else "it takes none.")
        )


_MEASURES: dict[str, Measure] = {}
_NAMES: dict[str, str] = {}  # every accepted name (lower case) -> canonical
_BY_KIND: dict[int, Measure] = {}


def register(measure: Measure) -> Measure:
    """Add a measure; refuse a name or alias that is taken."""
    names = (measure.name, *measure.aliases)
    for n in names:
        if n != n.lower() or not _valid_name(n):
            raise ValueError(
                f"measure name {n!r} is not valid: use lower-case letters, digits "
                "and underscores, starting with a letter."
            )
        if n in _NAMES:
            raise ValueError(
                f"measure name {n!r} is taken by the measure {_NAMES[n]!r}; "
                "choose another name or unregister that measure first."
            )
    if len(set(names)) != len(names):
        raise ValueError(f"measure {measure.name!r} lists a name twice: {names}.")
    for field, allowed in (
        ("unjudged", ("not_relevant", "use", "refuse", "pool")),
        ("empty_when", ("no_relevant", "ideal_zero", "never")),
        ("labels", ("graded", "binary")),
        ("depth", ("all", "k")),
        ("form", ("any", "set", "sum")),
    ):
        if getattr(measure, field) not in allowed:
            raise ValueError(
                f"{field}={getattr(measure, field)!r} is not valid for measure "
                f"{measure.name!r}; expected one of {list(allowed)}."
            )
    unknown = [e for e in measure.needs if e not in EXTRAS]
    if unknown:
        raise ValueError(
            f"measure {measure.name!r} needs {unknown[0]!r}, which is not an input "
            f"a measure can ask for; expected some of {list(EXTRAS)}."
        )
    if not set(measure.side_inputs) <= set(SIDE_INPUTS) or (
        bool(measure.side_inputs) != (measure.row_values is not None)
    ):
        raise ValueError(
            f"measure {measure.name!r}: side_inputs must be some of "
            f"{list(SIDE_INPUTS)}, given with row_values, got "
            f"{measure.side_inputs!r}."
        )
    if (measure.block_kind is None) == (measure.per_query is None):
        raise ValueError(
            f"measure {measure.name!r} needs exactly one kernel: a block kind or "
            "a per_query function."
        )
    _MEASURES[measure.name] = measure
    for n in names:
        _NAMES[n] = measure.name
    if measure.block_kind is not None:
        _BY_KIND[measure.block_kind] = measure
    return measure


def declare(*args, **fields) -> Measure:
    """Register ``Measure(*args, **fields)`` and return it."""
    return register(Measure(*args, **fields))


def unregister(name: str) -> None:
    """Remove a user-defined measure (by any of its names)."""
    key = name.lower() if isinstance(name, str) else name
    if key not in _NAMES:
        raise ValueError(f"no measure is registered under the name {name!r}.")
    measure = _MEASURES[_NAMES[key]]
    if measure.builtin:
        raise ValueError(
            f"{measure.name!r} is a built-in measure; only measures added with "
            "define_measure can be unregistered."
        )
    del _MEASURES[measure.name]
    for n in (measure.name, *measure.aliases):
        del _NAMES[n]


def lookup(name: str) -> Measure | None:
    """The measure a (lower-case) name or alias stands for, or None."""
    canonical = _NAMES.get(name)
    return None if canonical is None else _MEASURES[canonical]


def by_kind(kind: int) -> Measure:
    return _BY_KIND[kind]


def measures() -> list[Measure]:
    """Every registered measure read from ``(y_true, y_score, qid)`` alone,
    built-in ones first, each once."""
    found = [m for m in _MEASURES.values() if not m.side_inputs]
    return sorted(found, key=lambda m: (not m.builtin, m.name))


def _valid_name(n: str) -> bool:
    return bool(n) and n[0].isalpha() and n.replace("_", "a").isalnum() and n.isascii()


def _fmt(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return repr(v) if not isinstance(v, float) else f"{v:g}"


def user_measures() -> tuple:
    """The measures registered with ``define_measure``, in name order."""
    return tuple(m for m in measures() if not m.builtin)


def _builtin(name: str) -> Measure:
    return _MEASURES[name]


# Measures rebuilt from a pickle, by name: a worker that receives the same
# definition again (every task does) keeps the one it has, compiled once.
_CARRIED: dict[str, tuple] = {}


def _rebuild(fields: dict, kind: str, payload) -> Measure:
    seen = _CARRIED.get(fields["name"])
    if (
        seen is not None
        and seen[:3] == (fields, kind, payload)
        and lookup(fields["name"]) is seen[3]
    ):
        return seen[3]
    measure = Measure(**fields, per_query=unpack_function(kind, payload))
    _CARRIED[measure.name] = (fields, kind, payload, measure)
    return measure


def ensure_registered(user: tuple) -> None:
    """Register the measures of ``user`` as they were defined (a worker
    receiving them from the process that defined them); a stale definition
    under the same name, left by an earlier task, is replaced."""
    for m in user:
        known = lookup(m.name)
        if known is not None and known != m:
            if known.builtin:
                raise ValueError(
                    f"the measure {m.name!r} defined with define_measure is a "
                    "built-in measure in this process; use the same skndcg "
                    "version everywhere, or choose another name."
                )
            unregister(known.name)
            known = None
        if known is None:
            register(m)
