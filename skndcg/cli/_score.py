"""``skndcg score``: score a TREC run against qrels, or a predictions file."""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

from ._output import fmt, render

_CI_MIN_QUERIES = 10  # fewest queries --ci gives an interval for (as compare)

#: Metrics when ``--metrics`` is not given: trec_eval's most quoted ones
#: (map, ndcg, ndcg_cut_10, P_10, recall_100, recip_rank).
DEFAULT_METRICS = ("map", "ndcg", "ndcg@10", "p@10", "r@100", "mrr")
FORMATS = ("table", "md", "json", "csv", "trec")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line or its input files (exit code 2)."""


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _threshold(text):
    name, sep, value = text.rpartition("=")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not sep or not name or not math.isfinite(number):
        raise argparse.ArgumentTypeError(
            f"expected METRIC=VALUE such as ndcg@10=0.3, got {text!r}"
        )
    return name, number


def add_parser(sub):
    """Add the ``score`` sub-command to the command line's sub-parsers."""
    score = sub.add_parser(
        "score",
        help="score a TREC run against qrels, or a CSV/Parquet predictions file",
        description=(
            "Score a TREC run against its qrels (as trec_eval does: judged "
            "documents the run missed count, ties are broken by docno), or "
            "per-row predictions stored in a CSV or Parquet file."
        ),
        epilog=(
            f"Default metrics: {' '.join(DEFAULT_METRICS)}. Exit codes: 0 done, "
            "1 a --fail-under threshold was missed, 2 usage or input error."
        ),
    )
    score.add_argument("input", metavar="RUN", help="TREC run, or predictions file")
    score.add_argument("--qrels", metavar="QRELS", help="TREC qrels of the run")
    for flag, what in (
        ("--qid", "query id column"),
        ("--label", "relevance label column"),
        ("--score", "score column"),
        ("--doc", "document id column (optional; breaks ties)"),
    ):
        score.add_argument(flag, metavar="COL", help=f"predictions: {what}")
    score.add_argument(
        "--metrics",
        metavar="METRIC",
        nargs="+",
        default=list(DEFAULT_METRICS),
        help="metric names such as ndcg ndcg@10 map mrr p@10 r@100",
    )
    score.add_argument(
        "--convention",
        metavar="NAME",
        help="metric convention (default: trec_eval for a run with qrels, "
        "the library default for predictions)",
    )
    score.add_argument(
        "--all-judged",
        action="store_true",
        help="average over every judged query, retrieved or not (trec_eval -c)",
    )
    score.add_argument(
        "--depth",
        metavar="N",
        type=_positive_int,
        help="keep each query's N best retrieved documents (trec_eval -M N)",
    )
    score.add_argument(
        "--per-query", metavar="OUT.csv", help="write one row per query to a CSV"
    )
    score.add_argument(
        "--format", choices=FORMATS, default="table", help="output (default: table)"
    )
    score.add_argument(
        "--ci",
        action="store_true",
        help="add a 95%% bootstrap interval over queries (1000 resamples, seed 0; "
        "not given below 10 queries)",
    )
    score.add_argument(
        "--fail-under",
        metavar="METRIC=VALUE",
        nargs="+",
        action="extend",
        type=_threshold,
        default=[],
        help="exit with code 1 when a metric's mean is below VALUE",
    )
    return score


# ------------------------------------------------------------------ inputs


