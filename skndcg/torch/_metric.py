"""``ranking_metric`` (functional) and the torchmetrics ``RankingMetric``."""

from __future__ import annotations

import warnings

import torch

from ._names import BINARY, FAMILIES, parse
from ._ranked import rank

#: Conventions available on tensors: their rules, as in skndcg.metrics.
_CONVENTIONS = {
    "skndcg": {"empty": "skip", "free": True},
    "sklearn": {"empty": "zero", "free": False},
}
_OPTIONS = {
    "gain": ("linear", "exponential"),
    "ties": ("average", "stable"),
    "empty": ("skip", "zero", "one", "error"),
    "nan_score": ("error", "unretrieved"),
    "queries": ("retrieved", "judged"),
    "ap_denominator": ("relevant", "min_k_relevant"),
    "p_denominator": ("k", "min_k_items"),
}
_DEFAULTS = {
    "gain": "linear",
    "ties": "average",
    "nan_score": "error",
    "queries": "retrieved",
    "ap_denominator": "relevant",
    "p_denominator": "k",
}


def resolve_options(convention=None, discount="log2", rel_threshold=None, **options):
    """Check the options against the convention; return the full set."""
    name = "skndcg" if convention is None else str(convention).lower()
    if name not in _CONVENTIONS:
        raise ValueError(
            f"convention={convention!r} is not available on tensors; expected None "
            f"or one of {sorted(_CONVENTIONS)} (the other presets need "
            "skndcg.metrics)."
        )
    rules = _CONVENTIONS[name]
    out = dict(_DEFAULTS, empty=rules["empty"])
    for key, value in options.items():
        if key not in _OPTIONS:
            raise TypeError(
                f"unexpected option {key}={value!r}; expected one of "
                f"{sorted([*_OPTIONS, 'convention', 'discount', 'rel_threshold'])}."
            )
        if value is None:
            continue
        if value not in _OPTIONS[key]:
            raise ValueError(
                f"{key}={value!r} is not valid; expected one of {list(_OPTIONS[key])}."
            )
        if not rules["free"] and value != out[key]:
            raise ValueError(
                f"{key}={value!r} conflicts with convention={name!r}, which fixes "
                f"{key}={out[key]!r}; drop one of the two."
            )
        out[key] = value
    if not rules["free"] and (
        rel_threshold is not None or not isinstance(discount, str)
    ):
        raise ValueError(f"convention={name!r} fixes the discount and rel_threshold.")
    out.update(discount=discount, rel_threshold=rel_threshold)
    return out


def _check(preds, target, indexes, opts):
    for name, t in (("preds", preds), ("target", target), ("indexes", indexes)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}.")
    if not (preds.shape == target.shape == indexes.shape):
        raise ValueError(
            "preds, target and indexes must have the same shape, got "
            f"{tuple(preds.shape)}, {tuple(target.shape)} and {tuple(indexes.shape)}."
        )
    if not preds.is_floating_point():
        raise ValueError(f"preds must be floating point, got {preds.dtype}.")
    if indexes.is_floating_point() or indexes.dtype == torch.bool:
        raise ValueError(f"indexes must hold integer query ids, got {indexes.dtype}.")
    if preds.numel() == 0:
        raise ValueError("preds is empty; at least one row is required.")
    if not bool(torch.isfinite(preds).all()):
        if bool(torch.isinf(preds).any()):
            raise ValueError("preds contains infinite values.")
        if opts["nan_score"] != "unretrieved":
            raise ValueError(
                f"preds contains {int(torch.isnan(preds).sum())} NaN value(s); "
                "pass nan_score='unretrieved' to read them as judged rows the "
                "system did not retrieve."
            )
    if target.is_floating_point() and not bool(torch.isfinite(target).all()):
        raise ValueError("target contains NaN or infinite values.")
    low = target.min()
    if bool(low < 0):
        raise ValueError(
            f"target has negative labels (min {low.item()!r}); labels must be >= 0."
        )


