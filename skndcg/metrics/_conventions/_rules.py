"""The rules a convention is made of: objects named as a user writes them,
whose methods take the array module ``xp`` (numpy or torch)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._core._validate import check_finite, undefined

# Exponential gain: 2**label - 1 stays an exact integer up to this label.
MAX_EXP_LABEL = 53


def plain(v):
    """A label as a plain number: 3, not np.float64(3.0)."""
    v = float(v)
    return int(v) if v.is_integer() else v


def _astype(a, dtype):
    """``a`` as ``dtype``: numpy arrays and torch tensors alike."""
    return a.astype(dtype) if hasattr(a, "astype") else a.to(dtype)


@dataclass(frozen=True, eq=False, repr=False)
class Rule:
    """A named rule: shown as its name, equal to it, pickled by it; each
    subclass is a frozen dataclass read from the ``Convention`` field ``kind``.
    """

    name: str

    KIND: ClassVar[str] = ""
    TABLE: ClassVar[dict] = {}
    KINDS: ClassVar[dict] = {}  # every kind of rule, by its kind
    EXPECTED: ClassVar[str] = ""  # what the error says is valid (default: TABLE)

    def __init_subclass__(cls, kind: str = "", **kwargs):
        super().__init_subclass__(**kwargs)
        cls.KIND = kind
        Rule.KINDS[kind] = cls
        dataclass(frozen=True, eq=False, repr=False)(cls)

    def __repr__(self) -> str:
        return repr(self.name)

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            return self.name == other
        return type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        return (type(self).of, (self.name,))

    @classmethod
    def of(cls, value):
        """The rule named ``value`` (a rule of this kind is returned as given)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str) and value in cls.TABLE:
            return cls.TABLE[value]
        expected = cls.EXPECTED or f"one of {list(cls.TABLE)}"
        raise ValueError(f"{cls.KIND}={value!r} is not valid; expected {expected}.")


def _table(*rules) -> dict:
    return {r.name: r for r in rules}


def _named(name: str) -> property:
    """Whether a rule is the one named ``name``."""
    return property(lambda self: self.name == name)


class Gain(Rule, kind="gain"):
    """The gain of a label: linear, exponential (``2**label - 1``) or a callable."""

    fn: object = None  # the callable of a custom gain
    EXPECTED = "'linear', 'exponential' or a callable mapping labels to gains"

    @classmethod
    def of(cls, value):
        return cls("custom", value) if callable(value) else super().of(value)

    def __repr__(self) -> str:
        return repr(self.name) if self.fn is None else repr(self.fn)

    def __eq__(self, other) -> bool:
        if self.fn is not None:
            return other is self.fn or (isinstance(other, Gain) and other.fn is self.fn)
        return super().__eq__(other)

    def __hash__(self) -> int:
        return hash(self.name if self.fn is None else self.fn)

    def __reduce__(self):
        return (Gain.of, (self.name if self.fn is None else self.fn,))

    exponential = _named("exponential")

    @property
    def custom(self) -> bool:
        return self.fn is not None

    def check_labels(self, y, arg: str = "y_true") -> None:
        """Refuse labels ``2**label - 1`` cannot use (exponential gain only)."""
        if not self.exponential:
            return
        if bool((y < 0).any()):
            raise ValueError(
                f"{arg} has negative labels (min {plain(y.min())!r}), which gain="
                "'exponential' (2**label - 1) cannot use; shift the labels or use "
                "gain='linear'."
            )
        if bool((y > MAX_EXP_LABEL).any()):
            raise ValueError(
                f"{arg} has labels up to {plain(y.max())!r}: with gain='exponential', "
                f"2**label - 1 overflows float64 or loses integer precision above "
                f"{MAX_EXP_LABEL}; use gain='linear' or rescale the labels."
            )

    def gains(self, y, xp, arg: str = "y_true"):
        """Per-row gains of the DCG family (``xp``: numpy or torch)."""
        if self.fn is None:
            return xp.exp2(y) - 1.0 if self.exponential else y
        out = self.fn(y)
        if xp is np:
            out = np.asarray(out, dtype=np.float64)
        else:
            if not isinstance(out, xp.Tensor):
                out = np.asarray(out)
            out = xp.as_tensor(out, device=y.device).to(y.dtype)
        if tuple(out.shape) != tuple(y.shape):
            raise ValueError(
                f"the gain callable must return one gain per label: expected shape "
                f"{tuple(y.shape)}, got {tuple(out.shape)}."
            )
        if xp is np:
            check_finite(out, f"gain({arg})")
        elif not bool(xp.isfinite(out).all()):
            raise ValueError(f"gain({arg}) contains NaN or infinite values.")
        return out


Gain.TABLE = _table(Gain("linear"), Gain("exponential"))


