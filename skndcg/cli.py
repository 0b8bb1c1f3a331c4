"""The ``skndcg`` command line."""

from __future__ import annotations

import argparse
import sys


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skndcg",
        description="Group-aware ranking evaluation and model selection.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run the demo on built-in generated data")
    demo.add_argument("--quick", action="store_true", help="smaller, faster run")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    args = _build_parser().parse_args(argv)
    if args.command == "demo":
        from ._demo import run_demo

        run_demo(quick=args.quick)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
