"""Which backend scores a call: the compiled kernels, or the same kernels as
Python (same numbers), by :func:`~skndcg._native._jit.plain_road` on the
call's rows times its passes."""

from __future__ import annotations

from ..._native._jit import no_compile, plain_road
from .._catalogue._names import CUSTOM

#: Passes one row of the fused block kernel costs when it runs as Python under
#: averaged ties (it has no numpy version there: the tie blocks are walked row
#: by row), against one pass of a numpy version or a per-query measure.
AVERAGED_BLOCK_PASSES = 30
#: Passes one row of a measure scored query by query costs as Python under
#: averaged ties, where the loop also averages over the orders of tied rows.
AVERAGED_QUERY_PASSES = 3


def road(y_true, specs, average: bool):
    """The context a call scoring ``specs`` on ``y_true`` runs in (``average``:
    its tie rule is ``"average"``): ``no_compile`` when small enough."""
    custom = sum(sp.kind == CUSTOM for sp in specs)
    passes = 1 + custom * (AVERAGED_QUERY_PASSES if average else 1)
    if custom < len(specs) and average:
        passes += AVERAGED_BLOCK_PASSES
    try:
        work = len(y_true) * passes
    except Exception:  # (the engine names what is wrong)
        work = 1 << 62
    return no_compile(plain_road(work))
