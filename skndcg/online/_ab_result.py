"""The result of :func:`ab_test`: a frozen record with a table behind it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

# Columns read as attributes and keys (a float with one comparison, else a
# Series indexed by (metric, arm)), with their attribute's docstring.
_COLUMNS = {
    "lift": "Treatment minus control.",
    "low": "Lower end of the lift.",
    "high": "Upper end of the lift.",
    "relative_lift": "Lift over control mean.",
    "relative_low": "Lower end (delta method).",
    "relative_high": "Upper end (delta method).",
    "p_value": "Two-sided p-value.",
    "p_adjusted": "Corrected over the rows.",
    "variance_reduction": (
        "Share of the lift's variance CUPED removed (NaN without pre)."
    ),
}
_SCALARS = ("srm_p_value", "control", "alpha", "sequential", "mixing", "correction")


@dataclass(frozen=True, repr=False)
class ABTestResult:
    """An A/B test of one or more metrics: lifts, intervals, p-values, checks.

    Returned by :func:`ab_test`. ``lift``, ``low``, ``high``, ``p_value``
    and the other comparison columns are attributes and keys
    (``result.lift``, ``result["lift"]``): floats when one treatment is
    compared on one metric, otherwise Series indexed by ``(metric, arm)``.
    :meth:`to_frame` gives the whole table.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per (metric, treatment arm): ``metric``, ``arm``,
        ``control``, ``n_units``, ``n_units_control``, ``mean``,
        ``mean_control`` (adjusted by CUPED with ``pre``), ``lift``, ``low``,
        ``high``, ``relative_lift``, ``relative_low``, ``relative_high``,
        ``p_value``, ``p_adjusted`` and ``variance_reduction``.
    control : object
        The control arm.
    units : dict
        Number of units per arm, control first.
    split : dict
        The intended share of units per arm.
    srm_p_value : float
        Chi-square test of the units per arm against ``split``
        (sample-ratio mismatch); a small value means the assignment or the
        logging is broken and the lifts cannot be trusted.
    balance : pandas.DataFrame or None
        Kolmogorov-Smirnov tests of the covariates between each treatment and
        the control: ``covariate``, ``arm``, ``statistic``, ``p_value``,
        ``p_adjusted`` (Holm); None without covariates.
    alpha : float
        Significance level; the intervals cover at ``1 - alpha`` (corrected
        for several comparisons).
    sequential : bool
        Whether the intervals and p-values are always valid (see
        :func:`ab_test`).
    mixing : float or None
        Mixing parameter of the sequential test, None for a fixed-sample one.
    correction : str or None
        Multiple-comparison correction over the rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.online import ab_test
    >>> rng = np.random.default_rng(0)
    >>> arm = np.repeat(["A", "B"], 500)
    >>> ndcg = rng.normal(0.50, 0.2, 1000) + 0.05 * (arm == "B")
    >>> result = ab_test(ndcg, arm, np.arange(1000))
    >>> round(result.lift, 3), result["p_value"] < 0.001
    (0.042, True)
    >>> list(result.to_frame().columns[:4])
    ['metric', 'arm', 'control', 'n_units']
    """

    table: pd.DataFrame
    control: object
    units: dict
    split: dict
    srm_p_value: float
    balance: pd.DataFrame | None
    alpha: float
    sequential: bool
    mixing: float | None
    correction: str | None

    def _column(self, name):
        if len(self.table) == 1:
            return float(self.table[name].iloc[0])
        index = pd.MultiIndex.from_frame(self.table[["metric", "arm"]])
        return pd.Series(self.table[name].to_numpy(), index=index, name=name)

    def keys(self):
        """Names readable as keys (and attributes).

        Returns
        -------
        keys : tuple of str
        """
        return (*_COLUMNS, *_SCALARS, "units", "split", "balance")

    def __getitem__(self, key):
        if key not in self.keys():
            raise KeyError(f"{key!r}; an ABTestResult has the keys {self.keys()}.")
        return getattr(self, key)

    def to_frame(self):
        """The comparisons as a table, with the sample-ratio test.

        Returns
        -------
        frame : pandas.DataFrame
            One row per (metric, treatment arm); the columns of :attr:`table`
            and ``srm_p_value``.
        """
        return self.table.assign(srm_p_value=self.srm_p_value)

    def __repr__(self):
        n = sum(self.units.values())
        kind = (
            f"always-valid, mixing={self.mixing:g}"
            if self.sequential
            else "fixed sample"
        )
        lines = [
            f"<ABTestResult: {len(self.units)} arms, control={self.control!r}, "
            f"{n:,} units, SRM p={self.srm_p_value:.3g}, {kind}, "
            f"{100 * (1 - self.alpha):g}% intervals>"
        ]
        for _, r in self.table.iterrows():
            rel = (
                f" ({100 * r['relative_lift']:+.2f}% "
                f"[{100 * r['relative_low']:+.2f}%, {100 * r['relative_high']:+.2f}%])"
                if np.isfinite(r["relative_lift"])
                else ""
            )
            lines.append(
                f"  {r['metric']}: {r['arm']} - {r['control']} = {r['lift']:+.4g} "
                f"[{r['low']:+.4g}, {r['high']:+.4g}]{rel}, p={r['p_value']:.3g}"
            )
        return "\n".join(lines)


for _name, _doc in _COLUMNS.items():
    _read = partial(ABTestResult._column, name=_name)
    setattr(ABTestResult, _name, property(_read, doc=_doc))