class LabelRule(Rule, kind="labels"):
    """Which labels a convention accepts and how it reads them."""

    refuse_negative: bool = False  # negative labels refused (unless gain says)
    integer: bool = False  # labels must be integers
    max_label: int | None = None  # and at most this
    exp_only: bool = False  # the two checks above only with gain='exponential'
    pools: bool = False  # negative: "in the pool, not judged", gain 0 (trec_eval)
    truncate: bool = False  # labels truncated to int, below 1 no gain (ranx)

    @property
    def rewrites(self) -> bool:
        """Whether the kernel reads other values than the labels given."""
        return self.pools or self.truncate

    def unjudged_rule(self) -> str:
        """How a TREC join marks judged-negative rows: ``"pool"`` (kept
        negative: in the pool, not judged) or ``"nan"`` (unjudged)."""
        return "pool" if self.pools else "nan"

    def pooled(self, y):
        """Rows "in the pool, not judged" (negative labels), or None."""
        if not self.pools:
            return None
        negative = y < 0
        return negative if bool(negative.any()) else None

    def prepare(self, y, xp, conv, *, nonnegative=False, integer_input=None,
                arg="y_true"):  # fmt: skip
        """Refuse labels ``conv`` cannot read; return what the kernel reads
        (``integer_input`` default: read off a numpy dtype)."""
        gain = conv.gain
        exp = gain.exponential
        if integer_input is None:
            integer_input = y.dtype.kind != "f"
        if self.refuse_negative and not (gain.custom or exp or nonnegative):
            negative = y < 0
            if bool(negative.any()):
                hint = (
                    "convention='sklearn' refuses them as sklearn.metrics.ndcg_score "
                    "does"
                    if conv.name == "sklearn"
                    else "a negative gain is only used when asked for: pass a "
                    "callable gain (for example gain=lambda y: y) to score them as "
                    "they are"
                )
                raise ValueError(
                    f"{arg} has negative labels (first {plain(y[negative][0])!r}, "
                    f"min {plain(y.min())!r}); {hint}."
                )
        strict = exp or not self.exp_only
        if self.integer and strict and not integer_input:
            frac = y != xp.round(y)
            if bool(frac.any()):
                raise ValueError(
                    f"{arg} must hold integer labels with convention="
                    f"{conv.name!r}, got {plain(y[frac][0])!r}."
                )
        hi = self.max_label if strict else None
        if hi is not None and (bool((y < 0).any()) or bool((y > hi).any())):
            raise ValueError(
                f"{arg} labels must be integers in [0, {hi}] with convention="
                f"{conv.name!r} and gain={gain!r}, got min {plain(y.min())!r}, max "
                f"{plain(y.max())!r}."
            )
        if self.pools:
            if nonnegative:
                return y
            return np.maximum(y, 0.0) if xp is np else xp.clamp(y, min=0.0)
        if self.truncate:
            t = xp.trunc(y)
            return xp.where(t >= 1, t, xp.zeros_like(t))
        return y


LabelRule.TABLE = _table(
    LabelRule("any"),
    LabelRule("nonnegative", refuse_negative=True),
    LabelRule("int_0_30", integer=True, max_label=30),
    LabelRule("xgboost", integer=True, max_label=31, exp_only=True),
    LabelRule("trec_eval", integer=True, pools=True),
    LabelRule("ranx", truncate=True),
)


class TieRule(Rule, kind="ties"):
    """How rows with equal scores are ordered."""

    reorders: bool = False  # realised by reordering the rows, then "stable"

    average = _named("average")  # the exact expectation over the orders of ties
    by_doc_id = _named("docid")
    reverse = _named("reverse")  # tied rows in reverse input order
    quicksort = _named("quicksort")  # the order numba's quicksort leaves (ranx)

    def sort_key(self, xp, *, n, doc_id=None, labels=None, ranx_order=None,
                 device=None):  # fmt: skip
        """A key whose stable ascending sort within each query puts the ``n``
        tied rows in this rule's order, or None when the rows stay. ``"docid"``
        reads ``doc_id`` (integer ids or their ranks: larger first),
        ``"pessimistic"`` the ``labels``; ``"quicksort"`` calls ``ranx_order()``
        (numba's quicksort permutation of each query)."""
        if not self.reorders:
            return None
        if self.reverse:
            if xp is np:
                return -np.arange(n, dtype=np.int64)
            return -xp.arange(n, device=device)
        if self.by_doc_id:
            return ~_astype(xp.asarray(doc_id), xp.int64)  # descending, no overflow
        if self.name == "pessimistic":
            return xp.asarray(labels)
        order = ranx_order()  # "quicksort": each row's position in that order
        return np.argsort(order, kind="stable") if xp is np else xp.argsort(order)


TieRule.TABLE = _table(
    TieRule("average"),
    TieRule("stable"),
    TieRule("reverse", reorders=True),
    TieRule("docid", reorders=True),
    TieRule("pessimistic", reorders=True),
    TieRule("quicksort", reorders=True),  # ranx: numba's quicksort order
)
#: The tie rules a user may ask for.
TIES_OPTIONS = ("average", "stable", "reverse", "docid", "pessimistic")


