"""Which backend scores a call: the compiled kernels, or the same kernels as Python.

Every kernel is a lazy :class:`~skndcg._native._jit.Kernel`; numba is imported
and its cached machine code loaded when one is first called. For a small input
in a process that has not loaded numba yet, running the kernels' Python
functions finishes sooner than that load, and gives the same numbers (the same
code, every sum in the same order). The rule is
:func:`~skndcg._native._jit.plain_road`, on the rows of the call times one
pass for the block measures (more under averaged ties, see
``AVERAGED_BLOCK_PASSES``) and one per measure scored query by query.
"""

from __future__ import annotations

import functools

from ..._native._jit import no_compile, plain_road
from .._catalogue._names import CUSTOM, parse_metric
from .._conventions import OPTIONS, call_options

#: Passes one row of the fused block kernel costs when it runs as Python under
#: averaged ties (it has no numpy version there: the tie blocks are walked row
#: by row), against one pass of a numpy version or a per-query measure.
AVERAGED_BLOCK_PASSES = 30


def _work(args, kwargs) -> int:
    """Rows times passes of an ``evaluate(y_true, y_score, qid, metrics)`` call
    (a large number when the arguments are not what it takes: it says so)."""
    try:
        y_true = args[0] if args else kwargs["y_true"]
        metrics = args[3] if len(args) > 3 else kwargs["metrics"]
        kinds = [parse_metric(m).kind for m in metrics]
        passes = 1 + sum(kind == CUSTOM for kind in kinds)
        if any(kind != CUSTOM for kind in kinds) and _averaged(args, kwargs):
            passes += AVERAGED_BLOCK_PASSES
        return len(y_true) * passes
    except Exception:  # (the engine names what is wrong)
        return 1 << 62


def _averaged(args, kwargs) -> bool:
    """Whether the call's tie rule is ``"average"``."""
    options = args[4] if len(args) > 4 else kwargs.get("options")
    if options is None:
        given = {k: v for k, v in kwargs.items() if k in OPTIONS}
        options = call_options(**given)
    return options.tie_rule(kwargs.get("doc_id") is not None).average


def picks_backend(evaluate):
    """``evaluate``, run under :func:`~skndcg._native._jit.no_compile` when the
    call is small enough (see the module)."""

    @functools.wraps(evaluate)
    def run(*args, **kwargs):
        with no_compile(plain_road(_work(args, kwargs))):
            return evaluate(*args, **kwargs)

    return run
