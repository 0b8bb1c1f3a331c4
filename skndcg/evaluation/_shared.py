"""What other layers may use of the evaluation package's internals.

The online package's tests (A/B tests of ranking metrics) correct their
p-values and intervals for several comparisons exactly as :func:`compare`
does; the corrections are named here, once, so that no other package imports
the evaluation package's private modules.
"""

from ._stats import adjust_p_values, corrected_confidence

__all__ = ["adjust_p_values", "corrected_confidence"]
