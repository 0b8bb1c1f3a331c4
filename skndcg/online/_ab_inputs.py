"""Checked inputs of :func:`ab_test`: metrics, arms, units, covariates."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..evaluation._shared import (
    align_on,
    check_length,
    check_metric_columns,
    examples_text,
    metric_columns,
    metric_names,
    sorted_unique,
)
from ..utils._values import py


def column(x, name, data, n, index=None):
    """A 1-D array of ``n`` entries: ``x`` (a Series aligned on ``index`` by
    label, an array by position), or the column ``x`` of ``data``."""
    x = align_on(x, index, name, "values")
    if isinstance(x, str):
        if data is None or x not in data.columns:
            where = "" if data is None else f" {list(data.columns)}"
            raise ValueError(
                f"{name}={x!r} names no column of values{where}; pass an array "
                "with one entry per row, or a column name of a DataFrame values."
            )
        return data[x].to_numpy()
    values = x.to_numpy() if hasattr(x, "to_numpy") else x
    return check_length(
        values, n, f"{name} must hold one entry per row of values ({n} rows)"
    )


def metric_frame(values, metrics, named):
    """Metric columns as a float DataFrame, and whether they were chosen."""
    if isinstance(values, pd.DataFrame):
        if metrics is None:
            cols = metric_columns([values], named, "values")
        else:
            cols = metric_names(metrics)
            check_metric_columns(cols, values, "values")
        frame = values[cols]
    else:
        arr = np.asarray(values)
        if arr.ndim != 1:
            raise ValueError(
                "values must be one-dimensional (one metric value per row) or a "
                f"DataFrame of metric columns, got shape {arr.shape}."
            )
        frame = pd.DataFrame({getattr(values, "name", None) or "value": arr})
    try:
        out = frame.astype(np.float64)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"values must be numbers: {exc}") from None
    return out.reset_index(drop=True), metrics is not None


def _sorted_unique(labels):
    return [py(v) for v in sorted_unique(labels)]


def arms_and_units(arm, unit, control):
    """Arm names (control first), unit codes and names, and each unit's arm code."""
    for name, col in (("arm", arm), ("unit", unit)):
        missing = pd.isna(col)
        if missing.any():
            raise ValueError(
                f"{name} has {int(missing.sum())} missing value(s), first at row "
                f"{int(np.flatnonzero(missing)[0])}; every row needs an {name}."
            )
    names = _sorted_unique(arm)
    if len(names) < 2:
        raise ValueError(
            f"arm holds {len(names)} arm(s) ({examples_text(names)}); an A/B test "
            "needs a control and at least one treatment."
        )
    if control is None:
        control = names[0]
    elif control not in names:
        raise ValueError(f"control={control!r} is not an arm; the arms are {names}.")
    names = [control] + [a for a in names if a != control]
    arm_code = pd.Categorical(arm, categories=names).codes.astype(np.int64)
    unit_code, unit_names = pd.factorize(unit)
    n_units = len(unit_names)
    unit_arm = _one_per_unit(
        arm_code, unit_code, n_units, unit_names, 0.0,
        lambda n_bad, examples: (
            f"{n_bad} unit(s) appear in more than one arm, for example {examples}; "
            "each unit (the unit of randomisation) belongs to one arm."
        ),
    ).astype(np.int64)  # fmt: skip
    return names, unit_code, unit_names, unit_arm


def per_unit(x, name, unit_code, n_units, unit_names):
    """One number per unit from rows that repeat it (a pre-period metric)."""
    x = numbers(
        x, name, "; give every unit a value (for units without a past, for "
        "example the mean of the others)",
    )  # fmt: skip
    return _one_per_unit(
        x, unit_code, n_units, unit_names, 1e-9,
        lambda n_bad, examples: (
            f"{name} differs between the rows of {n_bad} unit(s), for example "
            f"{examples}; it is one value per unit, repeated on each of its rows."
        ),
    )  # fmt: skip


