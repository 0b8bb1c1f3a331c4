"""The options of one metric call, checked once by :func:`call_options` for
every front end."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._convention import Convention
from ._presets import resolve_convention
from ._rules import EMPTY_OPTIONS, TIES_OPTIONS, Gain, TieRule

#: Every option of a metric call and its default, in the order of the
#: public signatures.
OPTIONS = {
    "gain": None,
    "discount": "log2",
    "ties": None,
    "empty": None,
    "convention": None,
    "rel_threshold": None,
    "ap_denominator": None,
    "p_denominator": None,
    "nan_score": None,
    "queries": None,
    "nan_label": None,
}
#: The options that describe the data rather than the metric (a scorer's
#: caller cannot set them when it is built).
DATA_OPTIONS = ("nan_score", "queries", "nan_label")

AP_DENOMINATORS = ("relevant", "min_k_relevant", "hits")
P_DENOMINATORS = ("k", "min_k_items")
NAN_SCORE_OPTIONS = ("error", "unretrieved")
NAN_LABEL_OPTIONS = ("error", "unjudged")
QUERIES_OPTIONS = ("retrieved", "judged")


def _choice(name: str, value, allowed, what: str = "") -> None:
    if value is not None and value not in allowed:
        raise ValueError(
            f"{name}={value!r} is not valid{what}; expected one of {list(allowed)}."
        )


@dataclass(frozen=True)
class CallOptions:
    """The checked options of one call: its convention, and the options that
    are not part of a convention.

    Made by :func:`skndcg.metrics.conventions.call_options`; a backend reads
    it rather than the options as given.

    Parameters
    ----------
    conv : Convention
        The resolved convention, with the call's gain, ties, empty rule,
        ``rel_threshold``, discount and denominators applied.
    ties : str or None
        ``ties`` as given (None: the convention's).
    discount : str, array or callable
        ``"log2"``, an array of position weights or a function of the ranks.
    nan_score, queries, nan_label : str or None
        As given (None: ``"error"``, ``"retrieved"``, ``"error"``).

    Examples
    --------
    >>> from skndcg.metrics.conventions import call_options
    >>> options = call_options(convention="trec_eval", nan_score="unretrieved")
    >>> options.unretrieved, options.retrieved_only
    (True, True)
    >>> options.tie_rule(doc_id_given=True).by_doc_id
    True
    """

    conv: Convention
    ties: str | None
    discount: object
    nan_score: str | None
    queries: str | None
    nan_label: str | None

    @property
    def unretrieved(self) -> bool:
        """Whether a NaN score marks a judged row that was not retrieved."""
        return self.nan_score == NAN_SCORE_OPTIONS[1]

    @property
    def unjudged(self) -> bool:
        """Whether a NaN label marks a row nobody judged."""
        return self.nan_label == NAN_LABEL_OPTIONS[1]

    @property
    def retrieved_only(self) -> bool:
        """Whether only the queries with a retrieved row count in the mean."""
        return self.queries in (None, QUERIES_OPTIONS[0])

    def tie_rule(self, doc_id_given: bool) -> TieRule:
        """The tie rule of the call, refusing document-id order without ids.

        Parameters
        ----------
        doc_id_given : bool
            Whether the call has document ids (``doc_id=``).

        Returns
        -------
        TieRule
            The rule that orders the call's tied rows.
        """
        rule = self.conv.tie_rule(self.ties, doc_id_given)
        if rule.by_doc_id and not doc_id_given:
            raise ValueError(
                "ties='docid' orders tied rows by document id: pass doc_id."
            )
        return rule


def call_options(**given) -> CallOptions:
    """Check the options of one call (the keywords of :data:`OPTIONS`) and
    resolve its convention."""
    for key, value in given.items():
        if key not in OPTIONS:
            raise TypeError(
                f"unexpected option {key}={value!r}; expected one of {list(OPTIONS)}."
            )
    o = {**OPTIONS, **given}
    gain, ties, empty = o["gain"], o["ties"], o["empty"]
    rel_threshold, discount = o["rel_threshold"], o["discount"]
    if gain is not None and not callable(gain):
        Gain.of(gain)
    _choice("ties", ties, TIES_OPTIONS)
    _choice("empty", empty, EMPTY_OPTIONS)
    _choice("denominator", o["ap_denominator"], AP_DENOMINATORS,
            " for average precision")  # fmt: skip
    _choice("denominator", o["p_denominator"], P_DENOMINATORS, " for precision")
    _choice("nan_score", o["nan_score"], NAN_SCORE_OPTIONS)
    _choice("queries", o["queries"], QUERIES_OPTIONS)
    _choice("nan_label", o["nan_label"], NAN_LABEL_OPTIONS)
    if rel_threshold is not None and (
        isinstance(rel_threshold, bool)
        or not isinstance(rel_threshold, numbers.Real)
        or not np.isfinite(rel_threshold)
    ):
        raise ValueError(
            f"rel_threshold must be a finite number or None, got {rel_threshold!r}."
        )
    conv = resolve_convention(
        o["convention"],
        gain=gain,
        ties=ties,
        empty=empty,
        discount=None if isinstance(discount, str) and discount == "log2" else discount,
        rel_threshold=rel_threshold,
        ap_denominator=o["ap_denominator"],
        p_denominator=o["p_denominator"],
    )
    return CallOptions(conv, ties, discount, o["nan_score"], o["queries"],
                       o["nan_label"])  # fmt: skip


def pick(values: dict) -> dict:
    """The options among ``values`` (a function's arguments), by name."""
    return {key: values[key] for key in OPTIONS if key in values}
