"""The ``skndcg`` command line."""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from ._errors import EXIT_USAGE, integer


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr, exit code 2."""

    def error(self, message):
        self.exit(
            EXIT_USAGE,
            f"{self.prog}: error: {message} (see {self.prog} --help)\n",
        )


def _version() -> str:
    from .. import __version__

    return __version__


def _build_parser() -> argparse.ArgumentParser:
    from ..demo import DEFAULT_OUT

    parser = _Parser(
        prog="skndcg",
        description="Group-aware ranking evaluation and model selection.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    demo = sub.add_parser(
        "demo",
        help="tune a LightGBM ranker on MovieLens-style data and compare baselines",
        description=(
            "Build one ranking query per user and month, tune "
            "QueryRanker(LGBMRanker) with GridSearchCV over folds drawn by the "
            "hold-out's protocol, and compare it on the held-out queries, on "
            "sampled candidates or the whole catalogue, with the strongest of "
            "four baselines, with intervals over queries and over users."
        ),
    )
    source = demo.add_mutually_exclusive_group()
    source.add_argument(
        "--data",
        metavar="PATH",
        help="MovieLens ratings file or extracted folder (ml-100k, ml-1m, ml-latest*)",
    )
    source.add_argument(
        "--fetch",
        metavar="NAME",
        help="download and cache an official release, e.g. ml-latest-small",
    )
    demo.add_argument(
        "--out",
        metavar="DIR",
        default=DEFAULT_OUT,
        help=f"folder for results and plots (default: {DEFAULT_OUT})",
    )
    demo.add_argument(
        "--quick", action="store_true", help="smaller data and grid (< 1 minute)"
    )
    demo.add_argument(
        "--max-ratings",
        metavar="N",
        type=integer(0),
        default=200_000,
        help="keep a random subset of users with at most N ratings; 0 keeps all "
        "(default: 200000)",
    )
    demo.add_argument(
        "--candidates",
        "--negatives",
        dest="negatives",
        choices=("full", "uniform", "popularity", "both"),
        default="full",
        help="full (the default) ranks every eligible item of the catalogue for "
        "every query: a two-stage ranker (item-kNN candidates, LightGBM "
        "reranker) tuned by full-catalogue cross-validation against baselines "
        "that rank the whole catalogue; uniform, popularity or both run the "
        "sampled tables instead (unrated candidates drawn uniformly or by "
        "popularity before the month); --negatives is an alias",
    )
    demo.add_argument(
        "--protocol",
        choices=("global-time", "leave-last-n", "user-fraction"),
        default="global-time",
        help="which queries are held out, and the matching tuning folds: one "
        "time cut for everyone, each user's last month, or the latest 20%% of "
        "each user's months (default: global-time)",
    )
    demo.add_argument(
        "--n-negatives",
        metavar="N",
        type=integer(),
        default=50,
        help="sampled unrated candidates per query (default: 50)",
    )
    demo.add_argument(
        "--min-history",
        metavar="H",
        type=integer(0),
        default=0,
        help="earlier ratings a user needs for a month to be a query (default: 0)",
    )
    demo.add_argument(
        "--seed",
        metavar="N",
        type=integer(0),
        default=0,
        help="random seed (default: 0)",
    )
    from . import _compare, _monitor, _score, _trec_eval

    _score.add_parser(sub)
    _trec_eval.add_parser(sub, _version())
    _compare.add_parser(sub)
    _monitor.add_parser(sub)
    parser.commands = sub.choices  # each sub-command's parser, by name
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    if (sys.argv[1:] if argv is None else list(argv)) == ["--version"]:
        # At once: the parser's imports (numpy, the sub-commands) are not needed.
        print(f"skndcg {_version()}")
        return 0
    parser = _build_parser()
    args = parser.parse_args(argv)
    prog = f"skndcg {args.command}"
    if args.command == "trec_eval":
        # trec_eval's command line is skndcg score's, with its flags translated.
        from ._trec_eval import score_argv

        args = parser.parse_args(
            ["score", *score_argv(args)], argparse.Namespace(caller="trec_eval")
        )
    from ._language import set_caller
    from ._notes import announce_first_compile
    from ._safety import guarded

    set_caller(prog, parser.commands[args.command])
    with announce_first_compile(prog):
        return guarded(prog, _run, args)


def _run(args) -> int:
    if args.command != "demo":  # score (trec_eval's too), compare or monitor
        return import_module(f"._{args.command}", __package__).run(args)
    from ..demo import run_demo

    options = {k: v for k, v in vars(args).items() if k not in ("command", "seed")}
    try:
        run_demo(**options, random_state=args.seed)
    except (ValueError, OSError, ImportError) as exc:
        from ._language import error

        error(exc)
        return EXIT_USAGE
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
