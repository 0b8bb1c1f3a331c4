"""``ranking_scores``: the means over queries of registry measures, on tensors."""

from contextlib import contextmanager

import numpy as np
import torch

from ..metrics._shared import Gain, Means, TieRule, evaluate
from ..utils._args import metric_names
from ._names import blocks, check_unique, implementation, parse
from ._ops import segment_sum
from ._options import resolve
from ._ranked import rank, tie_order


def _check(preds, target, indexes, doc_id, opts):
    tensors = [("preds", preds), ("target", target), ("indexes", indexes)]
    if doc_id is not None:
        tensors.append(("doc_id", doc_id))
    shapes = {tuple(t.shape) for _, t in tensors}
    if len(shapes) > 1:
        raise ValueError(
            f"{', '.join(n for n, _ in tensors)} must have the same shape, got "
            f"{' and '.join(str(tuple(t.shape)) for _, t in tensors)}."
        )
    if preds.is_complex():
        raise ValueError(f"preds must be real, got {preds.dtype}.")
    for name, t in tensors[2:]:
        if t.is_floating_point() or t.is_complex() or t.dtype == torch.bool:
            raise ValueError(f"{name} must hold integer ids, got {t.dtype}.")
    if preds.numel() == 0:
        raise ValueError("preds is empty; at least one row is required.")
    if not bool(torch.isfinite(preds).all()):
        if bool(torch.isinf(preds).any()):
            raise ValueError("preds contains infinite values.")
        if not opts.unretrieved:
            raise ValueError(
                f"preds contains {int(torch.isnan(preds).sum())} NaN value(s); "
                "pass nan_score='unretrieved' to read them as judged rows the "
                "system did not retrieve."
            )
    if target.is_floating_point() and not bool(torch.isfinite(target).all()):
        if bool(torch.isinf(target).any()):
            raise ValueError("target contains infinite values.")
        if not opts.unjudged:
            raise ValueError(
                f"target contains {int(torch.isnan(target).sum())} NaN value(s); "
                "a NaN label can mark a row nobody judged: pass "
                "nan_label='unjudged'."
            )


