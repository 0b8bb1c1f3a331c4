"""scikit-learn parameter constraints of the package's own (this module
imports scikit-learn: only modules that validate with it import this one)."""

from numbers import Integral

from sklearn.utils._param_validation import Interval


class Count(Interval):
    """The constraint of an integer >= ``low``, refusing a bool, which
    ``Interval(Integral, ...)`` takes as 0 or 1."""

    def __init__(self, low):
        super().__init__(Integral, low, None, closed="left")

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)