def _load(args):
    """Aligned inputs: qid, y_true, y_score, doc order (or None), names, tag, and
    whether each query's rows already come in descending doc order."""
    from ..io import _join, read_predictions, read_trec_qrels, read_trec_run

    columns = {"qid": args.qid, "label": args.label, "score": args.score}
    if args.qrels is not None:
        given = [f"--{k}" for k, v in {**columns, "doc": args.doc}.items() if v]
        if given:
            raise UsageError(f"{', '.join(given)} apply to predictions, not --qrels")
        from ..io import _fastjoin

        # Regular files are joined on their bytes; anything else (or an error
        # to report with its file and line) goes through the DataFrame readers.
        # With ties broken by document id, the rows come in descending docno
        # order and ties keep row order (see _options): no doc order is needed.
        by_docno = _convention(args, trec=True) in _DOCNO_TIES
        fast = _fastjoin.join_files(
            args.input, args.qrels, depth=args.depth, by_docno=by_docno,
            doc_order=not by_docno,
        )  # fmt: skip
        presorted = fast is not None and by_docno
        if fast is not None:
            coded, tag = fast
        else:
            run = read_trec_run(args.input)
            qrels = read_trec_qrels(args.qrels)
            coded = _join.join_codes(run, qrels, depth=args.depth)
            tag = str(run["tag"].iloc[-1])  # trec_eval keeps the last line's tag
        return (
            coded.qid, coded.y_true, coded.y_score, coded.doc_order, coded.names,
            tag, presorted,
        )  # fmt: skip
    missing = [f"--{k}" for k, v in columns.items() if v is None]
    if missing:
        raise UsageError(
            f"give --qrels QRELS for a TREC run, or {', '.join(missing)} to name "
            "the columns of a predictions file"
        )
    data = read_predictions(
        args.input, qid=args.qid, label=args.label, score=args.score, doc=args.doc
    )
    import pandas as pd

    codes, names = pd.factorize(data.qid, sort=True)
    qid = codes.astype(np.int64)
    y_score = data.y_score.copy()
    order = None
    if data.doc_id is not None:
        order = _join.docno_order(qid, y_score, pd.Series(data.doc_id, dtype="str"))
    if args.depth is not None:
        tie = order if order is not None else np.zeros(len(qid), dtype=np.int64)
        keep = _join._depth_cut(qid, y_score, tie, args.depth)
        y_score[~keep] = np.nan
    names = np.asarray(names, dtype=object)
    return qid, data.y_true, y_score, order, names, None, False


# The conventions that break score ties by document id.
_DOCNO_TIES = ("trec_eval", "pytrec_eval")


def _convention(args, trec):
    """The preset name used: the one given (in any spelling the library
    accepts), else trec_eval's for a TREC run."""
    from ..metrics._conventions import get_convention

    name = args.convention or ("trec_eval" if trec else None)
    return None if name is None else get_convention(name).name


def _options(args, y_score, doc_order, trec, presorted=False):
    convention = _convention(args, trec)
    options = {"convention": convention}
    # The engine options are passed only where they matter.
    if np.isnan(y_score).any():
        options["nan_score"] = "unretrieved"
    if args.all_judged:
        options["queries"] = "judged"
    if convention in _DOCNO_TIES:
        if presorted:
            # Each query's rows already are in descending doc order, the
            # unretrieved ones last: keeping tied rows in row order is
            # ordering them by docno, and the engine has nothing to reorder.
            from dataclasses import replace

            from ..metrics._conventions import PRESETS

            conv = replace(PRESETS[convention], ties="stable", doc_ties=False)
            options["convention"] = conv
        elif doc_order is not None:
            options["doc_id"] = doc_order
    return options


# ------------------------------------------------------------------ run


# Parquet files with more rows than this are streamed in row groups when only the
# means are asked for (no --per-query, --ci or --depth).
_STREAM_ROWS = 20_000_000


# TREC runs larger than this are scored query by query, in bounded memory, when
# only the means are asked for.
_STREAM_BYTES = 1 << 30


def _streamed_trec(args, metrics):
    """Means and query count of a large TREC run read in batches, or None."""
    if args.per_query or args.ci:
        return None
    try:
        if os.path.getsize(args.input) < _STREAM_BYTES:
            return None
    except OSError:
        return None  # the in-memory reader reports the problem
    from ..streaming._trec import stream_trec_run

    means, counts = stream_trec_run(
        args.input, args.qrels, metrics, convention=args.convention or "trec_eval",
        all_judged=args.all_judged, depth=args.depth,
    )  # fmt: skip
    return means, counts[metrics[0]]


def _streamed(args, metrics):
    """Means and query count of a large Parquet file read in batches, or None."""
    if args.qrels is not None:
        return _streamed_trec(args, metrics)
    if args.per_query or args.ci or args.depth is not None:
        return None
    if not str(args.input).lower().endswith((".parquet", ".pq")):
        return None
    if None in (args.qid, args.label, args.score):
        return None
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return None
    try:
        n_rows = pq.ParquetFile(args.input).metadata.num_rows
    except (OSError, ValueError):
        return None  # the in-memory reader reports the problem
    if n_rows < _STREAM_ROWS:
        return None
    from ..streaming._parquet import stream_parquet

    convention = _convention(args, trec=False)
    options = {"convention": convention, "nan_score": "unretrieved"}
    if args.all_judged:
        options["queries"] = "judged"
    doc = args.doc if convention in _DOCNO_TIES else None
    try:
        means, counts = stream_parquet(
            args.input, metrics, qid_col=args.qid, label_col=args.label,
            score_col=args.score, doc_col=doc, **options,
        )  # fmt: skip
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    return means, counts[metrics[0]]