def ranking_scores(preds, target, indexes, metrics, **options):
    """Means over queries of several ranking measures, on the tensors' device.

    The tensor counterpart of :func:`skndcg.metrics.grouped_ranking_scores`:
    the same measure names, conventions and options, the same per-query values
    to the last bit in float64 (the means agree to their final rounding), and
    float32 inputs computed in float32. Queries are ranked all at once: a
    stable sort by score and one by query id, then scatter-adds over rows, tie
    blocks and queries; nothing loops over queries in Python.

    Parameters
    ----------
    preds, target, indexes : torch.Tensor
        Scores, relevance labels (>= 0) and integer query ids, one per row, of
        the same shape (flattened). With ``nan_score="unretrieved"`` a NaN score
        marks a judged row the system did not retrieve.
    metrics : sequence of str
        Measure names: ``"ndcg@10"``, ``"dcg@5"``, ``"map"`` (``"ap"``),
        ``"mrr"`` (``"rr"``), ``"p@5"``, ``"r@20"``, ``"hit@10"``.
    **options
        ``convention`` (None, ``"skndcg"`` or ``"sklearn"``), ``gain``,
        ``ties`` (``"average"`` or ``"stable"``), ``empty``, ``discount``,
        ``rel_threshold``, ``nan_score``, ``queries``, ``ap_denominator``
        (``"relevant"`` or ``"min_k_relevant"``) and ``p_denominator``, as in
        :func:`skndcg.metrics.grouped_ranking_scores`.

    Returns
    -------
    scores : dict
        Measure name (as given) to a 0-d tensor on ``preds``' device; NaN with
        an ``UndefinedMetricWarning`` when every query is skipped.

    Examples
    --------
    >>> import torch
    >>> from skndcg.torch import ranking_scores
    >>> preds = torch.tensor([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], dtype=torch.float64)
    >>> target = torch.tensor([1, 0, 2, 0, 1, 1])
    >>> indexes = torch.tensor([1, 1, 1, 2, 2, 2])
    >>> scores = ranking_scores(preds, target, indexes, ["ndcg@2", "mrr", "p@2"])
    >>> {name: round(float(value), 4) for name, value in scores.items()}
    {'ndcg@2': 0.3835, 'mrr': 0.75, 'p@2': 0.5}
    """
    opts = resolve_options(**options)
    preds, target, indexes = preds.flatten(), target.flatten(), indexes.flatten()
    _check(preds, target, indexes, opts)
    dtype = torch.float64 if preds.dtype == torch.float64 else torch.float32
    measures = [parse(m) for m in metrics]
    # Measures cut off at k read only the blocks that start above k: rank each
    # group (graded, binary) to the deepest cut-off it needs.
    depth = {}
    for ms in measures:
        key = ms.family in BINARY
        k = None if ms.k is None or depth.get(key, 0) is None else ms.k
        depth[key] = None if k is None else max(depth.get(key, 0), k)
    ranked = {}
    out = {}
    for name, ms in zip(metrics, measures, strict=True):
        binary = ms.family in BINARY
        key = binary
        if key not in ranked:
            ranked[key] = rank(
                preds,
                target,
                indexes,
                gain="linear" if binary else opts["gain"],
                ties=opts["ties"],
                rel_threshold=opts["rel_threshold"],
                dtype=dtype,
                depth=depth[key],
            )
        r = ranked[key]
        values, empty = FAMILIES[ms.family](
            r, ms.k, dict(opts, dtype=dtype, label=ms.name)
        )
        out[name] = _mean(values, empty, r, opts, name)
    return out


def _mean(values, empty, r, opts, name):
    counted = torch.ones_like(empty)
    if opts["queries"] == "retrieved":
        counted &= r.n_retrieved > 0
    rule = opts["empty"]
    if rule == "error" and (empty & counted).any():
        raise ValueError(
            f"{int((empty & counted).sum())} query(ies) have no relevant item for "
            f"{name} (empty='error')."
        )
    if rule == "skip":
        counted &= ~empty
    else:
        fill = torch.zeros_like(values) if rule == "zero" else torch.ones_like(values)
        values = torch.where(empty, fill, values)
    n = counted.sum()
    if int(n) == 0:
        from sklearn.exceptions import UndefinedMetricWarning

        warnings.warn(
            f"{name}: no query left to average (all skipped); the result is NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return torch.tensor(float("nan"), dtype=values.dtype, device=values.device)
    total = torch.where(counted, values, torch.zeros_like(values)).sum()
    return total / n.to(values.dtype)
