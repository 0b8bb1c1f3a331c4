"""A/B tests of ranking metrics: :func:`ab_test`."""

from __future__ import annotations

from numbers import Real

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ..evaluation._shared import adjust_p_values, corrected_confidence
from . import _ab_inputs as inputs
from ._ab_result import ABTestResult


def _compare_arms(y, n, x, unit_arm, n_arms):
    """Adjusted means, their variances (raw and adjusted) and units per arm.

    A unit's metric is ``y / n`` (the sum of its values over their number);
    an arm's mean is the ratio of sums ``R = sum(y) / sum(n)``, whose
    delta-method variance is that of ``(y - R n) / mean(n)`` over units,
    divided by their number (Deng et al., 2018). With ``x``, CUPED's slope
    of those deviations on ``x`` within arms adjusts the means and variances.
    """
    has = n > 0
    means, devs, xs = [], [], []
    for a in range(n_arms):
        sel = has & (unit_arm == a)
        ya, na = y[sel], n[sel]
        r = ya.sum() / na.sum()
        means.append(r)
        devs.append((ya - r * na) / na.mean())
        xs.append(None if x is None else x[sel])
    sizes = np.array([d.size for d in devs], dtype=np.float64)
    raw = np.array([d.var(ddof=1) for d in devs]) / sizes
    if x is None:
        return np.array(means), raw, raw, sizes
    centred = [xa - xa.mean() for xa in xs]
    num = sum(float(np.dot(d, c)) for d, c in zip(devs, centred, strict=True))
    den = sum(float(np.sum(c**2)) for c in centred)
    theta = num / den if den > 0 else 0.0
    grand = np.concatenate(xs).mean()
    adj_means = np.array(
        [m - theta * (xa.mean() - grand) for m, xa in zip(means, xs, strict=True)]
    )
    resid = [d - theta * c for d, c in zip(devs, centred, strict=True)]
    adj = np.array([r.var(ddof=1) for r in resid]) / sizes
    return adj_means, adj, raw, sizes


