"""``skndcg compare RUN RUN... --qrels QRELS``: runs side by side, with tests
(each scored as ``skndcg score`` scores it, then :func:`skndcg.evaluation.compare`)."""

import os

import numpy as np

from . import _inputs, _language, _safety, _trec
from ._errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, integer, number
from ._request import ScoreRequest

TESTS = ("paired_bootstrap", "randomization", "t", "wilcoxon")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")
FORMATS = {"md": "to_markdown", "latex": "to_latex", "json": "to_json"}  # their writers
DEFAULT_METRICS = ("map", "ndcg@10", "p@10", "mrr")


def add_parser(sub):
    """Add the ``compare`` sub-command."""
    cmp = sub.add_parser(
        "compare",
        help="compare TREC runs on the same queries: intervals and paired tests",
        description=(
            "Score several TREC runs against one qrels file (as skndcg score "
            "does) and compare each with the baseline (the first run unless "
            "--baseline names another) query by query: a bootstrap interval "
            "for every mean, the difference with its interval, a paired test "
            "and a multiple-comparison correction."
        ),
        epilog="Exit codes: 0 done, 1 a run is significantly below the baseline "
        "with --fail-on-loss, 2 usage or input error.",
    )
    cmp.add_argument(
        "runs", metavar="RUN", nargs="+", help="TREC run files (two or more)"
    )
    cmp.add_argument("--qrels", metavar="QRELS", required=True, help="TREC qrels")
    cmp.add_argument(
        "--metrics", metavar="METRIC", nargs="+", default=None,
        help=f"metric names (default: {' '.join(DEFAULT_METRICS)}); trec_eval's "
        "and ir_measures' names too",
    )  # fmt: skip
    cmp.add_argument(
        "-m", "--measure", metavar="MEASURE", action="append", default=[],
        help="trec_eval -m: a measure, family or nickname (repeatable)",
    )  # fmt: skip
    cmp.add_argument(
        "--baseline", metavar="RUN",
        help="the run every other one is compared with, by file name or path "
        "(default: the first)",
    )  # fmt: skip
    cmp.add_argument(
        "-c", "--all-judged", action="store_true",
        help="compare on every judged query; a run without results for one "
        "scores 0 there (trec_eval -c)",
    )  # fmt: skip
    cmp.add_argument(
        "--common-queries", action="store_true",
        help="compare on the queries every run answers, leaving the others out",
    )  # fmt: skip
    cmp.add_argument(
        "-M", "--depth", metavar="N", type=integer(),
        help="keep each query's N best documents (trec_eval -M)",
    )  # fmt: skip
    cmp.add_argument(
        "-l", "--rel-level", metavar="N", type=_trec._rel_level,
        help="smallest relevant judgment (trec_eval -l)",
    )  # fmt: skip
    cmp.add_argument("--convention", metavar="NAME", help="metric convention "
                     "(default: trec_eval)")  # fmt: skip
    cmp.add_argument("--test", choices=TESTS, default="paired_bootstrap",
                     help="paired test (default: paired_bootstrap)")  # fmt: skip
    cmp.add_argument("--correction", choices=CORRECTIONS, default="holm",
                     help="multiple-comparison correction (default: holm)")  # fmt: skip
    cmp.add_argument("--confidence", type=number("a number in (0, 1)", 0, 1),
                     default=0.95,
                     help="coverage of the intervals (default: 0.95)")  # fmt: skip
    cmp.add_argument("--n-resamples", type=integer(), default=10_000,
                     help="bootstrap resamples (default: 10000)")  # fmt: skip
    cmp.add_argument(
        "--min-queries", metavar="N", type=integer(0), default=10,
        help="fewest queries a metric needs for bootstrap intervals and "
        "p-values; below, no interval and the exact randomization test's "
        "p-values (default: 10; 0 gives the bootstrap numbers at any size)",
    )  # fmt: skip
    cmp.add_argument("--seed", type=integer(0, "an integer in [0, 2**32 - 1]",
                                            high=2**32 - 1), default=0,
                     help="seed of the resampling (default: 0)")  # fmt: skip
    cmp.add_argument("--format", choices=tuple(FORMATS), default="md",
                     help="output (default: md)")  # fmt: skip
    cmp.add_argument(
        "--fail-on-loss", action="store_true",
        help="exit with code 1 when a run is significantly below the baseline "
        "on a metric",
    )  # fmt: skip
    return cmp


def _names(runs):
    """A short, unique name per run: its file name, else its path."""
    base = [os.path.basename(str(r)) for r in runs]
    return base if len(set(base)) == len(base) else [str(r) for r in runs]


