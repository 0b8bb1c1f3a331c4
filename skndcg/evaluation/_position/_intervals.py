"""Intervals of a propensity curve from its bootstrap replicates."""

from __future__ import annotations

import numpy as np


def intervals(est, boots, confidence):
    """Pointwise intervals and the simultaneous band, on the log scale."""
    n_pos = est.shape[0]
    if boots.shape[0] < 2:
        nan = np.full(n_pos, np.nan)
        return nan, nan, nan, nan
    from scipy.stats import norm

    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(boots)
        sd = np.nanstd(np.where(np.isfinite(logs), logs, np.nan), axis=0, ddof=1)
        sd = np.nan_to_num(sd, nan=np.inf)
        sd[0] = 0.0  # position 1 is 1 by definition
        z = norm.ppf(0.5 + confidence / 2)
        gap = np.abs(logs[:, 1:] - np.log(est[1:]))
        # A position every replicate puts at the estimate (sd 0) never moves.
        dev = np.where(sd[1:] > 0, gap / sd[1:], np.where(gap > 0, np.inf, 0.0))
    dev = np.where(np.isnan(dev), np.inf, dev)
    c = float(np.quantile(dev.max(axis=1), confidence)) if n_pos > 1 else z
    c = max(c, z)
    return (
        est * np.exp(-z * sd),
        est * np.exp(z * sd),
        est * np.exp(-c * sd),
        est * np.exp(c * sd),
    )