def ranking_scores(preds, target, indexes, metrics, *, doc_id=None, **options):
    """Means over queries of several ranking measures, on the tensors' device.

    The tensor counterpart of :func:`skndcg.metrics.grouped_ranking_scores`:
    the same measure names, conventions and options, the same per-query values
    in float64 (to the last bit but where the user guide says otherwise; the
    means agree to their final rounding), and float32 inputs computed in
    float32 (integer and bool scores in float64, as there). Queries are
    ranked all at once: one sort by query id and score, then scatter-adds
    over rows, tie blocks and queries; nothing loops over queries in Python
    (only over ranks, for ERR and tied blocks).

    Parameters
    ----------
    preds, target, indexes : torch.Tensor
        Scores, relevance labels and integer query ids, one per row, of the
        same shape (flattened). With ``nan_score="unretrieved"`` a NaN score
        marks a judged row the system did not retrieve; with
        ``nan_label="unjudged"`` a NaN label marks a retrieved row nobody
        judged (bpref, judged@k and rbp_resid use them; to every other
        measure they are not relevant).
    metrics : str or sequence of str
        Any name of the measure registry of :mod:`skndcg.metrics`, with its
        aliases, cut-off and parameters: ``"ndcg@10"``, ``"map"`` (``"ap"``),
        ``"mrr"``, ``"p@5"``, ``"r@20"``, ``"hit@10"``, ``"idcg"``,
        ``"err@10"``, ``"nerr@10"``, ``"rbp(p=0.9)"``, ``"rbp_resid"``,
        ``"rprec"``, ``"bpref"``, ``"judged@10"``.
    doc_id : torch.Tensor of integers, default=None
        Document id of each row: the conventions that break ties by document
        id (``"trec_eval"``, ``"pytrec_eval"``) and ``ties="docid"`` use it.
    **options
        ``convention`` (any preset of :mod:`skndcg.metrics`), ``gain``
        (``"linear"``, ``"exponential"`` or a callable of the labels tensor),
        ``ties``, ``empty``, ``discount`` (``"log2"``, an array or a callable
        of the 1-based ranks), ``rel_threshold``, ``nan_score``,
        ``nan_label``, ``queries``, ``ap_denominator`` and ``p_denominator``,
        as in :func:`skndcg.metrics.grouped_ranking_scores`. ``cpu_fallback``
        (default False): a measure added with
        :func:`skndcg.metrics.define_measure` has no tensor implementation and
        raises; with ``cpu_fallback=True`` it is computed by
        :mod:`skndcg.metrics` on a CPU copy of the rows.
        ``num_threads``
        (default ``"auto"``): torch's intra-op threads for this computation
        on CPU tensors, restored after; ``"auto"`` uses one thread below
        2**20 rows and torch's setting above, None always torch's setting.
        Every step is a vectorised operation over all rows, split across
        those threads and joined again: for a validation batch the joins
        cost more than the second thread saves (see the user guide).

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
    opts = resolve(**options)
    names = metric_names(metrics)
    out, fallback = {}, []
    device = preds.device if isinstance(preds, torch.Tensor) else None
    n_rows = preds.numel() if isinstance(preds, torch.Tensor) else 0
    with intra_op_threads(opts.num_threads, device, n_rows):
        for name, sp, values, empty, r in per_query(
            preds, target, indexes, names, doc_id, opts
        ):
            if values is None:
                fallback.append(name)
            else:
                out[name] = _mean(values, empty, r, opts, sp)
    if fallback:
        ev = _on_cpu(preds, target, indexes, doc_id, fallback, opts.given)
        dtype = compute_dtype(preds)
        for name, value in zip(fallback, ev.means(), strict=True):
            out[name] = torch.tensor(float(value), dtype=dtype, device=preds.device)
    return {name: out[name] for name in names}


# Below this many rows, "auto" computes on one thread: each of the few dozen
# operations then costs less than splitting it and joining the threads
# (benchmarks/bench_torch.py, docs/performance.md).
AUTO_ONE_THREAD_ROWS = 2**20


def compute_dtype(preds):
    """float32 for float32 (and narrower) scores, else float64 (as
    :mod:`skndcg.metrics` reads integer and bool scores)."""
    if preds.is_floating_point() and preds.dtype != torch.float64:
        return torch.float32
    return torch.float64


@contextmanager
def intra_op_threads(n, device, n_rows):
    """torch's intra-op threads set to ``n`` for this computation on the CPU,
    and restored after (with OpenMP, the setting is the calling thread's)."""
    if isinstance(n, str):  # "auto"
        n = 1 if n_rows < AUTO_ONE_THREAD_ROWS else None
    if n is None or device is None or device.type != "cpu":
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def per_query(preds, target, indexes, names, doc_id, opts):
    """``(name, spec, values, empty, ranked)`` per measure: one value per query
    (queries in the order of their sorted ids) and which are empty; ``values``
    is None for a measure left to the CPU fallback."""
    specs = [parse(m) for m in names]
    check_unique(names, specs)
    impls = [implementation(sp, cpu_fallback=opts.cpu_fallback) for sp in specs]
    for name, t in (("preds", preds), ("target", target), ("indexes", indexes),
                    ("doc_id", doc_id)):  # fmt: skip
        if not isinstance(t, torch.Tensor) and not (name == "doc_id" and t is None):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}.")
    preds, target, indexes = preds.flatten(), target.flatten(), indexes.flatten()
    doc_id = None if doc_id is None else doc_id.flatten()
    _check(preds, target, indexes, doc_id, opts)
    conv = opts.conv
    dtype = compute_dtype(preds)
    y = target.to(dtype)
    unjudged = None
    if target.is_floating_point() and opts.unjudged:
        isnan = torch.isnan(y)
        if bool(isnan.any()):
            unjudged = isnan
            y = torch.where(isnan, torch.zeros_like(y), y)
    refused = unjudged  # NaN labels: what a measure that refuses them sees
    # Under trec_eval's label rule a negative judgment is "in the pool, not
    # judged": unjudged to the measures that use unjudged rows, as in
    # skndcg.metrics; infAP tells it apart from the rows nobody judged.
    pooled = conv.labels.pooled(y)
    if pooled is not None:
        unjudged = pooled if unjudged is None else unjudged | pooled
    y = conv.check_labels(y, xp=torch, arg="target",
                          integer_input=not target.is_floating_point())  # fmt: skip
    conv.gain.check_labels(y, "target")
    scores = preds if preds.is_floating_point() else preds.to(dtype)
    scores = conv.score_dtype.cast(scores, torch)
    rule = opts.tie_rule(doc_id is not None)
    ctx = _Context(scores, y, indexes, doc_id, unjudged, conv, rule, pooled)
    # Integer labels >= 0 (the label rules refused or clipped negatives)
    # need no checks before the ideal DCG's label histogram.
    ctx.int_labels = not target.is_floating_point() and bool(y.min() >= 0)
    # Measures cut off at k read only the blocks that start above k: rank each
    # group to the deepest cut-off it needs.
    ks = [conv.k_none if sp.k is None else sp.k for sp in specs]
    depth = {}
    for sp, k, impl in zip(specs, ks, impls, strict=True):
        if impl is None:
            continue
        key = _group(sp)
        deep = k is None or key == "rows" or depth.get(key, 0) is None
        depth[key] = None if deep else max(depth.get(key, 0), k)
    label_max = float(y.max())
    tied = {}
    for name, sp, k, impl in zip(names, specs, ks, impls, strict=True):
        if impl is None:
            yield name, sp, None, None, None
            continue
        r = ctx.ranked(_group(sp), depth[_group(sp)])
        if sp.definition.unjudged == "refuse" and refused is not None:
            raise ValueError(
                f"{sp.name} cannot use unjudged rows (NaN labels); drop them, or "
                "judge them."
            )
        params = dict(sp.params)
        family_opts = dict(
            dtype=dtype, discount=opts.discount, label=sp.name, params=params,
            ap_denominator=conv.ap_denominator, p_denominator=conv.p_denominator,
            label_max=label_max,
        )  # fmt: skip
        values, empty = impl(r, k, family_opts)
        if conv.empty_rule.by_label_sum:
            empty = segment_sum(r.all_label, r.all_query, r.n_queries) == 0
        elif empty is None:
            if sp.definition.empty_when == "never":
                empty = torch.zeros_like(r.n_relevant, dtype=torch.bool)
            else:
                empty = r.n_relevant == 0
        if r.mixed_ties is not None and bool(r.mixed_ties.any()):
            if not tied:  # every per-query measure of the call, at once
                rows = [s.name for s, i in zip(specs, impls, strict=True)
                        if i is not None and _group(s) == "rows"]  # fmt: skip
                tied = _tied_on_cpu(preds, target, indexes, doc_id, rows,
                                    r.mixed_ties, label_max, opts)  # fmt: skip
            at, raw, flags = tied[sp.name]
            values = values.index_put((at,), raw.to(values.device, values.dtype))
            empty = empty.index_put((at,), flags.to(empty.device))
        yield name, sp, values, empty, r


