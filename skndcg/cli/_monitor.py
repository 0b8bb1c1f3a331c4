"""``skndcg monitor``: a ranking metric per time window, with alerts on drops."""

import sys

from ._errors import EXIT_FAILED as EXIT_ALERT
from ._errors import EXIT_OK, EXIT_USAGE, UsageError, integer, number

TIME_UNITS = ("s", "ms", "us", "ns")  # as metric_over_time's time_unit

FORMATS = ("table", "csv", "json")
_SHOWN = ["window", "metric", "n_queries", "value", "low", "high", "baseline",
          "change", "p_adjusted", "alert"]  # fmt: skip


_fraction = number("a number in [0, 1)", 0, 1, low_included=True)


def add_parser(sub):
    """Add the ``monitor`` sub-command to the command line's sub-parsers."""
    p = sub.add_parser(
        "monitor",
        help="a ranking metric per time window of a log, with alerts on drops",
        description=(
            "Compute ranking metrics per time window of a logged CSV or Parquet "
            "file (one row per query and candidate), compare each window with a "
            "baseline and flag drops that are significant after correction and "
            "larger than a relative threshold."
        ),
        epilog=(
            "Exit codes: 0 no alert, 1 at least one alert (in the last window "
            "only with --alert-on last), 2 bad arguments or input."
        ),
    )
    p.add_argument(
        "log", metavar="LOG", help="CSV (comma, tab, ; or |; gzip) or Parquet file"
    )
    p.add_argument("--time", required=True, metavar="COL", help="time stamp column")
    p.add_argument(
        "--time-unit", choices=TIME_UNITS, default=None,
        help="unit of a numeric time column, read as time since 1970-01-01 UTC "
        "(required for numbers: none is guessed)",
    )  # fmt: skip
    p.add_argument(
        "--time-format", metavar="FORMAT",
        help="strptime format of a text time column, such as '%%d/%%m/%%Y %%H:%%M' "
        "(needed for dates whose day and month the column cannot tell apart)",
    )  # fmt: skip
    p.add_argument("--qid", metavar="COL", help="default: qid")
    p.add_argument("--label", metavar="COL", help="default: label")
    p.add_argument("--score", metavar="COL", help="default: score")
    p.add_argument("--freq", default="5min", help="window length (default: 5min)")
    p.add_argument(
        "--metrics", nargs="+", default=["ndcg@10"], metavar="NAME",
        help="measure names (default: ndcg@10)",
    )  # fmt: skip
    p.add_argument(
        "--baseline", choices=("trailing", "week", "previous"), default="trailing",
        help="earlier windows not held out as drops, the same time in earlier "
        "weeks, or the windows just before (default: trailing)",
    )  # fmt: skip
    p.add_argument(
        "--baseline-windows", type=integer(), default=1, metavar="N",
        help="windows (or weeks) pooled into the baseline (default: 1)",
    )  # fmt: skip
    p.add_argument(
        "--threshold", type=_fraction, default=0.05,
        help="smallest relative drop that alerts (default: 0.05)",
    )  # fmt: skip
    p.add_argument("--alpha", type=_fraction, default=0.05, help="default: 0.05")
    p.add_argument(
        "--correction", choices=("holm", "bonferroni", "fdr_bh", "none"),
        default="holm",
    )  # fmt: skip
    p.add_argument("--convention", default=None, help="metric convention preset")
    p.add_argument(
        "--empty-windows", choices=("error", "keep"), default="error",
        help="a window with no queries is an error, or a row with NaN values",
    )  # fmt: skip
    p.add_argument("--alert-on", choices=("any", "last"), default="any")
    p.add_argument("--format", choices=FORMATS, default="table")


def run(args):
    """Run ``skndcg monitor``; returns the exit code."""
    from ..evaluation import metric_over_time
    from ..io import read_columns
    from ._inputs import DEFAULT_COLUMNS, columns_hint
    from ._language import error
    from ._safety import refuse_stdin

    named = {a: getattr(args, a) or DEFAULT_COLUMNS[a] for a in DEFAULT_COLUMNS}
    defaulted = [f"--{a}" for a in DEFAULT_COLUMNS if getattr(args, a) is None]
    # The other options are metric_over_time's keywords of the same name.
    own = {"command", "log", "time", *DEFAULT_COLUMNS, "alert_on", "format"}
    kwargs = {k: v for k, v in vars(args).items() if k not in own}
    try:
        refuse_stdin([("LOG", args.log)])
        try:
            data = read_columns(
                args.log,
                list(dict.fromkeys([args.time, *named.values()])),
                numbers={a: named[a] for a in ("label", "score")},
            )
        except ValueError as exc:
            # (the hint names the flags whose default column is missing)
            lacking = str(exc).partition("; the file has")[0]
            hinted = [f for f in defaulted if repr(DEFAULT_COLUMNS[f[2:]]) in lacking]
            if hinted and "no column" in lacking:
                raise ValueError(f"{exc} {columns_hint(hinted)}") from None
            raise
        out = metric_over_time(
            named["label"], named["score"], named["qid"], args.time, data=data, **kwargs
        )
    except (ValueError, TypeError, OSError, UsageError) as exc:
        # (the library names the time column; the file is the caller's)
        error(f"{args.log}: {exc}" if "time column" in str(exc) else exc)
        return EXIT_USAGE
    if args.format == "csv":
        sys.stdout.write(out.to_csv(index=False))
    elif args.format == "json":
        sys.stdout.write(out.to_json(orient="records", date_format="iso") + "\n")
    else:
        print(out[_SHOWN].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    flagged = out["alert"]
    if args.alert_on == "last":
        flagged = flagged[out["window"] == out["window"].max()]
    if flagged.any():
        hits = out.loc[flagged[flagged].index]
        for _, row in hits.iterrows():
            print(
                f"skndcg monitor: alert: {row['metric']} {row['value']:.4f} in the "
                f"window from {row['window']}, {-100 * row['change']:.1f}% below "
                f"its baseline {row['baseline']:.4f}",
                file=sys.stderr,
            )
        return EXIT_ALERT
    return EXIT_OK
