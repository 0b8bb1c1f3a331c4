"""The compiler of the metric kernels, as the measure modules import it.

A measure's kernel is compiled with ``jit`` (see the guide on adding a
measure); the compiled-code layer itself lives in ``skndcg._native._jit``.
"""

from .._native._jit import compile_times, jit, numpy_twin

__all__ = ["compile_times", "jit", "numpy_twin"]