def _group(spec):
    if not blocks(spec):
        return "rows"
    return "binary" if spec.definition.binary else "graded"


class _Context:
    """The rankings one call needs, each made once: blocks of gains, blocks
    of relevance, and rows one by one for the per-query measures."""

    def __init__(self, scores, y, indexes, doc_id, unjudged, conv, rule, pooled):
        self.scores, self.y, self.indexes = scores, y, indexes
        self.doc_id, self.unjudged, self.conv, self.rule = doc_id, unjudged, conv, rule
        self.pooled = pooled
        self.done = {}
        self.perms = {}

    def ranked(self, group, depth):
        if group in self.done:
            return self.done[group]
        y, conv = self.y, self.conv
        if group == "graded":
            g, gain = conv.gain.gains(y, torch, arg="target"), conv.gain
        else:
            g, gain = y, Gain.of("linear")
        rule = self.rule
        if group == "rows" and rule.average:
            # tied rows reach per-query measures this way
            rule = TieRule.of("pessimistic")
        if rule not in self.perms:
            self.perms[rule] = tie_order(
                rule, labels=self.y, doc_id=self.doc_id, preds=self.scores,
                indexes=self.indexes,
            )  # fmt: skip
        perm = self.perms[rule]
        args = [self.scores, y, g, self.indexes, self.unjudged, self.pooled]
        if perm is not None:
            args = [None if a is None else a[perm] for a in args]
        scores, y, g, indexes, unjudged, pooled = args
        self.done[group] = rank(
            scores, y, g, indexes, gain=gain,
            average=rule.average,
            rel_threshold=conv.rel_threshold, depth=depth, unjudged=unjudged,
            pooled=pooled,
            relevance=group != "graded", int_labels=self.int_labels,
            tie_queries=group == "rows" and self.rule.average,
        )  # fmt: skip
        return self.done[group]


