"""The :class:`Convention`: one complete set of rules for the grouped metrics."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np

from ._rules import (
    AllSkipped,
    EmptyRule,
    EmptyScore,
    Gain,
    LabelRule,
    Rule,
    ScorePrecision,
    TieRule,
    Weighting,
)


@dataclass(frozen=True)
class Convention:
    """One complete set of choices for the grouped ranking metrics.

    The fields ``gain``, ``ties``, ``empty`` (the defaults of the options of the
    same name), ``score_dtype``, ``labels``, ``empty_rule``, ``weighting`` and
    ``all_skipped`` hold rule objects (``_rules.py``: each kind of rule says what
    it decides, and its table lists its names), each shown as, and equal to, its
    name; a name is accepted when a convention is made.

    Attributes
    ----------
    name : str
        Preset name.
    k_none : int or None
        What ``k=None`` means: ``None`` for the whole list, or a fixed cut-off
        (XGBoost's ``ndcg`` is NDCG@32).
    rel_threshold : float or None
        Binary relevance: ``label >= rel_threshold``, or ``label > 0`` when None.
    free : dict
        Options a caller may still set with this preset, and their allowed values.
    ap_denominator, p_denominator : str
        Defaults of the denominators of AP@k and P@k.
    doc_ties : bool
        With ``doc_id`` given, order tied scores by document id, descending
        (trec_eval); without it, ``ties`` applies.
    trec_runs : bool
        The preset ``skndcg score`` uses for a TREC run when none is given.
    """

    name: str
    gain: Gain = "linear"
    ties: TieRule = "average"
    empty: EmptyScore = "skip"
    k_none: int | None = None
    score_dtype: ScorePrecision = "float64"
    labels: LabelRule = "any"
    rel_threshold: float | None = None
    empty_rule: EmptyRule = "ideal"
    weighting: Weighting = "mean"
    free: dict = field(default_factory=dict)
    all_skipped: AllSkipped = "nan"
    ap_denominator: str = "relevant"
    p_denominator: str = "k"
    doc_ties: bool = False
    trec_runs: bool = False

    def __post_init__(self):
        for f in fields(self):
            rule = Rule.KINDS.get(f.name)
            if rule is not None:
                object.__setattr__(self, f.name, rule.of(getattr(self, f.name)))

    def tie_rule(self, ties, doc_id_given: bool) -> TieRule:
        """The tie rule of a call: ``ties=`` as given (None keeps the preset's),
        or document-id order when this preset breaks ties by ``doc_id``."""
        if doc_id_given and self.doc_ties and ties is None:
            return TieRule.of("docid")
        return self.ties

    def cast_scores(self, s: np.ndarray) -> np.ndarray:
        """Scores (float64) at the precision this convention compares them in."""
        return self.score_dtype.cast(s, np).astype(np.float64, copy=False)

    def relevance_threshold(self) -> float:
        """Relevant means ``label >= threshold`` (``label > 0`` without one: on
        float64, ``>=`` the smallest positive number)."""
        if self.rel_threshold is None:
            return float(np.nextafter(0.0, 1.0))
        return float(self.rel_threshold)

    def check_labels(self, y, *, nonnegative: bool = False, xp=np, **how):
        """Refuse labels this convention cannot read; return what the kernel
        reads (see :meth:`LabelRule.prepare`)."""
        return self.labels.prepare(y, xp, self, nonnegative=nonnegative, **how)

    def presorted(self) -> Convention:
        """This convention on rows already in its tie order (no reordering)."""
        return replace(self, ties="stable", doc_ties=False)