@validate_params(
    {
        "values": ["array-like"],
        "arm": ["array-like", str],
        "unit": ["array-like", str],
        "pre": ["array-like", str, None],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "sequential": ["boolean"],
        "control": "no_validation",
        "split": "no_validation",
        "covariates": [list, tuple, dict, pd.DataFrame, None],
        "metrics": [str, list, tuple, None],
        "average": [StrOptions({"queries", "units"})],
        "correction": [StrOptions({"holm", "bonferroni", "fdr_bh"}), None],
        "mixing": [Interval(Real, 0, None, closed="neither")],
        "nan_policy": [StrOptions({"raise", "omit"})],
    },
    prefer_skip_nested_validation=True,
)
def ab_test(
    values,
    arm,
    unit,
    *,
    pre=None,
    alpha=0.05,
    sequential=False,
    control=None,
    split=None,
    covariates=None,
    metrics=None,
    average="queries",
    correction="holm",
    mixing=0.05,
    nan_policy="raise",
):
    """A/B test of ranking metrics, with the unit of randomisation as unit.

    Each row is one value of a metric (a query's NDCG@10, a session's
    clicks) with its arm and its unit, the thing that was randomised (a
    user). Values of the same unit are correlated, so the unit, not the row,
    is the independent observation: an arm's mean is the mean over its rows
    (``average="queries"``; the ratio of sums over units, with the
    delta-method variance of a ratio, Deng et al., 2018) or over its units
    (``average="units"``), and every variance is computed over units. With
    one row per unit both are the plain mean and Welch's test.

    Every treatment arm is compared with the control: the lift (treatment
    mean minus control mean) with its interval and two-sided p-value, and the
    relative lift (lift over the control mean) with an interval by the delta
    method. The test also checks the assignment: a chi-square test of the
    units per arm against the intended ``split`` (sample-ratio mismatch), and
    Kolmogorov-Smirnov tests of the ``covariates`` between arms.

    Parameters
    ----------
    values : array-like of shape (n_rows,) or pandas.DataFrame
        One metric's values, or a DataFrame with one column per metric (such
        as a :func:`~skndcg.metrics.ranking_report` frame, with arm and unit
        columns added); all rows of a unit are in the same arm. A pandas
        Series given as ``arm``, ``unit``, ``pre`` or a covariate is matched to
        a DataFrame or Series ``values`` by index label, as pandas aligns
        columns, and refused unless its index holds each label of ``values``'
        index once; an array is read by position.
    arm : array-like of shape (n_rows,) or str
        Arm of each row, or the name of a column of ``values``.
    unit : array-like of shape (n_rows,) or str
        Unit of randomisation of each row (a user id), or a column name.
    pre : array-like of shape (n_rows,) or str, default=None
        The unit's metric before the test (the same on each of its rows), for
        CUPED (Deng et al., 2013): each arm's mean is adjusted by
        ``theta * (mean of pre in the arm - mean of pre overall)``, with
        ``theta`` the slope of the unit metric on ``pre`` within arms. The
        lift stays unbiased and its variance shrinks by the share
        ``variance_reduction``, about the squared correlation of the two.
    alpha : float in (0, 1), default=0.05
        Significance level; intervals cover ``1 - alpha``.
    sequential : bool, default=False
        ``False``: a fixed-sample test (Welch's t with the delta-method
        variances), valid when looked at once. ``True``: an always-valid
        p-value and a confidence sequence (a mixture sequential probability
        ratio test with a normal mixture; Robbins, 1970; Johari et al., 2017;
        Howard et al., 2021): one may run the test after every day and stop
        the first time ``p_value <= alpha`` without raising the false-alarm
        rate above ``alpha``.
    control : object, default=None
        The control arm; the first arm in sorted order when None.
    split : mapping or sequence of float, default=None
        The intended share of units per arm (a mapping from arm to share, or
        shares in sorted arm order); even when None.
    covariates : pandas.DataFrame, dict or list, default=None
        Covariates whose balance between arms to check: a DataFrame or dict of
        arrays with one entry per row, or a list of column names of
        ``values``. Each unit counts once, with the mean of its rows.
    metrics : str or list of str, default=None
        Metric columns of a DataFrame ``values``; None takes every numeric
        column except bookkeeping ones (``qid``, ``n_items``, ``weight``, ...),
        the ``dcg@k`` / ``idcg@k`` columns a report adds behind ``ndcg@k``
        and those named by ``arm``, ``unit``, ``pre`` and ``covariates``,
        keeping the metrics measured in every arm (a warning names the others).
    average : {"queries", "units"}, default="queries"
        The mean over rows, or over units (each unit's mean counting once).
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        With several (metric, treatment) rows: ``p_adjusted`` is corrected
        over them, and the intervals cover at the matching level
        (``1 - alpha / m`` for Holm and Bonferroni over ``m`` rows, the false
        coverage rate level for ``"fdr_bh"``), as :func:`~skndcg.evaluation.compare`
        does. With one row nothing changes.
    mixing : float > 0, default=0.05
        With ``sequential=True``, the standard deviation of the normal
        mixture over lifts, in standard deviations of one unit's metric. The
        interval is narrowest for about ``2 c / mixing**2`` units per arm,
        ``c = -2 log(alpha) + log(1 - 2 log(alpha))`` (6,300 units with the
        defaults); for a test planned for ``n`` units per arm, use
        ``sqrt(2 c / n)``. Fix it before the test starts.
    nan_policy : {"raise", "omit"}, default="raise"
        NaN values raise, or leave their rows out of that metric. An
        infinite value, or a NaN or infinite ``pre`` or covariate, always
        raises.

    Returns
    -------
    result : ABTestResult
        ``lift``, ``low``, ``high``, ``p_value``, ``srm_p_value``,
        ``relative_lift`` and its interval, ``variance_reduction``,
        ``balance``, as attributes and keys; :meth:`ABTestResult.to_frame`
        gives the table.

    See Also
    --------
    sustained_lift : The stopping rule "the lift stays above a threshold for
        a given time", over a series of results.
    skndcg.evaluation.compare : Rankers scored on the same queries (paired).

    References
    ----------
    .. [1] A. Deng, Y. Xu, R. Kohavi and T. Walker, "Improving the sensitivity of
       online controlled experiments by utilizing pre-experiment data", WSDM 2013.
    .. [2] A. Deng, U. Knoblich and J. Lu, "Applying the delta method in metric
       analytics", KDD 2018.
    .. [3] Ramesh Johari, Pete Koomen, Leonid Pekelis and David Walsh, "Peeking
       at A/B tests", KDD 2017.
    .. [4] S. R. Howard, A. Ramdas, J. McAuliffe and J. Sekhon, "Time-uniform,
       nonparametric, nonasymptotic confidence sequences", Annals of
       Statistics 49(2), 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.online import ab_test
    >>> rng = np.random.default_rng(0)
    >>> user = np.repeat(np.arange(2000), 3)          # three queries per user
    >>> arm = np.where(user % 2 == 0, "control", "new")
    >>> taste = rng.normal(0, 0.15, 2000)[user]       # users differ
    >>> ndcg = 0.6 + taste + rng.normal(0, 0.1, user.size) + 0.02 * (arm == "new")
    >>> result = ab_test(ndcg, arm, user, control="control")
    >>> print(f"{result.lift:.3f} [{result.low:.3f}, {result.high:.3f}]")
    0.021 [0.007, 0.035]
    >>> round(result.srm_p_value, 3)
    1.0
    """
    frame = values if isinstance(values, pd.DataFrame) else None
    n = len(values)
    index = getattr(values, "index", None)
    named = {c for c in (arm, unit, pre) if isinstance(c, str)}
    arm = inputs.column(arm, "arm", frame, n, index)
    unit = inputs.column(unit, "unit", frame, n, index)
    x_rows = None if pre is None else inputs.column(pre, "pre", frame, n, index)
    cov = _covariate_rows(covariates, frame, n, index)
    data, chosen = inputs.metric_frame(values, metrics, named | set(cov))
    names, unit_code, unit_names, unit_arm = inputs.arms_and_units(arm, unit, control)
    n_arms, n_units = len(names), len(unit_names)
    x = None
    if x_rows is not None:
        x = inputs.per_unit(x_rows, "pre", unit_code, n_units, unit_names)
    shares = inputs.split_shares(split, names)
    counts = np.bincount(unit_arm, minlength=n_arms)
    srm = float(stats.chisquare(counts, shares * counts.sum()).pvalue)
    sums, present = {}, {}
    for m in data.columns:
        y, cnt = inputs.unit_sums(data[m].to_numpy(), nan_policy, m, unit_code, n_units)
        sums[m] = (y, cnt)
        present[m] = np.bincount(unit_arm[cnt > 0], minlength=n_arms)
    keep = inputs.common_metrics(data, chosen, present, names)
    rows = []
    for m in keep:
        small = np.flatnonzero(present[m] < 2)
        if small.size:
            a = small[0]
            raise ValueError(
                f"arm {names[a]!r} has {present[m][a]} unit(s) with values of "
                f"{m!r}; an A/B test needs at least 2 units per arm to estimate "
                "the spread between units."
            )
        y, cnt = sums[m]
        if average == "units":
            y, cnt = np.where(cnt > 0, y / np.maximum(cnt, 1), 0.0), (cnt > 0) * 1.0
        means, var, raw, sizes = _compare_arms(y, cnt, x, unit_arm, n_arms)
        for t in range(1, n_arms):
            rows.append(_row(m, names, t, means, var, raw, sizes, x is not None))
    table = _finish(rows, alpha, sequential, mixing, correction)
    return ABTestResult(
        table=table,
        control=names[0],
        units={a: int(c) for a, c in zip(names, counts, strict=True)},
        split={a: float(s) for a, s in zip(names, shares, strict=True)},
        srm_p_value=srm,
        balance=_balance(cov, names, unit_code, n_units, unit_arm),
        alpha=float(alpha),
        sequential=bool(sequential),
        mixing=float(mixing) if sequential else None,
        correction=correction,
    )


