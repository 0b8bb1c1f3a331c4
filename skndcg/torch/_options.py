"""Options and conventions on tensors: the presets of :mod:`skndcg.metrics`.

Every option goes through :func:`skndcg.metrics._conventions.resolve_convention`,
the engine's one resolver, so a preset means here what it means there: the
returned :class:`Convention` carries the gain, the tie rule, the empty rule,
the score precision, the label rules and the denominators, and this package
reads those fields, never preset names.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import torch

from ..metrics._conventions import (
    EMPTY_OPTIONS,
    GAIN_OPTIONS,
    MAX_EXP_LABEL,
    NAN_LABEL_OPTIONS,
    NAN_SCORE_OPTIONS,
    QUERIES_OPTIONS,
    TIES_OPTIONS,
    Convention,
    negative_labels_message,
    resolve_convention,
)

_AP = ("relevant", "min_k_relevant", "hits")
_P = ("k", "min_k_items")
#: Every keyword option of ranking_scores and RankingMetric.
OPTION_NAMES = (
    "ap_denominator",
    "convention",
    "cpu_fallback",
    "discount",
    "empty",
    "gain",
    "nan_label",
    "nan_score",
    "num_threads",
    "p_denominator",
    "queries",
    "rel_threshold",
    "ties",
)


@dataclass(frozen=True)
class Options:
    """A call's convention and the options that are not part of it."""

    conv: Convention
    ties: str | None  # as given (None: the preset's)
    discount: object
    nan_score: str
    queries: str
    nan_label: str
    cpu_fallback: bool
    num_threads: int | str | None
    given: dict  # the options as the caller gave them, for the CPU fallback

    def tie_rule(self, doc_id_given: bool) -> str:
        rule = self.conv.tie_rule(self.ties, doc_id_given)
        if rule == "docid" and not doc_id_given:
            raise ValueError(
                "ties='docid' orders tied rows by document id: pass doc_id."
            )
        return rule


def _choice(name, value, allowed):
    if value is not None and value not in allowed:
        raise ValueError(
            f"{name}={value!r} is not valid; expected one of {list(allowed)}."
        )


def resolve(**options) -> Options:
    """Check the options as :mod:`skndcg.metrics` does; return them resolved."""
    for key, value in options.items():
        if key not in OPTION_NAMES:
            raise TypeError(
                f"unexpected option {key}={value!r}; expected one of "
                f"{list(OPTION_NAMES)}."
            )
    get = options.get
    gain = get("gain")
    if gain is not None and not callable(gain) and gain not in GAIN_OPTIONS:
        raise ValueError(
            f"gain={gain!r} is not valid; expected 'linear', 'exponential' or a "
            "callable mapping labels to gains."
        )
    _choice("ties", get("ties"), TIES_OPTIONS)
    _choice("empty", get("empty"), EMPTY_OPTIONS)
    _choice("ap_denominator", get("ap_denominator"), _AP)
    _choice("p_denominator", get("p_denominator"), _P)
    _choice("nan_score", get("nan_score"), NAN_SCORE_OPTIONS)
    _choice("queries", get("queries"), QUERIES_OPTIONS)
    _choice("nan_label", get("nan_label"), NAN_LABEL_OPTIONS)
    thr = get("rel_threshold")
    if thr is not None and (
        isinstance(thr, bool)
        or not isinstance(thr, numbers.Real)
        or not np.isfinite(thr)
    ):
        raise ValueError(f"rel_threshold must be a finite number or None, got {thr!r}.")
    fallback = get("cpu_fallback", False)
    if not isinstance(fallback, bool):
        raise ValueError(f"cpu_fallback must be True or False, got {fallback!r}.")
    threads = get("num_threads", "auto")
    if not (isinstance(threads, str) and threads == "auto") and (
        threads is not None
        and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1)
    ):
        raise ValueError(
            f"num_threads must be a positive integer, 'auto' or None, got {threads!r}."
        )
    discount = get("discount", "log2")
    if discount is None:
        discount = "log2"
    conv = resolve_convention(
        get("convention"),
        gain=gain,
        ties=get("ties"),
        empty=get("empty"),
        discount=None if isinstance(discount, str) and discount == "log2" else discount,
        rel_threshold=thr,
        ap_denominator=get("ap_denominator"),
        p_denominator=get("p_denominator"),
    )
    return Options(
        conv=conv,
        ties=get("ties"),
        discount=discount,
        nan_score=get("nan_score") or "error",
        queries=get("queries") or "retrieved",
        nan_label=get("nan_label") or "error",
        cpu_fallback=fallback,
        num_threads=threads,
        given={
            k: v for k, v in options.items() if k not in ("cpu_fallback", "num_threads")
        },
    )


