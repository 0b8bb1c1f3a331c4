"""``skndcg score``: score a TREC run against qrels, or a predictions file."""

import argparse
import math
import os
import sys

import numpy as np

from ..io import Chunked
from ..utils._number_text import number_or_nan
from . import _inputs, _language, _safety, _summary, _trec
from ._errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, integer
from ._output import fmt, render
from ._request import ScoreRequest

_CI_MIN_QUERIES = 10  # fewest queries --ci gives an interval for (as compare)

#: Metrics when ``--metrics`` is not given: trec_eval's most quoted ones
#: (map, ndcg, ndcg_cut_10, P_10, recall_100, recip_rank).
DEFAULT_METRICS = ("map", "ndcg", "ndcg@10", "p@10", "r@100", "mrr")
FORMATS = ("table", "md", "json", "csv", "trec")


def _threshold(text):
    name, sep, value = text.rpartition("=")
    number = number_or_nan(value)
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
            "1 a --fail-under threshold was missed, 2 usage or input error, "
            "130/143 interrupted (SIGINT/SIGTERM), 141 standard output closed."
        ),
    )
    score.add_argument(
        "input", metavar="RUN", help="TREC run, or predictions file ('-': stdin)"
    )
    score.add_argument("--qrels", metavar="QRELS", help="TREC qrels of the run")
    score.add_argument(
        "--model-qrels",
        metavar="QRELS",
        help="a model's (an LLM judge's) qrels of every query of the run; --qrels "
        "then holds human judgments of a random sample of queries, and the "
        "prediction-powered score is printed beside the two single-source ones",
    )
    for flag, what in (
        ("--qid", "query id column (default: qid)"),
        ("--label", "relevance label column (default: label)"),
        ("--score", "score column (default: score)"),
        ("--doc", "document id column (optional; breaks ties)"),
    ):
        score.add_argument(flag, metavar="COL", help=f"predictions: {what}")
    score.add_argument(
        "--metrics",
        metavar="METRIC",
        nargs="+",
        default=None,
        help="metric names such as ndcg ndcg@10 map mrr p@10 r@100 (trec_eval's "
        "and ir_measures' names too: ndcg_cut_10 P_10 nDCG@10)",
    )
    score.add_argument(
        "--convention",
        metavar="NAME",
        help="metric convention (default: trec_eval for a run with qrels, "
        "the library default for predictions)",
    )
    score.add_argument(
        "-c",
        "--all-judged",
        action="store_true",
        help="average over every judged query, retrieved or not (trec_eval -c)",
    )
    score.add_argument(
        "-M",
        "--depth",
        metavar="N",
        type=integer(),
        help="keep each query's N best retrieved documents (trec_eval -M N)",
    )
    score.add_argument(
        "--per-query",
        metavar="OUT.csv",
        help="write one row per query to a CSV (written whole or not at all); "
        "'-' writes it to stdout and the means to stderr",
    )
    score.add_argument(
        "--format", choices=FORMATS, default="table", help="output (default: table)"
    )
    score.add_argument(
        "--strict",
        action="store_true",
        help="exit with code 2 instead of scoring when a query is skipped, a run "
        "query has no judgments, a judged query has no results or a score cell "
        "is empty (also reads large files in memory to count them)",
    )
    score.add_argument(
        "--ci",
        action="store_true",
        help="add a 95%% bootstrap interval over queries (1000 resamples, seed 0; "
        "not given below 10 queries)",
    )
    score.add_argument(
        "--popularity",
        # (another name than the library's popularity=, which its messages
        # keep: trec_eval's refusal names the Python keyword)
        dest="popularity_file",
        metavar="FILE",
        help="the items' training counts, for the per-user beyond-accuracy "
        "measures (novelty@10, arp@10, aplt@10, aclt@10, long_tail_recall@10, "
        "serendipity@10): two columns a line, item id and count, separated by "
        "blanks, a tab or a comma; the item of a row is the run's docno (a "
        "predictions file's --doc column)",
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
    _trec.add_arguments(score)
    _safety.add_arguments(score)
    return score


def _score(args):
    from ..metrics.registry import parse as parse_metric

    if args.model_qrels is not None:  # (its own checks name --model-qrels)
        from ._ppi import run_two_sources

        return run_two_sources(args, list(args.metrics))
    _trec.check_format_flags(args, UsageError)
    if args.qrels is None:
        args = _inputs.default_columns(args)
    lines, rel_level = _trec.lines(args, UsageError)
    args = _with_popularity(args, lines).but(rel_level=rel_level)
    if args.num_docs is not None:
        lines = _trec.with_num_docs(lines, args.num_docs)
    texts = [ln for ln in lines if ln.length is not None]
    if texts and args.qrels is None:
        raise UsageError(
            f"{texts[0].trec_name} shows the judgments of a TREC run's documents: "
            "give the run with --qrels"
        )
    # relstring is printed per query only, as trec_eval prints it.
    per_query = args.query_eval or args.per_query is not None
    args = args.but(texts=tuple(texts) if per_query else ())
    asked = [a for a in [*args.measure, *args.metrics] if a.startswith("relstring")]
    if asked and texts and not per_query:  # (a nickname's relstring goes unsaid)
        _language.note(
            f"{texts[0].trec_name} is shown per query only (-q, or --per-query)"
        )
    # relstring tells the documents nobody judged from those judged negative.
    unjudged_used = args.qrels is not None and (
        bool(args.texts)
        or any(
            ln.metric is not None and parse_metric(ln.metric).definition.reads_unjudged
            for ln in lines
        )
    )
    args = args.but(unjudged_used=unjudged_used)
    # The counts named by -m are trec_eval's lines (a nickname's go unsaid).
    counted = [
        ln.shown for ln in lines
        if ln.metric is None and ln.length is None and ln.shown in args.measure
    ]  # fmt: skip
    if counted and args.format != "trec":
        _language.note(
            f"{', '.join(counted)}: trec_eval's counts are printed with --format "
            f"trec; --format {args.format} shows means (and n_queries)"
        )
    metrics = [ln.label for ln in lines if ln.metric is not None]
    counts_only = not metrics
    metrics = metrics or ["map"]  # the counts come with any evaluation
    # ndcg, dcg and ideal_dcg with trec_eval's custom gains, 11pt_avg with its
    # recall levels: a call of their own.
    gained = [ln for ln in lines if ln.own_call]
    plain = [m for m in metrics if m not in {ln.label for ln in gained}] or ["map"]
    lowered = {m.lower(): m for m in metrics}
    # -m's measures answer to their trec_eval names too (--fail-under P_10=0.3).
    lowered.update({ln.shown.lower(): ln.label for ln in lines if ln.metric})
    thresholds = []
    for name, value in args.fail_under:
        if name.lower() not in lowered:
            raise UsageError(
                f"--fail-under names {name!r}, which is not among the metrics {metrics}"
            )
        label = lowered[name.lower()]
        shown = next((ln.shown for ln in lines if ln.label == label), label)
        thresholds.append((label, value, shown))
    # The one door: io loads the inputs, or hands back a large file to stream
    # when only the means of plain measures are asked for (the counts, such
    # as num_ret, are sums of per-query rows that streaming does not keep).
    full = not counts_only and len(metrics) == len(lines) and not gained
    coded = _inputs.opened(args, stream=full and args.means_only())
    if isinstance(coded, Chunked):
        means, n_queries = _inputs.score_chunked(coded, args, metrics)
        if args.format == "trec":
            head = [] if args.measure else _head_lines()
            if not args.no_summary:
                print(_trec.render_means(head + lines, means, n_queries))
        else:
            print(render(args.format, *_as_shown(lines, metrics, means), n_queries))
        return _verdict(means, thresholds)
    return _in_memory(args, coded, lines, metrics, plain, gained, counts_only,
                      thresholds)  # fmt: skip


def _with_popularity(args, lines):
    """The request with ``--popularity``'s counts when a measure reads the item
    of each row and its training popularity; such a measure is refused
    without them, and by ``skndcg trec_eval`` (trec_eval has none)."""
    from ..metrics.registry import check_side_inputs

    names = [ln.metric for ln in lines if ln.metric is not None]
    trec_eval = args.caller == "trec_eval"
    given = {} if trec_eval else {"--popularity FILE": args.popularity_file}
    try:
        reads = check_side_inputs(
            names, given, hint=" (the items' training counts, lines 'ITEM COUNT'; "
            "a row's item is the run's docno)",
        )  # fmt: skip
    except ValueError as exc:
        raise UsageError(str(exc).rstrip(".")) from None
    if not reads:
        return args
    if trec_eval:
        raise UsageError(
            f"{reads[0]} reads the item of each row and its training "
            "popularity, which trec_eval has no measure for and no option to "
            "give: use skndcg score RUN --qrels QRELS --popularity FILE, or "
            "skndcg.metrics.grouped_ranking_scores(..., item_id=..., "
            "popularity=...) in Python"
        )
    if args.qrels is None and args.doc is None:
        raise UsageError(
            f"{reads[0]} reads the item of each row: name the predictions' item "
            "column with --doc COL"
        )
    from ._popularity import read_popularity

    return args.but(item_counts=read_popularity(args.popularity_file))


def _rows(table, keep):
    """The rows ``keep`` of a table of columns."""
    return {name: np.asarray(col)[keep] for name, col in table.items()}


def _in_memory(args, coded, lines, metrics, plain, gained, counts_only, thresholds):
    """Score the loaded rows ``coded``, print the means in ``--format`` and
    return the exit code."""
    qid, y_true, y_score = coded.qid, coded.y_true, coded.y_score
    names, doc_order, tag = coded.names, coded.doc_order, coded.tag
    options = _inputs.engine_options(args, coded)
    report, means = _trec.report((y_true, y_score, qid), plain, gained, options)
    summary = _summary.build(
        report, coded, trec=args.qrels is not None, all_judged=args.all_judged,
        judged_only=args.judged_only,
    )  # fmt: skip
    _summary.report(summary, strict=args.strict)
    codes = np.asarray(report["qid"], dtype=np.int64)
    if args.num_docs is not None:
        _trec.check_num_docs(args.num_docs, report, lambda g: names[codes[g]])
    if args.texts:
        cast = _inputs.get_convention(options["convention"]).cast_scores(y_score)
        for ln in args.texts:
            text = _trec.relstrings(qid, y_true, cast, doc_order, len(names), ln.length)
            report[ln.label] = text[codes]
    report["qid"] = names[codes]
    counted = _rows(report, report["skipped"] == "")
    cis = None
    if args.ci:
        from ..evaluation import bootstrap_ci

        cis = {}
        for m in metrics:
            values = np.asarray(counted[m], dtype=np.float64)
            values = values[~np.isnan(values)]
            if values.size < _CI_MIN_QUERIES:
                _language.note(
                    f"--ci: no interval for {m}: only {values.size} queries "
                    f"count, fewer than {_CI_MIN_QUERIES}; resampling so few "
                    "queries gives an interval far too narrow (one query gives "
                    "[mean, mean])."
                )
                cis[m] = (math.nan, math.nan)
                continue
            ci = bootstrap_ci(values, random_state=0)
            cis[m] = (ci.low, ci.high)
    if args.per_query is not None:
        import pandas as pd

        # Queries with nothing retrieved are not evaluated (trec_eval -q).
        shown = pd.DataFrame(_rows(report, report["skipped"] != "nothing retrieved"))
        _safety.write_per_query(shown, args.per_query)
    # trec_eval -c sums num_rel from the qrels, every judgment above 0 whatever
    # -l says.
    num_rel = int((y_true > 0).sum()) if args.all_judged else None
    if args.format == "trec":
        if not args.measure:  # skndcg's own lines: the run and query count too
            lines = _head_lines() + lines
        text = _trec.render(
            lines, counted, means, tag,
            per_query=args.query_eval or args.per_query is not None,
            num_rel=num_rel, summary=not args.no_summary,
        )  # fmt: skip
    else:
        shown = _as_shown(lines, [] if counts_only else metrics, means, cis)
        text = render(args.format, *shown, len(counted["qid"]))
    text = _summary.in_json(text, summary) if args.format == "json" else text
    if text:  # (trec_eval -n without -q prints nothing)
        print(text, file=sys.stderr if args.per_query == "-" else sys.stdout)
    return _verdict(means, thresholds)


def _as_shown(lines, metrics, means, cis=None):
    """``metrics``, their means and their intervals (or None) under the names
    shown: -m's measures under trec_eval's names, --metrics' as given."""
    names_of = {ln.label: ln.shown for ln in lines}
    as_shown = {names_of.get(m, m): v for m, v in means.items()}
    cis = None if cis is None else {names_of[m]: v for m, v in cis.items()}
    return [names_of[m] for m in metrics], as_shown, cis


def _head_lines():
    """``runid`` and ``num_q``, first: what --format trec adds to --metrics."""
    return [
        _trec.Line(n, None, n, (i - 2, 0)) for i, n in enumerate(("runid", "num_q"))
    ]


def _verdict(means, thresholds):
    """Exit code 1, with the reason on stderr, when a mean is below its floor."""
    failed = [
        f"{given} = {fmt(means[m])} < {value:g}"
        for m, value, given in thresholds
        if not means[m] >= value
    ]
    if failed:
        _language.note(f"below threshold: {'; '.join(failed)}")
        return EXIT_FAILED
    return EXIT_OK


def _spool(args, stack):
    """Copy inputs that are not regular files (``<(zcat run.gz)``), which the
    readers may read more than once, into a temporary folder removed when
    ``stack`` closes: the request that reads the copies, {copy: original}."""
    import tempfile
    from pathlib import Path

    copies, folder, paths = {}, None, {}
    flags = {"input": "RUN", "qrels": "--qrels", "model_qrels": "--model-qrels",
             "popularity_file": "--popularity"}  # fmt: skip
    if args.caller == "trec_eval":  # (its two files, as it names them)
        flags = {"qrels": "rel_info_file", "input": "results_file"}
    stdin = [flag for attr, flag in flags.items() if getattr(args, attr) == "-"]
    if len(stdin) > 1:
        raise UsageError(
            f"'-' (standard input) is given for {' and '.join(stdin)}: it can be "
            "read as one of them only; save the others to files"
        )
    for attr in flags:
        given = getattr(args, attr)
        path = "/dev/stdin" if given == "-" else given
        if path is None or os.path.isfile(path):
            paths[attr] = path
            continue
        from ..io import is_stream

        if not is_stream(path):
            continue  # files, and what the readers report
        if folder is None:
            folder = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="skndcg-score-")
            )
        copy = str(Path(folder) / f"{attr}-{Path(path).name}")
        _safety.copy_stream(
            path, copy, limit_mb=args.pipe_limit_mb, timeout=args.pipe_timeout
        )
        copies[copy] = str(given)
        paths[attr] = copy
    return args.but(**paths), copies


def run(args):
    """Run ``skndcg score`` with parsed arguments; returns the exit code."""
    import contextlib

    args = ScoreRequest.from_args(args, DEFAULT_METRICS)
    copies = {}
    try:
        with contextlib.ExitStack() as stack:
            args, copies = _spool(args, stack)
            return _score(args)
    except BrokenPipeError:
        raise  # stdout's reader went away: not an input error (see _safety)
    except (UsageError, *_safety.DATA_ERRORS) as exc:
        message = " ".join(str(exc).split())
        if isinstance(exc, OverflowError):
            inputs = " or ".join(str(p) for p in (args.input, args.qrels) if p)
            message = f"a number in {inputs} is beyond the 64-bit range: {message}"
        message = _safety.cli_hint(message)
        message = _inputs.with_swapped_hint(message, args)
        for copy, original in copies.items():  # name the files as given
            message = message.replace(copy, original)
        _language.error(message)
        return EXIT_USAGE
