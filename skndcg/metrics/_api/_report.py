"""Per-query breakdown of the grouped metrics."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...utils._args import check_flags, metric_names
from ...utils._docstrings import with_references
from ...utils._values import py
from .._catalogue._names import MetricSpec, check_unique, parse_metric
from .._conventions import call_options, pick
from .._core import _blocks as K
from .._core._engine import evaluate
from .._core._side import check_call_side
from ._ranking import REFERENCES


@with_references(REFERENCES)
def ranking_report(
    y_true,
    y_score,
    qid,
    *,
    metrics=("ndcg@10",),
    gain=None,
    discount="log2",
    ties=None,
    empty=None,
    sample_weight=None,
    convention=None,
    rel_threshold=None,
    ap_denominator=None,
    p_denominator=None,
    doc_id=None,
    nan_score=None,
    queries=None,
    nan_label=None,
    by=None,
    return_means=False,
    item_id=None,
    popularity=None,
):
    """One row per query: sizes, DCG and ideal DCG, and every requested metric.

    The breakdown to debug a grouped score with: which queries pull the mean down,
    which ones were skipped and why. The mean of a metric column over the rows that
    are not skipped (weighted by ``weight`` when given) is what the matching
    ``grouped_*_score`` function returns under the default ``"mean"`` weighting.

    Parameters
    ----------
    y_true, y_score, qid : array-like of shape (n_samples,)
        Labels, scores and query ids, as in
        :func:`~skndcg.metrics.grouped_ndcg_score`.
    metrics : str or sequence of str, default=("ndcg@10",)
        Metric names (``"ndcg@10"``, ``"map@5"``, ``"mrr"``, ``"p@5"``, ...). For
        each ``ndcg@k`` (or ``dcg@k``) the columns ``dcg@k`` and ``idcg@k`` are
        added.
    gain, discount, ties, empty, sample_weight, convention, rel_threshold
        As in :func:`~skndcg.metrics.grouped_ranking_scores`.
    ap_denominator, p_denominator : str, default=None
        As in :func:`~skndcg.metrics.grouped_ranking_scores`.
    doc_id, nan_score, queries, nan_label : default=None
        As in :func:`~skndcg.metrics.grouped_ranking_scores`.
    by : array-like of shape (n_samples,), mapping or callable, default=None
        Segment of each query, added as a ``segment`` column: one label per
        row (constant within a query), a mapping from query id, or a rule
        such as :func:`skndcg.evaluation.history_segments`.
        ``skndcg.evaluation.compare(reports, by="segment")`` then compares
        models within each segment.
    return_means : bool, default=False
        Also return the mean of each metric, from the same evaluation (the
        rows are read and ranked once).
    item_id, popularity : default=None
        Items of the rows and their training popularity, for the
        beyond-accuracy measures, as in
        :func:`~skndcg.metrics.grouped_ranking_scores`.

    Returns
    -------
    report : pandas.DataFrame
        One row per query in canonical order (sorted by query id), with columns
        ``qid``, ``n_items``, ``n_relevant`` (with ``nan_score="unretrieved"``
        also ``n_retrieved`` and ``n_relevant_retrieved``: the rows with a score),
        then per metric its value (NaN when
        the query is skipped) and, for the DCG family, ``dcg@k`` and ``idcg@k``;
        ``weight`` when ``sample_weight`` is given; and ``skipped``: empty when the
        query counts, else why it was left out.
    means : dict of str to float
        Only with ``return_means=True``: each metric's value as
        :func:`~skndcg.metrics.grouped_ranking_scores` returns it for the same
        arguments.

    {references}

    Examples
    --------
    >>> from skndcg.metrics import ranking_report
    >>> report = ranking_report([3, 2, 0, 0, 0], [0.1, 0.9, 0.5, 0.3, 0.2],
    ...                         ["a", "a", "a", "b", "b"], metrics="ndcg@3")
    >>> report[["qid", "n_items", "dcg@3", "idcg@3", "ndcg@3"]].round(4)
      qid  n_items   dcg@3  idcg@3  ndcg@3
    0   a        3  3.5000  4.2619  0.8212
    1   b        2  0.0000  0.0000     NaN
    >>> report["skipped"].tolist()
    ['', 'no relevant item: ideal DCG@3 is 0']
    >>> report, means = ranking_report([3, 2, 0, 0, 0], [0.1, 0.9, 0.5, 0.3, 0.2],
    ...                                ["a", "a", "a", "b", "b"],
    ...                                metrics="ndcg@3", return_means=True)
    >>> round(means["ndcg@3"], 4)
    0.8212
    """
    check_flags(return_means=return_means)
    report, means = report_with_means(
        y_true, y_score, qid, metrics=metrics, sample_weight=sample_weight,
        doc_id=doc_id, with_means=bool(return_means),
        side={"item_id": item_id, "popularity": popularity}, **pick(locals()),
    )  # fmt: skip
    if by is not None:
        report = _with_segment(report, by, qid)
    return (report, means) if return_means else report


def report_with_means(
    y_true, y_score, qid, *, metrics=("ndcg@10",), sample_weight=None, doc_id=None,
    with_means=True, label_max=None, frame=True, side=None, **options,
):  # fmt: skip
    """:func:`ranking_report` and the means of its metrics (or None), from one
    evaluation; ``options`` as in :func:`ranking_report`. ``label_max``: the
    largest label of the whole data, when these rows are one piece of it (see
    :func:`~skndcg.metrics._core._labels.label_max_of`); ``side``: the side
    inputs of the beyond-accuracy measures (``item_id``, ``popularity``);
    ``frame=False``: the report's columns as a dict of arrays (no pandas)."""
    opts = call_options(**options)
    names = metric_names(metrics)
    specs = [parse_metric(m) for m in names]
    check_unique(names, specs)
    check_call_side(specs, side)  # (as asked, before the additions below)
    # Add the DCG and ideal DCG behind every member of the DCG family.
    extras = dict.fromkeys(
        MetricSpec(kind, sp.k)
        for sp in specs
        if sp.measure in ("ndcg", "dcg")
        for kind in (K.DCG, K.IDCG)
    )
    all_specs = [*specs, *(sp for sp in extras if sp not in specs)]
    ev = evaluate(
        y_true, y_score, qid, all_specs, opts, sample_weight=sample_weight,
        doc_id=doc_id, label_max=label_max, side=side,
    )  # fmt: skip
    grouping = ev.grouping
    data = {
        "qid": grouping.keys,
        "n_items": grouping.sizes.astype(np.int64),
        "n_relevant": ev.n_relevant,
    }
    if opts.unretrieved:
        data["n_retrieved"] = ev.n_retrieved
        data["n_relevant_retrieved"] = ev.n_relevant_retrieved
    # dcg@k, idcg@k first, then the metrics in the order asked.
    for j in [*range(len(names), len(all_specs)), *range(len(names))]:
        sp = all_specs[j]
        label = names[j] if j < len(names) else sp.name
        data[label] = ev.raw[:, j] if sp.measure in ("dcg", "idcg") else ev.values[:, j]
    if ev.weights is not None:
        data["weight"] = ev.weights
    reasons = np.full(grouping.n_groups, "", dtype=object)
    if ev.convention.empty.skips:
        for j in range(len(names) - 1, -1, -1):
            mask = ev.empty[:, j]
            if mask.any():
                reasons[mask] = ev.convention.empty_rule.reason(specs[j])
    reasons[ev.excluded] = "nothing retrieved"
    data["skipped"] = reasons
    if frame:
        import pandas as pd  # here, not at import: scoring alone never needs it

        data = pd.DataFrame(data)
    if not with_means:
        return data, None
    # The asked metrics alone (not the report's extra columns), warning at
    # ranking_report's caller.
    means = ev.means(depth=2, first=len(names))
    return data, {n: float(v) for n, v in zip(names, means, strict=True)}


