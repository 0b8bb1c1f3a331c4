"""The compiler of the metric kernels (``skndcg._native._jit``), as the measure
modules import it."""

from .._native._jit import compile_times, jit, numpy_twin

__all__ = ["compile_times", "jit", "numpy_twin"]
