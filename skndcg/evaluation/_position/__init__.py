"""Examination propensity per position from a click log: the estimator, its
regression EM and its bootstrap intervals."""