class ScorePrecision(Rule, kind="score_dtype"):
    """The precision scores are compared in."""

    def cast(self, s, xp):
        """Scores at this precision: float32 ones as float32, others as given."""
        return _astype(s, xp.float32) if self.name == "float32" else s


ScorePrecision.TABLE = _table(ScorePrecision("float64"), ScorePrecision("float32"))


class EmptyRule(Rule, kind="empty_rule"):
    """When a query is empty: its ideal DCG@k (or relevant count) is 0, or its
    labels sum to 0 (torchmetrics)."""

    by_label_sum = _named("label_sum")

    def mask(self, aux, label_sum):
        """Empty queries per metric (a column each): ``aux <= 0``, or a zero
        label sum."""
        if not self.by_label_sum:
            return aux <= 0
        return np.repeat((label_sum == 0)[:, None], aux.shape[1], axis=1)

    def reason(self, spec) -> str:
        """Why an empty query is skipped, as the report says it."""
        if self.by_label_sum:
            return "no relevant item: labels sum to 0"
        if spec.measure in ("ndcg", "dcg"):
            at = "" if spec.k is None else f"@{spec.k}"
            return f"no relevant item: ideal DCG{at} is 0"
        return "no relevant item"


EmptyRule.TABLE = _table(EmptyRule("ideal"), EmptyRule("label_sum"))


class EmptyScore(Rule, kind="empty"):
    """What an empty query scores: skipped (NaN), 0, 1, or an error."""

    fill: float = math.nan

    skips = _named("skip")

    def apply(self, values, empty, xp, error):
        """``values`` with the empty queries filled (NaN when skipped); under
        ``"error"``, raises ``error()`` (the message) if a query is empty."""
        if self.name == "error":
            if bool(empty.any()):
                raise ValueError(error())
            return values
        return xp.where(empty, xp.full_like(values, self.fill), values)


EmptyScore.TABLE = _table(
    EmptyScore("skip"), EmptyScore("zero", 0.0), EmptyScore("one", 1.0),
    EmptyScore("error"),
)  # fmt: skip
EMPTY_OPTIONS = tuple(EmptyScore.TABLE)


class AllSkipped(Rule, kind="all_skipped"):
    """The mean when no query is left: NaN with a warning, or 0."""

    def result(self, name: str, why: str, stacklevel: int) -> float:
        if self.name == "zero":
            return 0.0
        return undefined(
            f"{name}: every query was skipped ({why}); the score "
            "is undefined and nan is returned. Pass empty='zero' or empty='one' "
            "to score such queries.",
            stacklevel + 1,
        )


AllSkipped.TABLE = _table(AllSkipped("nan"), AllSkipped("zero"))


class Weighting(Rule, kind="weighting"):
    """How query weights combine: a weighted mean, or LightGBM's and XGBoost's
    rule, where an empty query adds its value without its weight (XGBoost then
    refuses a result above 1 and clamps rounding noise to 1)."""

    empty_unweighted: bool = False
    clamped: bool = False

    def weights(self, w: np.ndarray) -> np.ndarray:
        """Query weights as this rule reads them (float32 for LightGBM/XGBoost)."""
        if not self.empty_unweighted:
            return w
        return w.astype(np.float32).astype(np.float64)

    def sums(self, v, w, empty) -> tuple:
        """``(numerator, denominator, queries kept)`` of the mean of ``v`` (NaN:
        skipped); they add up over a partition of the queries. ``w``: query
        weights or None; ``empty``: read only when empty queries are unweighted."""
        if self.empty_unweighted and v.size:
            if w is None:
                return np.sum(v), float(v.shape[0]), v.shape[0]
            return np.sum(np.where(empty, v, v * w)), np.sum(w), v.shape[0]
        keep = ~np.isnan(v)
        if keep.all():
            keep = slice(None)
            kept = v.shape[0]
        else:
            kept = int(keep.sum())
        if w is None:
            return np.sum(v[keep]), float(kept), kept
        return np.sum(v[keep] * w[keep]), np.sum(w[keep]), kept

    def finish(self, num, den, kept, *, all_skipped, weighted, name, why,
               stacklevel=4) -> float:  # fmt: skip
        """The mean from the sums of :meth:`sums` (added over pieces)."""
        if self.empty_unweighted and kept:
            result = float(num / den)
            if weighted and self.clamped:
                if result > 1.0 + 1e-6:
                    raise ValueError(
                        f"convention='xgboost' gives {result!r} > 1 with these "
                        "query weights (XGBoost raises 'Invalid output score' "
                        "here): empty queries are counted without their weight."
                    )
                result = min(result, 1.0)
            return result
        if kept == 0:
            return all_skipped.result(name, why, stacklevel)
        if weighted and den <= 0:
            raise ValueError(
                "sample_weight sums to zero over the queries that are scored; "
                "at least one scored query needs a positive weight."
            )
        return float(num / den)


Weighting.TABLE = _table(
    Weighting("mean"),
    Weighting("empty_unweighted", empty_unweighted=True),
    Weighting("empty_unweighted_clamped", empty_unweighted=True, clamped=True),
)
