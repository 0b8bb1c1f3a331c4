"""Measure names and tensor kernels, read from the registry of :mod:`skndcg.metrics`
(its own grammar: both packages accept exactly the same names)."""

from __future__ import annotations

import importlib

from ..metrics import registry
from ..metrics._shared import check_unique

__all__ = ["blocks", "check_unique", "implementation", "parse", "tensor"]

parse = registry.parse


def tensor(measure):
    """The tensor kernel a :class:`~skndcg.metrics.registry.Measure` declares
    (imported on first use when it is named ``"module:function"``), or None."""
    kernel = measure.tensor
    if isinstance(kernel, str):
        module, _, name = kernel.partition(":")
        kernel = getattr(importlib.import_module(module), name)
    return kernel


def blocks(spec) -> bool:
    """Whether a parsed measure reads blocks of tied rows (exact expectations
    under ``ties="average"``) rather than rows one by one in rank order."""
    return spec.definition.block_kind is not None


def implementation(spec, *, cpu_fallback: bool = False):
    """The tensor kernel of a parsed measure, or None when it is computed on a
    CPU copy (a built-in without one, or any measure without one when the CPU
    fallback is asked for); otherwise a clear error."""
    m = spec.definition
    kernel = tensor(m)
    if kernel is not None or cpu_fallback or m.builtin:
        return kernel
    kind = "a numba-compiled" if m.compiled else "a plain Python"
    raise ValueError(
        f"measure {spec.measure!r} ({spec.name}) has no tensor implementation: "
        f"it is registered with {kind} per_query function, which runs on numpy "
        "arrays on the CPU, not on torch tensors. Pass cpu_fallback=True to "
        "compute it with skndcg.metrics on a CPU copy of the rows, or use "
        "skndcg.metrics.grouped_ranking_scores directly."
    )
