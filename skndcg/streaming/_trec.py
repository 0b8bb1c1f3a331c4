"""Scoring a TREC run larger than memory against its judgments, query by query."""

from functools import partial

import pandas as pd

from .._partial._driver import (
    finish,
    label_candidates,
    progress_bar,
    setup,
    sums_of,
    whole_queries,
)
from ..io import is_stream, join_run_qrels, read_trec_qrels, read_trec_run_chunks
from ..metrics import get_convention
from ..metrics._shared import check_side_inputs, parse_metric
from ..utils._args import check_flags, metric_names
from ..utils._counts import check_rows
from ._order import GroupedCheck


def score_trec_run(
    run,
    qrels,
    metrics,
    *,
    convention="trec_eval",
    all_judged=False,
    depth=None,
    popularity=None,
    batch_lines=1 << 20,
    progress=None,
    return_counts=False,
    **options,
):
    """Means of ranking metrics of a TREC run too large for memory.

    The judgments are read whole (they are small); the run is read once, in
    order, ``batch_lines`` lines at a time. Each query whose lines are all read
    is joined with its judgments as :func:`skndcg.io.join_run_qrels` does
    (judged documents not retrieved count, unjudged ones are not relevant, run
    queries without judgments are left out) and scored with
    :func:`skndcg.metrics.ranking_report`; the means are put together exactly as
    the metric functions compute them in memory. The measures that tell
    unjudged documents apart (``bpref``, ``infap``, ``unj@k``...) read them as
    ``skndcg score`` does: the join is ``unjudged="pool"`` (``"nan"`` under a
    convention other than trec_eval's) with ``nan_label="unjudged"``. The run
    is read twice when a measure needs the largest label of all (``err``
    without ``g_max``).

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
    popularity : dict or array-like, default=None
        The items' training popularity, for the per-user beyond-accuracy
        measures (``"novelty@10"``, ``"arp@10"``, ...), as in
        :func:`skndcg.metrics.grouped_ranking_scores`: each document id
        (docno) is the item id. Judged documents the run did not retrieve
        are rows too, so they need a count as well.
    batch_lines : int, default=1048576
        Lines read at a time; memory grows with it (plus the longest query).
    progress : bool or None, default=None
        Show a progress bar over bytes read (after a few seconds). ``None``:
        only when standard error is a terminal.
    **options
        Other keywords of :func:`skndcg.metrics.grouped_ranking_scores`.
    return_counts : bool, default=False
        Also return the number of queries each mean covers.

    Returns
    -------
    scores : dict
        Metric name (as given) to its mean over queries.
    counts : dict
        Metric name to the number of queries its mean covers; only with
        ``return_counts=True``.

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
    check_rows(batch_lines, "batch_lines")
    check_flags(all_judged=all_judged, return_counts=return_counts)
    for key in ("doc_id", "nan_score", "queries"):
        if key in options:
            raise TypeError(f"{key!r} is set by score_trec_run itself.")
    queries = "judged" if all_judged else "retrieved"
    kw = dict(options, convention=convention, nan_score="unretrieved", queries=queries)
    # The docno is the item id of the measures that read popularity.
    names = metric_names(metrics)
    reads = check_side_inputs(names, {"popularity=": popularity})
    cols = {
        "qid_col": "qid",
        "label_col": "y_true",
        "score_col": "y_score",
        "doc_col": "doc_id",
        "sample_weight_col": None,
        "item_col": "doc_id" if reads else None,
    }
    spec = setup(metrics, cols, None, kw, "the run", popularity=popularity)
    unjudged = "zero"
    if any(parse_metric(n).definition.reads_unjudged for n in spec.names):
        unjudged = get_convention(convention).labels.unjudged_rule()
        spec.columns["options"].setdefault("nan_label", "unjudged")
    where = str(run)
    reader = read_trec_run_chunks(run, chunk_lines=batch_lines)  # checks the path
    judged = read_trec_qrels(qrels)
    judged["qid"] = judged["qid"].astype(str)
    by_query = {q: rows for q, rows in judged.groupby("qid", sort=False)}
    join = partial(join_run_qrels, depth=depth, unjudged=unjudged)

    def pieces(reader, bar=None):
        """The joined rows of whole queries, in the run's order; then, with
        ``all_judged``, the judged queries the run never answers (only
        unretrieved rows, scored 0)."""
        answered = set()
        check = GroupedCheck(where, "qid", rows="run row")
        frames = (c[["qid", "doc_id", "score"]].astype({"qid": "str"}) for c in reader)
        for _, piece in whole_queries(frames, "qid", check, bar):
            keys = pd.unique(piece["qid"])
            answered.update(keys.tolist())
            wanted = [by_query[k] for k in keys if k in by_query]
            if wanted:
                yield join(piece, pd.concat(wanted)).to_frame()
        missing = [rows for q, rows in by_query.items() if q not in answered]
        if all_judged and missing:
            empty = pd.DataFrame({"qid": [], "doc_id": [], "score": []})
            yield join(empty, pd.concat(missing)).to_frame()

    if spec.needs_label_max:
        if is_stream(run):
            raise ValueError(
                f"{where} can be read only once, and one of {spec.names} needs the "
                "largest label of the whole run first; save the run to a file, "
                "or give the largest grade, e.g. 'err(g_max=4)'."
            )
        found = []
        for frame in pieces(reader):
            found += label_candidates(frame["y_true"].to_numpy())
        spec.know_label_max(found)
        reader = read_trec_run_chunks(run, chunk_lines=batch_lines)
    with progress_bar(None, progress) as bar:
        parts = [sums_of(frame, spec) for frame in pieces(reader, bar)]
    means, counts = finish(
        parts, spec,
        f"no query of {where} has judgments in {qrels}; do the query ids of the "
        "two files match?",
    )  # fmt: skip
    return (means, counts) if return_counts else means
