"""Always-valid p-values and confidence sequences: the normal-mixture boundary.

An estimate ``d`` of a lift with standard error ``s`` is, in information time
``I = 1 / s**2``, a Brownian motion with drift: ``d * I`` moves like
``lift * I + W(I)``. Mixing its likelihood ratio against "no lift" over a
normal prior ``lift ~ N(0, tau**2)`` gives the martingale

    L = sqrt(1 / (1 + r)) * exp(r / (1 + r) * z**2 / 2),
    with r = tau**2 / s**2 and z = d / s,

(the mixture sequential probability ratio test of Robbins, 1970, used for
A/B tests by Johari et al., 2017; the same normal-mixture boundary as Howard
et al., 2021). By Ville's inequality ``L`` exceeds ``1 / alpha`` at some look
with probability at most ``alpha`` under no lift, so ``min(1, 1 / L)`` is a
p-value one may compute after every look and stop on, and the lifts it does
not reject form a confidence sequence: an interval valid at every look at
once. With estimated variances the guarantee is asymptotic (Waudby-Smith et
al., 2024), as for any normal-approximation interval.

``tau`` is the mixing parameter. ``ab_test`` sets it to ``mixing`` times the
standard deviation of one unit's metric, so ``r = mixing**2 /
(1 / n_treatment + 1 / n_control)`` depends on the units alone. At a given
look the interval is narrowest for the ``tau`` that makes ``r`` about
``c = -2 log(alpha) + log(1 - 2 log(alpha))`` (7.9 at alpha = 0.05;
Waudby-Smith et al., 2024): the default ``mixing=0.05`` is tuned for about
``n = 2 c / mixing**2`` units per arm on an even split (6,300), and a test
planned for ``n`` units per arm may set ``mixing = sqrt(2 c / n)``. Narrowest
there, the interval is about 1.5 times as wide as a fixed-sample one; it stays
valid for every other size.
"""

from __future__ import annotations

import numpy as np


def mixture_p_value(z, r):
    """``min(1, 1 / L)`` for standardised lifts ``z`` and ratios ``r = tau^2/s^2``."""
    log_l = -0.5 * np.log1p(r) + r / (1.0 + r) * z**2 / 2.0
    return np.minimum(1.0, np.exp(-log_l))


def mixture_multiplier(r, alpha):
    """Half-width of the confidence sequence in standard errors.

    The lifts ``d - h * s <= lift <= d + h * s`` are those the test at level
    ``alpha`` does not reject: ``h = sqrt((1 + r) / r * (log(1 + r) - 2 log
    alpha))``.
    """
    return np.sqrt((1.0 + r) / r * (np.log1p(r) - 2.0 * np.log(alpha)))
