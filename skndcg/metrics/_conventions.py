"""Conventions: the choices that make two NDCG implementations disagree.

A :class:`Convention` fixes the gain, the tie rule, what an empty query scores, the
precision the scores are ranked in, which labels are accepted and how they are read,
and how per-query values are averaged. The presets reproduce the numbers of the
libraries they are named after on the same ``(y_true, y_score, qid, k)``; the
measurements behind each one are summarised in the user guide.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

EMPTY_OPTIONS = ("skip", "zero", "one", "error")
TIES_OPTIONS = ("average", "stable", "reverse", "docid", "pessimistic")
NAN_SCORE_OPTIONS = ("error", "unretrieved")
NAN_LABEL_OPTIONS = ("error", "unjudged")
QUERIES_OPTIONS = ("retrieved", "judged")
# Exponential gain: 2**label - 1 stays an exact integer up to this label.
MAX_EXP_LABEL = 53
GAIN_OPTIONS = ("linear", "exponential")


@dataclass(frozen=True)
class Convention:
    """One complete set of choices for the grouped ranking metrics.

    Attributes
    ----------
    name : str
        Preset name.
    gain, ties, empty : str
        Defaults for the options of the same name.
    k_none : int or None
        What ``k=None`` means: ``None`` for the whole list, or a fixed cut-off
        (XGBoost's ``ndcg`` is NDCG@32).
    score_dtype : {"float64", "float32"}
        Precision in which scores are compared (ties after a float32 cast count as
        ties for XGBoost, trec_eval and torchmetrics).
    labels : str
        Which labels are accepted and how they are read, see ``prepare_labels``.
    rel_threshold : float or None
        Binary relevance: ``label >= rel_threshold``, or ``label > 0`` when None.
    empty_rule : {"ideal", "label_sum"}
        A query is empty when its ideal DCG@k is <= 0 ("ideal"), or when its
        labels sum to zero (torchmetrics).
    weighting : {"mean", "empty_unweighted", "empty_unweighted_clamped"}
        How query weights combine. "mean" is a weighted mean; the others reproduce
        LightGBM and XGBoost, where each empty query adds its value without weight.
    free : dict
        Options a caller may still set with this preset, and their allowed values.
    all_skipped : {"nan", "zero"}
        Result when no query is left to average.
    ap_denominator, p_denominator : str
        Defaults of the denominators of AP@k and P@k.
    doc_ties : bool
        With ``doc_id`` given, order tied scores by document id, descending
        (trec_eval); without it, ``ties`` applies.
    trec_runs : bool
        The preset ``skndcg score`` uses for a TREC run when none is given.
    """

    name: str
    gain: str = "linear"
    ties: str = "average"
    empty: str = "skip"
    k_none: int | None = None
    score_dtype: str = "float64"
    labels: str = "any"
    rel_threshold: float | None = None
    empty_rule: str = "ideal"
    weighting: str = "mean"
    free: dict = field(default_factory=dict)
    all_skipped: str = "nan"
    ap_denominator: str = "relevant"
    p_denominator: str = "k"
    doc_ties: bool = False
    trec_runs: bool = False

    def tie_rule(self, ties, doc_id_given: bool) -> str:
        """The tie rule of a call: ``ties=`` as given (None keeps the preset's),
        or document-id order when this preset breaks ties by ``doc_id``."""
        if doc_id_given and self.doc_ties and ties is None:
            return "docid"
        return self.ties

    def cast_scores(self, s: np.ndarray) -> np.ndarray:
        """Scores at the precision this convention compares them in."""
        if self.score_dtype == "float32":
            return s.astype(np.float32).astype(np.float64)
        return s

    def relevance_threshold(self) -> float:
        """Relevant means ``label >= threshold`` (``label > 0`` without one)."""
        if self.rel_threshold is None:
            return float(np.nextafter(0.0, 1.0))
        return float(self.rel_threshold)

    def check_labels(self, y: np.ndarray, *, nonnegative: bool = False) -> np.ndarray:
        """Refuse labels this convention cannot read; return what the kernel reads."""
        return prepare_labels(y, self, self.gain, nonnegative=nonnegative)

    def presorted(self) -> Convention:
        """This convention on rows already in its tie order (no reordering)."""
        return replace(self, ties="stable", doc_ties=False)


_ANY = None  # marker: every valid value is allowed

PRESETS: dict[str, Convention] = {
    "skndcg": Convention(
        "skndcg",
        labels="nonnegative",
        free={
            "gain": _ANY,
            "ties": _ANY,
            "empty": _ANY,
            "discount": _ANY,
            "rel_threshold": _ANY,
            "ap_denominator": _ANY,
            "p_denominator": _ANY,
        },
    ),
    "sklearn": Convention("sklearn", empty="zero", labels="nonnegative"),
    "lightgbm": Convention(
        "lightgbm",
        gain="exponential",
        ties="stable",
        empty="one",
        labels="int_0_30",
        weighting="empty_unweighted",
        ap_denominator="min_k_relevant",
        free={"gain": GAIN_OPTIONS},
    ),
    "xgboost": Convention(
        "xgboost",
        gain="exponential",
        ties="stable",
        empty="one",
        k_none=32,
        score_dtype="float32",
        labels="xgboost",
        weighting="empty_unweighted_clamped",
        free={"gain": GAIN_OPTIONS, "empty": ("one", "zero")},
    ),
    # trec_eval 10.0 reads run scores as double.
    "trec_eval": Convention(
        "trec_eval",
        ties="reverse",
        empty="zero",
        labels="trec_eval",
        rel_threshold=1.0,
        doc_ties=True,
        trec_runs=True,
        # trec_eval -l: the relevance level of every binary measure; ndcg's
        # gains as trec_eval's ndcg parameters give them.
        free={"rel_threshold": _ANY, "gain": _ANY},
    ),
    # pytrec_eval-terrier 0.5.x (and trec_eval before 10.0) compare them as float32.
    "pytrec_eval": Convention(
        "pytrec_eval",
        ties="reverse",
        empty="zero",
        score_dtype="float32",
        labels="trec_eval",
        rel_threshold=1.0,
        doc_ties=True,
        free={"rel_threshold": _ANY, "gain": _ANY},
    ),
    "ranx": Convention(
        "ranx",
        ties="quicksort",
        empty="zero",
        labels="ranx",
        rel_threshold=1.0,
        free={"gain": GAIN_OPTIONS},
    ),
    # CatBoost's NDCG:top=k (type=Base, denominator=LogPosition): tied scores
    # rank their least relevant row first; a query without relevant rows is 1.
    "catboost": Convention(
        "catboost",
        ties="pessimistic",
        empty="one",
        free={"gain": GAIN_OPTIONS},
    ),
    "torchmetrics": Convention(
        "torchmetrics",
        empty="zero",
        score_dtype="float32",
        empty_rule="label_sum",
        all_skipped="zero",
        ap_denominator="hits",
        free={"empty": EMPTY_OPTIONS, "p_denominator": ("k", "min_k_items")},
    ),
}


#: The presets that break score ties by document id, read off the presets.
DOCNO_TIES = tuple(name for name, c in PRESETS.items() if c.doc_ties)
#: The preset for TREC runs when none is given.
TREC_RUN_DEFAULT = next(name for name, c in PRESETS.items() if c.trec_runs)


def resolve_convention(convention=None, **options) -> Convention:
    """The one resolver: ``convention=`` (None, a preset name or a Convention)
    with the explicit options (not None) laid over it, conflicts refused."""
    return apply_options(get_convention(convention), **options)


def get_convention(convention) -> Convention:
    """Resolve ``convention=`` (None, a preset name or a Convention)."""
    if convention is None:
        return PRESETS["skndcg"]
    if isinstance(convention, Convention):
        return convention
    if isinstance(convention, str):
        key = convention.lower().replace("-", "_")
        if key in PRESETS:
            return PRESETS[key]
    raise ValueError(
        f"convention={convention!r} is not a known preset; expected None or one of "
        f"{sorted(PRESETS)}."
    )


def apply_options(conv: Convention, **options) -> Convention:
    """Overlay explicit options (not None) on a convention, refusing conflicts."""
    changes = {}
    for key, value in options.items():
        if value is None:
            continue
        default = getattr(conv, key, None)
        if isinstance(value, (str, int, float)) and value == default:
            continue
        if key not in conv.free:
            raise ValueError(
                f"{key}={value!r} conflicts with convention={conv.name!r}, which "
                f"fixes {key}={default!r}; drop one of the two."
            )
        allowed = conv.free[key]
        if allowed is not _ANY and value not in allowed:
            raise ValueError(
                f"{key}={value!r} is not available with convention={conv.name!r}; "
                f"expected one of {list(allowed)}."
            )
        if key == "discount":
            continue  # not a field of the convention: passed on as given
        changes[key] = value
    return replace(conv, **changes) if changes else conv


def _plain(v):
    """A label as a plain number: 3, not np.float64(3.0)."""
    v = float(v)
    return int(v) if v.is_integer() else v


def negative_labels_message(arg, first, low, conv: Convention) -> str:
    """The error for negative labels under a convention that refuses them."""
    hint = (
        "convention='sklearn' refuses them as sklearn.metrics.ndcg_score does"
        if conv.name == "sklearn"
        else "a negative gain is only used when asked for: pass a callable "
        "gain (for example gain=lambda y: y) to score them as they are"
    )
    return (
        f"{arg} has negative labels (first {_plain(first)!r}, min "
        f"{_plain(low)!r}); {hint}."
    )


def prepare_labels(
    y: np.ndarray, conv: Convention, gain, *, nonnegative: bool = False
) -> np.ndarray:
    """Check labels (float64) against the convention; return what the kernel reads."""
    rule = conv.labels
    exp = gain == "exponential"
    known = nonnegative  # the caller already knows the labels are >= 0
    if rule == "nonnegative" and not (callable(gain) or exp or known) and (y < 0).any():
        first = y[np.flatnonzero(y < 0)[0]]
        raise ValueError(negative_labels_message("y_true", first, y.min(), conv))
    needs_int = rule in ("int_0_30", "trec_eval") or (rule == "xgboost" and exp)
    if needs_int and y.dtype.kind == "f" and (y != np.round(y)).any():
        bad = y[y != np.round(y)][0]
        raise ValueError(
            f"y_true must hold integer labels with convention={conv.name!r}, "
            f"got {_plain(bad)!r}."
        )
    hi = {"int_0_30": 30, "xgboost": 31 if exp else None}.get(rule)
    if hi is not None and ((y < 0).any() or (y > hi).any()):
        raise ValueError(
            f"y_true labels must be integers in [0, {hi}] with convention="
            f"{conv.name!r} and gain={gain!r}, got min {_plain(y.min())!r}, max "
            f"{_plain(y.max())!r}."
        )
    if rule == "trec_eval":
        # Negative judgements mean "unjudged": gain 0, the row keeps its rank.
        return y if known else np.maximum(y, 0.0)
    if rule == "ranx":
        # Labels are truncated to int; below 1 they carry no gain.
        t = np.trunc(y)
        return np.where(t >= 1, t, 0.0)
    return y