def numbers(x, name, fix=""):
    """``x`` as finite float64; ``fix`` ends the NaN message with a remedy."""
    try:
        x = np.asarray(x, dtype=np.float64)
    except (ValueError, TypeError):
        raise ValueError(f"{name} must hold numbers.") from None
    bad = ~np.isfinite(x)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} has {int(bad.sum())} NaN or infinite value(s), first "
            f"{x[i]} at row {i}{fix}."
        )
    return x


def _one_per_unit(x, unit_code, n_units, unit_names, rtol, complaint):
    """Each unit's value of ``x``, which its rows repeat (within ``rtol``).

    A unit whose rows differ raises ``complaint(n_bad_units, examples)``.
    """
    count = np.bincount(unit_code, minlength=n_units)
    mean = np.bincount(unit_code, weights=x, minlength=n_units) / count
    off = np.abs(x - mean[unit_code]) > rtol * np.maximum(1.0, np.abs(x))
    if off.any():
        bad = np.unique(unit_code[off])
        raise ValueError(
            complaint(bad.size, examples_text(np.asarray(unit_names)[bad]))
        )
    return mean


def unit_sums(v, nan_policy, metric, unit_code, n_units):
    """Per-unit sums of a metric's values and counts of the values summed."""
    nan = np.isnan(v)
    if np.isinf(v).any():
        i = int(np.flatnonzero(np.isinf(v))[0])
        raise ValueError(
            f"values of {metric!r} have {int(np.isinf(v).sum())} infinite "
            f"value(s), first {v[i]} at row {i}; every value must be finite."
        )
    if nan.any():
        if nan_policy == "raise":
            raise ValueError(
                f"values of {metric!r} have {int(nan.sum())} NaN value(s), first at "
                f"row {int(np.flatnonzero(nan)[0])}; pass nan_policy='omit' to "
                "leave those rows out of that metric (a query with nothing "
                "relevant, for example)."
            )
        v = np.where(nan, 0.0, v)
    y = np.bincount(unit_code, weights=v, minlength=n_units)
    n = np.bincount(unit_code, weights=(~nan).astype(np.float64), minlength=n_units)
    return y, n


def common_metrics(frame, chosen, counts, names):
    """Metrics measured in every arm; an error when there is none."""
    keep = [m for m in frame.columns if (counts[m] > 0).all()]
    dropped = [m for m in frame.columns if m not in keep]
    if not keep:
        has = {
            names[a]: [m for m in frame.columns if counts[m][a] > 0]
            for a in range(len(names))
        }
        raise ValueError(
            "the arms have no metric in common: "
            + "; ".join(f"arm {a!r} has {m}" for a, m in has.items())
            + ". Compare arms on a metric measured in each."
        )
    if dropped:
        missing = {
            m: [names[a] for a in np.flatnonzero(counts[m] == 0)] for m in dropped
        }
        text = ", ".join(f"{m!r} (no value in arm {a})" for m, a in missing.items())
        if chosen:
            raise ValueError(f"metrics without values in every arm: {text}.")
        warnings.warn(
            f"left out metrics not measured in every arm: {text}.",
            UserWarning,
            stacklevel=3,
        )
    return keep


def split_shares(split, names):
    """The intended share of units of each arm (in the order of ``names``)."""
    if split is None:
        return np.full(len(names), 1.0 / len(names))
    if isinstance(split, Mapping):
        if set(split) != set(names):
            raise ValueError(
                f"split must give a share to each arm {sorted(map(str, names))}, "
                f"got {dict(split)!r}."
            )
        shares = np.array([split[a] for a in names], dtype=np.float64)
    else:
        shares = np.asarray(split, dtype=np.float64)
        if shares.shape != (len(names),):
            raise ValueError(
                f"split must hold one share per arm ({len(names)}, in sorted arm "
                f"order) or map arms to shares, got {split!r}."
            )
        order = _sorted_unique(np.asarray(names, dtype=object))
        shares = shares[[order.index(a) for a in names]]
    if not np.isfinite(shares).all() or (shares <= 0).any():
        raise ValueError(f"split shares must be positive numbers, got {split!r}.")
    return shares / shares.sum()
