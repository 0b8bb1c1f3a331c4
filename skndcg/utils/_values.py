"""A numpy scalar as the plain Python value it holds, for readable messages."""

from __future__ import annotations

import numpy as np


def py(value):
    """A numpy scalar as the Python value it holds (``3``, not ``np.int64(3)``);
    anything else as it is."""
    return value.item() if isinstance(value, np.generic) else value


def number_text(text):
    """``text`` for ``int()`` and ``float()``, or ``"?"`` (which they refuse)
    where they would misread it: ``1_0`` as 10 and non-ASCII digits
    (``'\\uff11'``) as digits, which trec_eval's ``atol()`` and ``atof()`` read
    as 1 and 0. Every reader of numbers in text (files, options, measure
    names) reads through it."""
    return text if text.isascii() and "_" not in text else "?"
