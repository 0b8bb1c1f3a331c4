"""Always-valid p-values and confidence sequences: the normal-mixture boundary.

An estimate ``d`` of a lift with standard error ``s`` is, in information time
``I = 1 / s**2``, a Brownian motion with drift; mixing its likelihood ratio
against "no lift" over a normal prior ``lift ~ N(0, tau**2)`` gives the
martingale ``L`` (the mixture sequential probability ratio test of Robbins,
1970; Johari et al., 2017; Howard et al., 2021). By Ville's inequality
``min(1, 1 / L)`` is a p-value valid at every look, and the lifts it does not
reject form a confidence sequence (asymptotically, with estimated variances:
Waudby-Smith et al., 2024). ``ab_test`` sets ``tau`` to ``mixing`` times the
standard deviation of one unit's metric.
"""

from __future__ import annotations

import numpy as np


def mixture_p_value(z, r):
    """``min(1, 1 / L)`` for standardised lifts ``z = d / s`` and ratios
    ``r = tau**2 / s**2``: ``L = sqrt(1 / (1 + r)) exp(r / (1 + r) z**2 / 2)``."""
    log_l = -0.5 * np.log1p(r) + r / (1.0 + r) * z**2 / 2.0
    return np.minimum(1.0, np.exp(-log_l))


def mixture_multiplier(r, alpha):
    """Half-width ``h`` of the confidence sequence in standard errors: the
    lifts in ``d -+ h * s`` are those the test at level ``alpha`` keeps."""
    return np.sqrt((1.0 + r) / r * (np.log1p(r) - 2.0 * np.log(alpha)))
