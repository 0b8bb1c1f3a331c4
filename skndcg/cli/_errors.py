"""The command line's exit codes, its one error type, and the argparse types of
its integer and number options."""

import argparse
import math

from ..utils._number_text import number_or_nan, number_text

#: 0: done; 1: a --fail-under (or monitor) threshold was crossed; 2: a problem
#: with the command line or its input.
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

_INT64_MAX = 2**63 - 1


class UsageError(Exception):
    """A problem with the command line or its input files (exit code 2)."""


def integer(low=1, what=None, high=_INT64_MAX):
    """The argparse type of an integer option: ``low`` or more, up to ``high``
    (the 64-bit range); else the message ``expected <what>, got '<text>'`` (after
    argparse's ``argument --flag:``)."""
    what = what or ("a positive integer" if low == 1 else "a non-negative integer")

    def parse(text):
        try:
            value = int(number_text(text))
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            beyond = f" up to {high}" if value > high == _INT64_MAX else ""
            raise argparse.ArgumentTypeError(f"expected {what}{beyond}, got {text!r}")
        return value

    return parse


def number(what, low, high=math.inf, *, low_included=False):
    """The argparse type of a number option: finite, above ``low`` (or equal
    to it, with ``low_included``) and below ``high``; else the message
    ``expected <what>, got '<text>'`` (after argparse's ``argument --flag:``)."""

    def parse(text):
        value = number_or_nan(text)
        above = value >= low if low_included else value > low
        if not (above and value < high and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse
