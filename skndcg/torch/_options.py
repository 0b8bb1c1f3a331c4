"""Options and conventions on tensors, checked and resolved by
:func:`skndcg.metrics.conventions.call_options`: the rule objects are called
with ``xp=torch``, never read by name."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..metrics.conventions import OPTIONS, CallOptions, call_options
from ..utils._args import check_flags

#: Every keyword option of ranking_scores and RankingMetric.
OPTION_NAMES = tuple(sorted([*OPTIONS, "cpu_fallback", "num_threads"]))


@dataclass(frozen=True)
class Options(CallOptions):
    """A call's options as :mod:`skndcg.metrics` checks them, and the two of
    torch alone."""

    cpu_fallback: bool = False
    num_threads: int | str | None = "auto"
    given: dict | None = None  # the options as given, for the CPU fallback


def resolve(**options) -> Options:
    """Check the options as :mod:`skndcg.metrics` does; return them resolved."""
    for key, value in options.items():
        if key not in OPTION_NAMES:
            raise TypeError(
                f"unexpected option {key}={value!r}; expected one of "
                f"{list(OPTION_NAMES)}."
            )
    given = {k: v for k, v in options.items() if k in OPTIONS}
    log2 = {"discount": "log2"} if given.get("discount", "log2") is None else {}
    call = call_options(**{**given, **log2})
    fallback = options.get("cpu_fallback", False)
    check_flags(cpu_fallback=fallback)
    threads = options.get("num_threads", "auto")
    if not (isinstance(threads, str) and threads == "auto") and (
        threads is not None
        and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1)
    ):
        raise ValueError(
            f"num_threads must be a positive integer, 'auto' or None, got {threads!r}."
        )
    return Options(
        **{f.name: getattr(call, f.name) for f in fields(call)},
        cpu_fallback=fallback,
        num_threads=threads,
        given=given,
    )