def _tied_on_cpu(preds, target, indexes, doc_id, names, mixed, label_max, opts):
    """Per-query measures under ``ties="average"``, on the queries whose tied
    rows they can tell apart (other labels or judgments): name to ``(queries,
    values, empty flags)``, the numpy engine's, so that both follow the
    engine's one rule for such ties."""
    ids = torch.unique(indexes)  # query i of the tensors is ids[i]
    rows = torch.isin(indexes, ids[mixed])
    # The gain and discount of the DCG family (which may be torch code) are
    # not read by these measures.
    given = {k: v for k, v in opts.given.items() if k not in ("gain", "discount")}
    ev = _on_cpu(preds, target, indexes, doc_id, names, given, rows=rows,
                 label_max=label_max)  # fmt: skip
    order = np.argsort(np.asarray(ev.grouping.keys), kind="stable")
    at = torch.nonzero(mixed).squeeze(1)
    return {
        name: (
            at,
            torch.as_tensor(ev.raw[order, j]),
            torch.as_tensor(ev.empty[order, j]),
        )
        for j, name in enumerate(names)
    }


def _on_cpu(preds, target, indexes, doc_id, names, options, rows=None, **extra):
    """The evaluation of ``names`` by :mod:`skndcg.metrics` on a CPU copy of
    the rows (those flagged in ``rows`` when given): the one route off the
    tensors."""

    def cpu(t, dtype=None):
        t = (t if rows is None else t[rows]).detach().cpu()
        return (t if dtype is None else t.to(dtype)).numpy()

    if doc_id is not None:
        extra["doc_id"] = cpu(doc_id)
    return evaluate(cpu(target, torch.float64), cpu(preds, torch.float64),
                    cpu(indexes), names, **options, **extra)  # fmt: skip


def _mean(values, empty, r, opts, spec):
    """The mean over queries, by the engine's rules (``Means``)."""
    conv = opts.conv

    def error():
        return (
            f"{int(empty.sum())} query(ies) have no relevant item, so {spec.name} "
            "is undefined for them (empty='error'); pass empty='skip', 'zero' or "
            "'one' to handle such queries."
        )

    counted = torch.ones_like(empty)
    if opts.retrieved_only:
        counted &= r.n_retrieved > 0
    if conv.empty.skips:
        counted &= ~empty
    else:
        values = conv.empty.apply(values, empty, torch, error)
    means = Means.of_values([spec], [values], [counted], torch)
    return means.result(conv, stacklevel=4, xp=torch)[0]
