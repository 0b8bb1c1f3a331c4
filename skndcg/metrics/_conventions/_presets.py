"""The presets of ``convention=``, and the one resolver of a call's convention."""

from __future__ import annotations

from dataclasses import replace

from ._convention import Convention
from ._rules import EMPTY_OPTIONS, Gain

GAIN_OPTIONS = tuple(Gain.TABLE)
_ANY = None  # marker: every valid value is allowed

# trec_eval 10.0 reads run scores as double.
_TREC_EVAL = Convention(
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
)

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
    "trec_eval": _TREC_EVAL,
    # pytrec_eval-terrier 0.5.x (and trec_eval before 10.0): trec_eval's rules,
    # with the run scores compared as float32.
    "pytrec_eval": replace(
        _TREC_EVAL, name="pytrec_eval", score_dtype="float32", trec_runs=False
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


#: The preset ``skndcg score`` applies to a TREC run when no convention is given:
#: the rules of trec_eval.
TREC_RUN_CONVENTION = next(name for name, c in PRESETS.items() if c.trec_runs)


def get_convention(convention=None):
    """The convention a ``convention=`` argument names, resolved as the metrics
    resolve it.

    Parameters
    ----------
    convention : str, Convention or None, default=None
        A preset name from :data:`~skndcg.metrics.CONVENTIONS`, in any spelling
        the metrics accept (case and ``-`` for ``_`` do not matter); None for
        skndcg's own defaults; or a convention object, returned as given.

    Returns
    -------
    convention : Convention
        A frozen object, accepted wherever ``convention=`` is. Among its
        attributes: ``name`` (the preset's canonical name), ``doc_ties`` (True
        when the preset breaks score ties by document id, descending, as
        trec_eval does, once ``doc_id`` is given), ``gain``, ``ties`` and
        ``empty`` (the defaults of those options). Its method ``presorted()``
        returns the same convention for rows already in its tie order, so that
        tied rows keep their row order and nothing is reordered.

    Raises
    ------
    ValueError
        When ``convention`` names no preset; the message lists them.

    Examples
    --------
    >>> from skndcg.metrics import TREC_RUN_CONVENTION, get_convention
    >>> conv = get_convention("TREC-eval")
    >>> conv.name, conv.doc_ties
    ('trec_eval', True)
    >>> get_convention(TREC_RUN_CONVENTION) is conv
    True
    >>> get_convention(None).name, get_convention("lightgbm").doc_ties
    ('skndcg', False)
    """
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


def resolve_convention(convention=None, **options) -> Convention:
    """The one resolver: ``convention=`` (None, a preset name or a Convention)
    with the explicit options (not None) laid over it, conflicts refused."""
    conv = get_convention(convention)
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
