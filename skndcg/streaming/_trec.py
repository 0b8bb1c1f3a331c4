"""Scoring a TREC run larger than memory against its judgments, query by query."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._partial._means import N_SUMS, averaging, combine, metric_names, partial_sums
from ..io import join_run_qrels, read_trec_qrels, read_trec_run_chunks
from ._order import GroupedCheck
from ._parquet import _progress_bar, _run_starts


def _chunks(reader):
    """The run's lines as frames of at most ``batch_lines`` rows, in file order,
    from :func:`skndcg.io.read_trec_run_chunks` (the rules, values and errors
    of :func:`skndcg.io.read_trec_run`)."""
    first = 0
    for chunk in reader:
        frame = pd.DataFrame(
            {"qid": chunk["qid"].to_numpy(dtype=object), "doc_id": chunk["doc_id"],
             "score": chunk["score"].to_numpy()}
        )  # fmt: skip
        frame.attrs["path"] = chunk.attrs["path"]
        yield first, frame
        first += len(frame)


def score_trec_run(
    run,
    qrels,
    metrics,
    *,
    convention="trec_eval",
    all_judged=False,
    depth=None,
    batch_lines=1 << 20,
    progress=None,
    **options,
):
    """Means of ranking metrics of a TREC run too large for memory.

    The judgments are read whole (they are small); the run is read once, in
    order, ``batch_lines`` lines at a time. Each query whose lines are all read
    is joined with its judgments as :func:`skndcg.io.join_run_qrels` does
    (judged documents not retrieved count, unjudged ones are not relevant, run
    queries without judgments are left out) and scored with
    :func:`skndcg.metrics.ranking_report`; the means are put together exactly as
    the metric functions compute them in memory.

    Parameters
    ----------
    run, qrels : str or path-like
        The TREC run (``qid Q0 docno rank score tag``) and qrels files; ``.gz``
        is read transparently. The run's lines must be grouped by query (each
        query's lines together), which is checked as the file is read.
    metrics : str or sequence of str
        Metric names, as in :func:`skndcg.metrics.grouped_ranking_scores`.
    convention : str or None, default="trec_eval"
        The metric convention; ties go by document id, descending, with the
        trec_eval presets.
    all_judged : bool, default=False
        Average over every judged query (trec_eval ``-c``): a judged query the
        run does not answer scores 0.
    depth : int or None, default=None
        Keep only each query's ``depth`` best documents (trec_eval ``-M``).
    batch_lines : int, default=1048576
        Lines read at a time; memory grows with it (plus the longest query).
    progress : bool or None, default=None
        Show a progress bar over bytes read (after a few seconds). ``None``:
        only when standard error is a terminal.
    **options
        Other keywords of :func:`skndcg.metrics.grouped_ranking_scores`.

    Returns
    -------
    scores : dict
        Metric name (as given) to its mean over queries.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from skndcg.streaming import score_trec_run
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     run = pathlib.Path(tmp) / "run.txt"
    ...     _ = run.write_text("q1 Q0 d1 1 2.0 r\\nq1 Q0 d2 2 1.0 r\\n")
    ...     qrels = pathlib.Path(tmp) / "qrels.txt"
    ...     _ = qrels.write_text("q1 0 d2 1\\nq1 0 d3 1\\n")
    ...     scores = score_trec_run(run, qrels, ["map", "p@2"], batch_lines=1)
    >>> {name: round(value, 4) for name, value in scores.items()}
    {'map': 0.25, 'p@2': 0.5}
    """
    return stream_trec_run(
        run, qrels, metrics, convention=convention, all_judged=all_judged,
        depth=depth, batch_lines=batch_lines, progress=progress, **options,
    )[0]  # fmt: skip


def stream_trec_run(
    run, qrels, metrics, *, convention="trec_eval", all_judged=False, depth=None,
    batch_lines=1 << 20, progress=None, **options,
):  # fmt: skip
    """:func:`score_trec_run`, also returning the number of queries each mean covers."""
    names = metric_names(metrics)
    if isinstance(batch_lines, bool) or not isinstance(batch_lines, int | np.integer):
        raise TypeError(f"batch_lines must be an int >= 1, got {batch_lines!r}.")
    if batch_lines < 1:
        raise ValueError(f"batch_lines must be >= 1, got {batch_lines!r}.")
    for key in ("doc_id", "nan_score", "queries"):
        if key in options:
            raise TypeError(f"{key!r} is set by score_trec_run itself.")
    where = str(run)
    reader = read_trec_run_chunks(run, chunk_lines=batch_lines)  # checks the path
    judged = read_trec_qrels(qrels)
    judged["qid"] = judged["qid"].astype(str)
    by_query = {q: rows for q, rows in judged.groupby("qid", sort=False)}
    queries = "judged" if all_judged else "retrieved"
    rules = averaging(convention, options.get("empty"))
    kw = dict(options, convention=convention, nan_score="unretrieved", queries=queries)
    parts: list[np.ndarray] = []
    answered: set = set()

    def score(frame):
        keys = pd.unique(frame["qid"])
        answered.update(keys.tolist())
        wanted = [by_query[k] for k in keys if k in by_query]
        if not wanted:
            return
        data = join_run_qrels(frame, pd.concat(wanted), depth=depth)
        _add(parts, data, names, rules, queries, kw)

    check = GroupedCheck(where, "qid")
    bar = _progress_bar(None, progress)
    carry = None
    carry_first = 0  # run line (counting result lines, from 0) of carry's first row
    try:
        for first, frame in _chunks(reader):
            n_new = len(frame)
            if carry is not None and len(carry):
                first = carry_first
                frame = pd.concat([carry, frame], ignore_index=True)
            starts = _run_starts(frame["qid"].to_numpy())
            done = int(starts[-1])
            keys = np.asarray(frame["qid"].to_numpy()[starts[:-1]], dtype=object)
            check.add(keys, first + starts[:-1])
            score(frame.iloc[:done])
            carry, carry_first = frame.iloc[done:], first + done
            if bar is not None:
                bar.update(n_new)
        if carry is not None and len(carry):
            key = np.asarray(carry["qid"].to_numpy()[:1], dtype=object)
            check.add(key, np.array([carry_first]))
            score(carry)
    finally:
        if bar is not None:
            bar.close()
    if all_judged:
        # Judged queries the run never answers: only unretrieved rows, scored 0.
        missing = [rows for q, rows in by_query.items() if q not in answered]
        if missing:
            empty = pd.DataFrame({"qid": [], "doc_id": [], "score": []})
            data = join_run_qrels(empty, pd.concat(missing), depth=depth)
            _add(parts, data, names, rules, queries, kw)
    if not parts:
        raise ValueError(
            f"no query of {where} has judgments in {qrels}; do the query ids of "
            "the two files match?"
        )
    means = combine(parts, names, rules, weighted=False)
    total = np.sum(np.asarray(parts, dtype=np.float64), axis=0)
    return means, {name: int(total[N_SUMS * j + 2]) for j, name in enumerate(names)}


def _add(parts, data, names, rules, queries, kw):
    from ..metrics import ranking_report

    report = ranking_report(
        data.y_true, data.y_score, data.qid, metrics=names, doc_id=data.doc_id, **kw
    )
    parts.append(partial_sums(report, names, rules, queries=queries))