def _score_run(args, run, lines):
    """One run's per-query report (query names, not codes), a column per
    line (ndcg with custom gains and 11pt_avg with recall levels scored
    apart, as skndcg score does)."""
    import pandas as pd

    one = args.but(input=run, judged_only=False)
    coded = _inputs.opened(one)
    options = _inputs.engine_options(one, coded)
    plain = [ln.label for ln in lines if not ln.own_call] or ["map"]
    gained = [ln for ln in lines if ln.own_call]
    data = (coded.y_true, coded.y_score, coded.qid)
    report = pd.DataFrame(_trec.report(data, plain, gained, options)[0])
    report["qid"] = coded.names[report["qid"].to_numpy(dtype=np.int64)]
    return report[report["skipped"] == ""].reset_index(drop=True)


def _align(reports, names, args):
    """The reports on one set of queries, or a UsageError naming the queries
    some run lacks."""
    sets = [set(r["qid"]) for r in reports]
    common = set.intersection(*sets)
    if all(s == common for s in sets):
        return reports
    if not args.common_queries:
        lines = []
        union = set.union(*sets)
        for name, s in zip(names, sets, strict=True):
            missing = sorted(union - s)
            if missing:
                shown = ", ".join(map(str, missing[:10]))
                more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
                lines.append(f"{name} has no results for {shown}{more}")
        raise UsageError(
            "the runs answer different queries: " + "; ".join(lines) + ". Pass "
            "-c/--all-judged to score every judged query (0 where a run has no "
            "results, as trec_eval -c), or --common-queries to compare on the "
            f"{len(common)} queries every run answers"
        )
    return [r[r["qid"].isin(common)].reset_index(drop=True) for r in reports]


def _compare(args):
    from ..evaluation import compare

    if len(args.runs) < 2:
        raise UsageError("give two or more runs to compare")
    _safety.refuse_stdin([*(("RUN", r) for r in args.runs), ("--qrels", args.qrels)])
    request = ScoreRequest.from_args(args, DEFAULT_METRICS, input=None)
    lines, rel_level = _trec.lines(request, UsageError)
    lines = [ln for ln in lines if ln.metric]
    if not lines:
        raise UsageError("no metric to compare: the counts are not metrics")
    metrics = [ln.label for ln in lines]
    request = request.but(
        rel_level=rel_level,
        unjudged_used=any(
            _trec.parse_metric(ln.metric).definition.reads_unjudged for ln in lines
        ),
    )
    names = _names(args.runs)
    baseline = names[0]
    if args.baseline is not None:
        by_path = dict(zip(map(str, args.runs), names, strict=True))
        baseline = by_path.get(args.baseline, args.baseline)
        if baseline not in names:
            raise UsageError(
                f"--baseline {args.baseline!r} is not one of the runs {names}"
            )
    reports = [_score_run(request, run, lines) for run in args.runs]
    reports = _align(reports, names, args)
    shown = {ln.label: ln.shown for ln in lines}
    scores = {
        n: r[["qid", *metrics]].rename(columns=shown)
        for n, r in zip(names, reports, strict=True)
    }
    with _language.small_sample_notes():
        result = compare(
            scores, baseline=baseline, metrics=[shown[m] for m in metrics],
            test=args.test,
            correction=None if args.correction == "none" else args.correction,
            confidence=args.confidence, n_resamples=args.n_resamples,
            random_state=args.seed, min_queries=args.min_queries,
        )  # fmt: skip
    print(getattr(result, FORMATS[args.format])())
    frame = result.to_frame()
    losses = frame[(frame["model"] != baseline) & frame["significant"]]
    losses = losses[losses["diff"] < 0]
    if len(losses):
        # At the floor of the resamples, the p-value is below what they tell.
        resampled = args.test in ("paired_bootstrap", "randomization")
        floor = 2 / (args.n_resamples + 1) * (1 + 1e-9) if resampled else 0.0
        what = "; ".join(
            f"{row.model} {row.metric} {row.diff:+.4f} "
            f"(p{'<' if row.p_value <= floor else '='}{row.p_adjusted:.3g})"
            for row in losses.itertuples()
        )
        _language.note(f"significantly below {baseline}: {what}")
        if args.fail_on_loss:
            return EXIT_FAILED
    return EXIT_OK


def run(args):
    """Run ``skndcg compare`` with parsed arguments; returns the exit code."""
    try:
        return _compare(args)
    except BrokenPipeError:
        raise
    except (UsageError, *_safety.DATA_ERRORS) as exc:
        message = " ".join(str(exc).split())
        # The hint of the first run that looks like qrels.
        ones = (ScoreRequest(input=run, qrels=args.qrels) for run in args.runs)
        hinted = (_inputs.with_swapped_hint(message, one) for one in ones)
        message = next((text for text in hinted if text != message), message)
        _language.error(message)
        return EXIT_USAGE
