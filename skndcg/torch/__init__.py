"""Ranking measures on torch tensors, for validation inside a training loop.

- :func:`ranking_scores`: means over queries of any measures of
  :mod:`skndcg.metrics`, computed on the tensors' device with vectorised
  segment operations (no Python loop over queries).
- :class:`RankingMetric`: the same as a ``torchmetrics.Metric``
  (``update(preds, target, indexes)``, ``compute()``, ``reset()``), usable in
  PyTorch Lightning's ``validation_step`` and under DDP.

Needs torch (and torchmetrics for :class:`RankingMetric`):
``pip install 'skndcg[torch]'``; install torch first from PyTorch's index for
the build your machine needs.
"""

try:
    import torch as _torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised without torch
    raise ImportError(
        "skndcg.torch needs torch, which is not installed; install it with "
        "`pip install 'skndcg[torch]'` (torch's CPU or CUDA build from "
        "https://pytorch.org first)."
    ) from exc

from ._metric import ranking_scores


def __getattr__(name):
    if name == "RankingMetric":
        from ._module import build

        return build()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), "RankingMetric"})


__all__ = ["RankingMetric", "ranking_scores"]
