"""The compiler of the metric kernels (``skndcg._native._jit``), as the measure
modules import it, and the number of ranks a kernel reads."""

from .._native._jit import compile_times, jit, numpy_twin

__all__ = ["compile_times", "jit", "n_read", "numpy_twin"]


@jit
def n_read(labels, k):
    n = labels.shape[0]
    return n if k is None else min(k, n)
