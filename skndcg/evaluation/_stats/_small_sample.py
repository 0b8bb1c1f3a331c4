"""The guard against over-claiming on a handful of queries."""

from __future__ import annotations

import os
import sys
import warnings

import skndcg


class SmallSampleWarning(UserWarning):
    """Too few queries for the interval or test asked for.

    Issued by :func:`~skndcg.evaluation.compare` (and the command line's
    ``--ci``) when a metric is counted on fewer than ``min_queries``
    queries: the bootstrap intervals are not reported and the p-values come
    from the exact randomization test. Also issued by
    :func:`~skndcg.evaluation.bootstrap_ci` and
    :func:`~skndcg.evaluation.paired_bootstrap` on fewer than 10 queries,
    whose numbers are then returned as computed. Also issued by
    :func:`~skndcg.evaluation.compare` when ``n_resamples`` is too few for
    the intervals at the confidence a correction raised (their bounds are
    then the most extreme resamples).

    Examples
    --------
    >>> import warnings
    >>> from skndcg.evaluation import SmallSampleWarning
    >>> issubclass(SmallSampleWarning, UserWarning)
    True
    """


def warn_small(subject, settings):
    """A :class:`SmallSampleWarning` saying why intervals (and bootstrap p-values)
    are refused for ``subject``, pointing at the first line outside skndcg (the
    user's call, however deep the public function that made it calls
    :func:`compare`)."""
    min_queries, test = settings["min_queries"], settings["test"]
    if test == "paired_bootstrap":
        p_text = (
            "the p-values come from the sign-flip randomization test instead "
            "(exact when 2**n <= n_resamples), which holds its level at any size"
        )
    else:
        p_text = (
            f"the {test} p-values are kept (test='randomization' is exact at any size)"
        )
    text = (
        f"{subject} (fewer than min_queries={min_queries}): bootstrap intervals are "
        "not reported (NaN), because resampling so few queries gives intervals "
        f"that are too narrow (with one query every resample is that query), and "
        f"{p_text}. Score more queries, or pass min_queries=0 to get the bootstrap "
        "numbers anyway."
    )
    warnings.warn(text, SmallSampleWarning, stacklevel=outside_level())


def n_queries_text(n):
    return f"only {n} quer{'y' if n == 1 else 'ies'}"


def outside_level() -> int:
    """The ``stacklevel`` of the first frame outside the skndcg package, as
    seen from the caller of this function's caller."""
    package = os.path.dirname(os.path.abspath(skndcg.__file__)) + os.sep
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level