def _score(args):
    from ..metrics._report import report_with_means

    metrics = list(dict.fromkeys(args.metrics))
    lowered = {m.lower(): m for m in metrics}
    thresholds = []
    for name, value in args.fail_under:
        if name.lower() not in lowered:
            raise UsageError(
                f"--fail-under names {name!r}, which is not among the metrics {metrics}"
            )
        thresholds.append((lowered[name.lower()], value))
    streamed = _streamed(args, metrics)
    if streamed is not None:
        means, n_queries = streamed
        print(render(args.format, metrics, means, None, n_queries, None, None))
        return _verdict(means, thresholds)
    qid, y_true, y_score, doc_order, names, tag, presorted = _load(args)
    if args.qrels is not None and not args.all_judged and np.isnan(y_score).all():
        raise UsageError(
            f"no query of {args.input} has judgments in {args.qrels}; do the "
            "query ids of the two files match?"
        )
    options = _options(
        args, y_score, doc_order, trec=args.qrels is not None, presorted=presorted
    )
    # One evaluation gives the per-query rows and the means.
    report, means = report_with_means(y_true, y_score, qid, metrics=metrics, **options)
    report["qid"] = names[report["qid"].to_numpy(dtype=np.int64)]
    counted = report[report["skipped"] == ""]
    cis = None
    if args.ci:
        from ..evaluation import bootstrap_ci

        cis = {}
        for m in metrics:
            values = counted[m].dropna().to_numpy()
            if values.size < _CI_MIN_QUERIES:
                # A bootstrap over a handful of queries is far too narrow.
                print(
                    f"skndcg score: --ci: no interval for {m}: only {values.size} "
                    f"queries count, fewer than {_CI_MIN_QUERIES}; resampling so "
                    "few queries gives an interval far too narrow (one query gives "
                    "[mean, mean]).",
                    file=sys.stderr,
                )
                cis[m] = (math.nan, math.nan)
                continue
            ci = bootstrap_ci(values, random_state=0)
            cis[m] = (ci.low, ci.high)
    if args.per_query is not None:
        try:
            # Queries with nothing retrieved are not evaluated (trec_eval -q).
            shown = report[report["skipped"] != "nothing retrieved"]
            shown.to_csv(args.per_query, index=False)
        except OSError as exc:
            raise UsageError(f"cannot write --per-query file: {exc}") from None
    per_query = counted if args.format == "trec" and args.per_query else None
    print(render(args.format, metrics, means, cis, len(counted), per_query, tag))
    return _verdict(means, thresholds)


def _verdict(means, thresholds):
    """Exit code 1, with the reason on stderr, when a mean is below its floor."""
    failed = [
        f"{m} = {fmt(means[m])} < {value:g}"
        for m, value in thresholds
        if not means[m] >= value
    ]
    if failed:
        print(f"skndcg score: below threshold: {'; '.join(failed)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _spool(args, stack):
    """Copy inputs that are not regular files (a pipe, as from ``<(zcat run.gz)``)
    into a temporary folder, since the readers may need to read a file more than
    once; return {copy: original} for the messages. The folder is made only when
    needed and removed when ``stack`` closes."""
    import shutil
    import tempfile
    from pathlib import Path

    from ..io._text import is_stream

    copies, folder = {}, None
    for attr in ("input", "qrels"):
        path = getattr(args, attr)
        if not is_stream(path):  # files, and what the readers report
            continue
        if folder is None:
            folder = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="skndcg-score-")
            )
        copy = str(Path(folder) / f"{attr}-{Path(path).name}")
        with open(path, "rb") as src, open(copy, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        copies[copy] = str(path)
        setattr(args, attr, copy)
    return copies


def run(args):
    """Run ``skndcg score`` with parsed arguments; returns the exit code."""
    import contextlib

    copies = {}
    try:
        with contextlib.ExitStack() as stack:
            copies = _spool(args, stack)
            return _score(args)
    except (UsageError, ValueError, TypeError, OSError, ImportError) as exc:
        message = " ".join(str(exc).split())
        for copy, original in copies.items():  # name the files as given
            message = message.replace(copy, original)
        print(f"skndcg score: error: {message}", file=sys.stderr)
        return EXIT_USAGE