def _plain(v):
    v = float(v)
    return int(v) if v.is_integer() else v


def prepare_labels(y, conv: Convention, *, integer_input: bool):
    """The labels the measures read (float tensor), checked as the engine does
    (``skndcg.metrics._conventions.prepare_labels``), NaN rows already 0."""
    rule, gain = conv.labels, conv.gain
    exp = gain == "exponential"
    low = y.min()
    if rule == "nonnegative" and not (callable(gain) or exp) and bool(low < 0):
        first = float(y[torch.nonzero(y < 0)[0, 0]])
        raise ValueError(negative_labels_message("target", first, float(low), conv))
    needs_int = rule in ("int_0_30", "trec_eval") or (rule == "xgboost" and exp)
    if needs_int and not integer_input:
        frac = y != torch.round(y)
        if bool(frac.any()):
            bad = y[torch.nonzero(frac)[0, 0]]
            raise ValueError(
                f"target must hold integer labels with convention={conv.name!r}, "
                f"got {_plain(bad)!r}."
            )
    hi = {"int_0_30": 30, "xgboost": 31 if exp else None}.get(rule)
    if hi is not None and (bool(low < 0) or bool((y > hi).any())):
        raise ValueError(
            f"target labels must be integers in [0, {hi}] with convention="
            f"{conv.name!r} and gain={gain!r}, got min {_plain(low)!r}, max "
            f"{_plain(y.max())!r}."
        )
    if rule == "trec_eval":
        # Negative judgements mean "unjudged": gain 0, the row keeps its rank.
        y = torch.clamp(y, min=0.0)
    elif rule == "ranx":
        t = torch.trunc(y)
        y = torch.where(t >= 1, t, torch.zeros_like(t))
    if exp:
        if bool((y < 0).any()):
            raise ValueError(
                f"target has negative labels (min {_plain(y.min())!r}), which gain="
                "'exponential' (2**label - 1) cannot use; shift the labels or use "
                "gain='linear'."
            )
        if bool((y > MAX_EXP_LABEL).any()):
            raise ValueError(
                f"target has labels up to {_plain(y.max())!r}: with gain="
                "'exponential', 2**label - 1 overflows float64 or loses integer "
                f"precision above {MAX_EXP_LABEL}; use gain='linear' or rescale "
                "the labels."
            )
    return y


def label_gains(y, conv: Convention):
    """Per-row gains of the DCG family: linear, exponential or the callable's."""
    if callable(conv.gain):
        out = conv.gain(y)
        out = torch.as_tensor(np.asarray(out) if not isinstance(out, torch.Tensor)
                              else out, device=y.device).to(y.dtype)  # fmt: skip
        if out.shape != y.shape:
            raise ValueError(
                f"the gain callable must return one gain per label: expected shape "
                f"{tuple(y.shape)}, got {tuple(out.shape)}."
            )
        if not bool(torch.isfinite(out).all()):
            raise ValueError("gain(target) contains NaN or infinite values.")
        return out
    if conv.gain == "exponential":
        return torch.exp2(y) - 1.0
    return y
