"""``skndcg trec_eval``: trec_eval 10.0's own command line, run as ``skndcg score
RESULTS --qrels REL_INFO --format trec`` with the flags translated
(:func:`score_argv`)."""

from __future__ import annotations

import argparse

TREC_EVAL_VERSION = "10.0"


def _only(expected, flag):
    def check(text):
        if text != expected:
            raise argparse.ArgumentTypeError(
                f"skndcg reads the {expected!r} format only (trec_eval {flag} "
                f"{text} is not available)"
            )
        return text

    return check


class _Refuse(argparse.Action):
    """A trec_eval flag skndcg does not offer: an error that says so."""

    def __init__(self, option_strings, dest, why, **kwargs):
        self.why = why
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"trec_eval {option_string} is not available: {self.why}")


def add_parser(sub, version):
    """Add the ``trec_eval`` sub-command to the command line's sub-parsers."""
    p = sub.add_parser(
        "trec_eval",
        help="trec_eval 10.0's command line: [flags] rel_info_file results_file",
        description=(
            "trec_eval 10.0's command line, argument order and output: "
            "evaluate results_file ('-': stdin) against rel_info_file (qrels). "
            "Without -m, the 'official' measures are printed."
        ),
        epilog="The same evaluation as: skndcg score RESULTS --qrels REL_INFO "
        "--format trec.",
    )
    p.add_argument("rel_info_file", help="qrels")
    p.add_argument("results_file", help="TREC run ('-': standard input)")
    p.add_argument(
        "-v", "--version", action="version",
        version=f"trec_eval version {TREC_EVAL_VERSION} (skndcg {version})",
    )  # fmt: skip
    flag = {"action": "store_true"}
    p.add_argument("-q", "--query_eval_wanted", **flag, help="every query's lines")
    p.add_argument(
        "-m", "--measure", action="append", default=[], metavar="MEASURE",
        help="measure[.params] or nickname (official, all_trec, set); repeatable",
    )  # fmt: skip
    p.add_argument(
        "-c", "--complete_rel_info_wanted", **flag,
        help="average over every judged query (0 without results)",
    )  # fmt: skip
    p.add_argument("-l", "--level_for_rel", metavar="NUM", help="relevance level")
    p.add_argument("-n", "--nosummary", **flag, help="no 'all' lines")
    p.add_argument("-J", "--Judged_docs_only", **flag, help="judged documents only")
    p.add_argument(
        "-N", "--Number_docs_in_coll", metavar="NUM",
        help="documents in the collection (utility)",
    )  # fmt: skip
    p.add_argument(
        "-M", "--Max_retrieved_per_topic", metavar="NUM",
        help="keep each query's NUM best documents",
    )  # fmt: skip
    p.add_argument(
        "-R", "--Rel_info_format", type=_only("qrels", "-R"), metavar="FORMAT",
        help="qrels (the only format read)",
    )  # fmt: skip
    p.add_argument(
        "-T", "--Results_format", type=_only("trec_results", "-T"),
        metavar="FORMAT", help="trec_results (the only format read)",
    )  # fmt: skip
    refused = {
        ("-D", "--Debug_level"): ("skndcg prints no debug traces", 1),
        ("-o", "--Output_old_results_format"): ("the old output format", 0),
        ("-Z", "--Zscore"): ("z-scores are not computed", 1),
    }
    for names, (why, nargs) in refused.items():
        p.add_argument(*names, action=_Refuse, why=why, nargs=nargs,
                       help=argparse.SUPPRESS)  # fmt: skip
    return p


def score_argv(args) -> list[str]:
    """The ``skndcg score`` arguments of a parsed ``skndcg trec_eval`` call."""
    out = [args.results_file, "--qrels", args.rel_info_file, "--format", "trec"]
    for m in args.measure or ["official"]:
        out += ["-m", m]
    flags = {
        "query_eval_wanted": "-q",
        "complete_rel_info_wanted": "-c",
        "nosummary": "-n",
        "Judged_docs_only": "-J",
    }
    out += [f for name, f in flags.items() if getattr(args, name)]
    values = {"level_for_rel": "-l", "Number_docs_in_coll": "-N",
              "Max_retrieved_per_topic": "-M"}  # fmt: skip
    for name, f in values.items():
        value = getattr(args, name)
        if value is not None:
            out += [f, value]
    return out
