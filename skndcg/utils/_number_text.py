"""Text a number is read from, as trec_eval reads it (no numpy: the command
line's start imports this)."""

import math


def number_text(text):
    """``text`` for ``int()`` and ``float()``, or ``"?"`` (which they refuse)
    where they would misread it: ``1_0`` as 10 and non-ASCII digits
    (``'\\uff11'``) as digits, which trec_eval's ``atol()`` and ``atof()`` read
    as 1 and 0. Every reader of numbers in text (files, options, measure
    names) reads through it."""
    return text if text.isascii() and "_" not in text else "?"


def number_or_nan(text):
    """The float ``text`` reads as through :func:`number_text`, or NaN."""
    try:
        return float(number_text(text))
    except ValueError:
        return math.nan
