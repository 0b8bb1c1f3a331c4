"""The presets of ``convention=``, as objects callers outside the engine can read."""

from __future__ import annotations

from ._conventions import TREC_RUN_DEFAULT
from ._conventions import get_convention as _get_convention

#: The preset ``skndcg score`` applies to a TREC run when no convention is given:
#: the rules of trec_eval.
TREC_RUN_CONVENTION = TREC_RUN_DEFAULT


def get_convention(convention=None):
    """The convention a ``convention=`` argument names, resolved as the metrics
    resolve it.

    Parameters
    ----------
    convention : str, Convention or None, default=None
        A preset name from :data:`~skndcg.metrics.CONVENTIONS`, in any spelling
        the metrics accept (case and ``-`` for ``_`` do not matter); None for
        skndcg's own defaults; or a convention object, returned as given.

    Returns
    -------
    convention : Convention
        A frozen object, accepted wherever ``convention=`` is. Among its
        attributes: ``name`` (the preset's canonical name), ``doc_ties`` (True
        when the preset breaks score ties by document id, descending, as
        trec_eval does, once ``doc_id`` is given), ``gain``, ``ties`` and
        ``empty`` (the defaults of those options). Its method ``presorted()``
        returns the same convention for rows already in its tie order, so that
        tied rows keep their row order and nothing is reordered.

    Raises
    ------
    ValueError
        When ``convention`` names no preset; the message lists them.

    Examples
    --------
    >>> from skndcg.metrics import TREC_RUN_CONVENTION, get_convention
    >>> conv = get_convention("TREC-eval")
    >>> conv.name, conv.doc_ties
    ('trec_eval', True)
    >>> get_convention(TREC_RUN_CONVENTION) is conv
    True
    >>> get_convention(None).name, get_convention("lightgbm").doc_ties
    ('skndcg', False)
    """
    return _get_convention(convention)