def _with_segment(report, by, qid):
    """``report`` with a ``segment`` column: each query's label from ``by``
    (as :func:`ranking_report` documents it)."""
    import pandas as pd

    qids = report["qid"].to_numpy()
    if isinstance(by, (Mapping, pd.Series)):
        table = pd.Series(dict(by.items()), dtype=object)
        labels = table.reindex(pd.Index(qids)).to_numpy()
    elif callable(by):
        labels = np.asarray(by(qids.copy()))
        if labels.shape != qids.shape:
            raise ValueError(
                f"the segment rule by={by!r} returned shape {labels.shape} for "
                f"{qids.shape[0]} queries; a rule returns one label per query."
            )
    else:
        rows, q = np.asarray(by), np.asarray(qid)
        if rows.shape != q.shape:
            raise ValueError(
                f"by must hold one label per row ({q.shape[0]} rows), a mapping "
                f"from query id to label or a rule, got shape {rows.shape}."
            )
        frame = pd.DataFrame({"qid": q, "by": rows})
        varies = frame.groupby("qid", sort=False)["by"].nunique(dropna=False)
        if (varies > 1).any():
            bad = [py(x) for x in varies.index[varies > 1][:5]]
            raise ValueError(
                f"by varies within the queries {bad}; give every row of a query "
                "the same segment."
            )
        table = frame.drop_duplicates("qid").set_index("qid")["by"]
        labels = table.reindex(pd.Index(qids)).to_numpy()
    missing = pd.isna(labels)
    if missing.any():
        bad = [py(x) for x in qids[missing][:5]]
        raise ValueError(f"by gives no segment for the queries {bad}.")
    out = report.copy()
    out["segment"] = labels
    return out
