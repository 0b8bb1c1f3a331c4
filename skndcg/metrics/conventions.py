"""The options of a metric call, checked and resolved as the engine does.

A backend that computes skndcg's measures on other arrays (the tensor backend
:mod:`skndcg.torch` is one; a JAX or CuPy backend written by a user would be
another) takes the same keyword options as :mod:`skndcg.metrics`. It hands them
to :func:`call_options`, which checks them with the engine's own messages and
resolves the convention they name, and reads the :class:`CallOptions` it gets
back: the convention's rules (gain, ties, empty queries, labels, denominators)
are objects whose methods take the array module they work in.

Examples
--------
>>> from skndcg.metrics import conventions
>>> options = conventions.call_options(convention="trec_eval")
>>> options.conv.name, options.conv.gain
('trec_eval', 'linear')
>>> "ties" in conventions.OPTIONS
True
"""

from __future__ import annotations

from types import MappingProxyType

from ._conventions import OPTIONS as _OPTIONS
from ._conventions import CallOptions
from ._conventions import call_options as _call_options

__all__ = ["OPTIONS", "CallOptions", "call_options"]

#: Every keyword option of a metric call and its default, in the order of the
#: public signatures (read-only).
OPTIONS = MappingProxyType(_OPTIONS)


def call_options(**options) -> CallOptions:
    """Check the options of one metric call and resolve its convention.

    Every function of :mod:`skndcg.metrics` checks its options here, so a
    backend that does the same accepts and refuses exactly what they do, with
    the same messages, and gives each preset the same meaning.

    Parameters
    ----------
    **options
        Any of the keywords of :data:`OPTIONS` (``gain``, ``discount``,
        ``ties``, ``empty``, ``convention``, ``rel_threshold``,
        ``ap_denominator``, ``p_denominator``, ``nan_score``, ``queries``,
        ``nan_label``), as a user passes them; those left out take their
        defaults.

    Returns
    -------
    CallOptions
        The resolved convention (``conv``) and the options that are not part
        of a convention.

    Raises
    ------
    TypeError
        For a keyword that is not an option.
    ValueError
        For a value the option does not take; the message names the option,
        the value and what is valid.

    Examples
    --------
    >>> from skndcg.metrics.conventions import call_options
    >>> call_options(gain="linear", ties="stable").conv.gain
    'linear'
    >>> call_options(ties="random")
    Traceback (most recent call last):
    ...
    ValueError: ties='random' is not valid; expected one of ['average', 'stable', 'reverse', 'docid', 'pessimistic'].
    """  # noqa: E501
    return _call_options(**options)
