"""Checks of plain arguments every door shares: yes/no flags, metric names,
paths."""

import os
from collections.abc import Iterable

import numpy as np


def check_flags(**flags):
    """Raise unless every flag, given under its argument's name, is a bool (a
    numpy bool included): text such as ``"no"`` would otherwise read as yes."""
    for name, value in flags.items():
        if not isinstance(value, bool | np.bool_):
            raise TypeError(f"{name} must be True or False, got {value!r}.")


def metric_names(metrics, kinds=Iterable):
    """``metrics``, one metric name or a ``kinds`` of names, as a list; raise
    unless it names at least one."""
    if not isinstance(metrics, (str, kinds)):
        raise TypeError(
            "metrics must be a metric name such as 'ndcg@10' or a list of names, "
            f"got {metrics!r} ({type(metrics).__name__})."
        )
    names = [metrics] if isinstance(metrics, str) and metrics else list(metrics)
    if not names:
        raise ValueError(f"metrics must name at least one metric, got {metrics!r}.")
    return names


def as_path(path, what):
    """``path`` as ``os.fspath`` gives it; raise naming ``what`` unless it is one."""
    try:
        return os.fspath(path)
    except TypeError:
        raise TypeError(
            f"{what} must be a path (str or os.PathLike), got {path!r}."
        ) from None