def _row(metric, names, t, means, var, raw, sizes, cuped):
    v = var[t] + var[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_var = var[t] / means[0] ** 2 + means[t] ** 2 * var[0] / means[0] ** 4
        df = v**2 / (var[t] ** 2 / (sizes[t] - 1) + var[0] ** 2 / (sizes[0] - 1))
        reduction = 1.0 - v / (raw[t] + raw[0]) if cuped else np.nan
    return {
        "metric": metric,
        "arm": names[t],
        "control": names[0],
        "n_units": int(sizes[t]),
        "n_units_control": int(sizes[0]),
        "mean": means[t],
        "mean_control": means[0],
        "lift": means[t] - means[0],
        "_se": np.sqrt(v),
        "_rel_se": np.sqrt(rel_var),
        "_df": df,
        "_r": 1.0 / (1.0 / sizes[t] + 1.0 / sizes[0]),
        "relative_lift": means[t] / means[0] - 1.0 if means[0] != 0 else np.nan,
        "variance_reduction": reduction,
    }


def _finish(rows, alpha, sequential, mixing, correction):
    """The table of every row, with p-values, corrected p-values and intervals."""
    col = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    se, rel_se, df = col.pop("_se"), col.pop("_rel_se"), col.pop("_df")
    lift = col["lift"]
    r = mixing**2 * col.pop("_r")
    with np.errstate(divide="ignore", invalid="ignore"):
        z = lift / se
    p = mixture_p_value(z, r) if sequential else 2.0 * stats.t.sf(np.abs(z), df)
    p = np.where(se == 0, np.where(lift == 0, 1.0, 0.0), p)
    p_adj = adjust_p_values(p, correction)
    a = 1.0 - corrected_confidence(p_adj, correction, 1.0 - alpha)
    h = mixture_multiplier(r, a) if sequential else stats.t.ppf(1 - a / 2, df)
    rel = col["relative_lift"]
    col.update(
        low=lift - h * se,
        high=lift + h * se,
        relative_low=rel - h * rel_se,
        relative_high=rel + h * rel_se,
        p_value=p,
        p_adjusted=p_adj,
    )
    order = ["metric", "arm", "control", "n_units", "n_units_control", "mean",
             "mean_control", "lift", "low", "high", "relative_lift",
             "relative_low", "relative_high", "p_value", "p_adjusted",
             "variance_reduction"]  # fmt: skip
    table = pd.DataFrame({k: col[k] for k in order})
    for k in ("metric", "arm", "control"):
        table[k] = pd.Series([r[k] for r in rows], dtype=object)
    return table


def mixture_p_value(z, r):
    """Always-valid p-values ``min(1, 1 / L)`` of standardised lifts ``z = d / s``,
    ``r = tau**2 / s**2``, ``L = sqrt(1 / (1 + r)) exp(r / (1 + r) z**2 / 2)``.

    In information time ``1 / s**2`` the estimate ``d`` is a Brownian motion with
    drift; mixing its likelihood ratio against "no lift" over ``lift ~ N(0,
    tau**2)`` gives the martingale ``L`` (Robbins, 1970; Johari et al., 2017;
    Howard et al., 2021), so by Ville's inequality the p-value is valid at every
    look, and the lifts it does not reject form a confidence sequence
    (asymptotically, with estimated variances: Waudby-Smith et al., 2024).
    """
    log_l = -0.5 * np.log1p(r) + r / (1.0 + r) * z**2 / 2.0
    return np.minimum(1.0, np.exp(-log_l))


def mixture_multiplier(r, alpha):
    """Half-width ``h`` of the confidence sequence in standard errors: the
    lifts in ``d -+ h * s`` are those the test at level ``alpha`` keeps."""
    return np.sqrt((1.0 + r) / r * (np.log1p(r) - 2.0 * np.log(alpha)))


def _covariate_rows(covariates, frame, n, index):
    if covariates is None:
        return {}
    if isinstance(covariates, (list, tuple)):
        return {c: inputs.column(c, "covariates", frame, n) for c in covariates}
    return {
        str(c): inputs.column(
            v if isinstance(v, pd.Series) else np.asarray(v),
            f"covariates[{c!r}]", None, n, index,
        )
        for c, v in covariates.items()
    }  # fmt: skip


def _balance(cov, names, unit_code, n_units, unit_arm):
    """Two-sample Kolmogorov-Smirnov test of each covariate, treatment vs control."""
    if not cov:
        return None
    rows = []
    count = np.bincount(unit_code, minlength=n_units)
    for c, v in cov.items():
        v = inputs.numbers(v, f"covariate {c!r}")
        per_unit = np.bincount(unit_code, weights=v, minlength=n_units) / count
        for t in range(1, len(names)):
            res = stats.ks_2samp(per_unit[unit_arm == t], per_unit[unit_arm == 0])
            rows.append((c, names[t], names[0], res.statistic, res.pvalue))
    out = pd.DataFrame(
        rows, columns=["covariate", "arm", "control", "statistic", "p_value"]
    )
    out["p_adjusted"] = adjust_p_values(out["p_value"].to_numpy(), "holm")
    return out
