"""Your own measure, by name, everywhere: :func:`define_measure`."""

from __future__ import annotations

import math

from ...utils._args import check_flags
from . import _registry as R


def define_measure(
    name,
    per_query,
    *,
    higher_is_better=True,
    description="",
    aliases=(),
    needs=(),
    params=None,
    cutoff=True,
    unjudged="not_relevant",
    skip_empty=True,
):
    """Register a measure under ``name`` for every function that takes metric names.

    Once registered, ``"name"`` and ``"name@5"`` work in
    :func:`grouped_ranking_scores`, :func:`ranking_report`,
    :func:`make_ranking_scorer`, :func:`skndcg.evaluation.compare`, the Dask,
    Spark and streaming means and ``skndcg score --metrics``. A scorer (and a
    Dask or Spark mean) carries the definition to worker processes
    (``n_jobs=2``, Dask, Spark): ``per_query`` goes by reference when it is a
    top-level function of an importable module, else by value (cloudpickle);
    one that cannot be pickled is refused with the reason when the work is
    sent.

    Parameters
    ----------
    name : str
        The measure's name: lower-case letters, digits and underscores,
        starting with a letter. It must not be taken (see
        :func:`undefine_measure`).
    per_query : callable
        ``per_query(ranked_labels, k, *extras, *params) -> float``. It receives
        one query's labels in ranked order (best score first), as a 1-D float64
        array, after the tie rule, without the judged rows that were not
        retrieved (``nan_score="unretrieved"``). Under ``ties="average"`` a
        query whose tied rows differ in label is scored on each distinct order
        of their labels and the values averaged (the expectation over tie
        orders; a query needing more than 100,000 calls is refused).
        ``k`` is the cut-off of the name, or None when it has none. A
        numba-compiled function (``numba.njit``) runs inside a compiled loop; a
        plain Python one is called from Python. A query with nothing retrieved
        scores 0 without a call.
    higher_is_better : bool, default=True
        Whether larger values mean a better ranking (read by the scorers).
    description : str, default=""
        One line for the table of measures.
    aliases : tuple of str, default=()
        Other names for the same measure.
    needs : tuple of str, default=()
        Extra inputs, passed after ``k`` in this order: ``"ideal"`` (all the
        query's labels, retrieved or not, sorted descending), ``"n_relevant"``
        (relevant rows of the query, retrieved or not), ``"n_nonrelevant"``
        (judged rows that are not relevant) and ``"label_max"`` (the largest
        label of ``y_true``).
    params : dict, default=None
        Parameters and their defaults, written ``name(alpha=0.5)``; their
        values are passed last, in this order.
    cutoff : bool, default=True
        Whether the name accepts ``@k``.
    unjudged : {"not_relevant", "use", "refuse", "pool"}, default="not_relevant"
        Unjudged rows (NaN labels with ``nan_label="unjudged"``) reach the
        measure as label 0, as NaN (``"use"``), or are refused; ``"pool"`` is
        ``"use"`` with the negative judgments of ``convention="trec_eval"``
        ("in the pool, not judged") passed as -1 (as ``infap`` reads them).
    skip_empty : bool, default=True
        Whether a query without a relevant row is "empty" (the ``empty=``
        option applies to it) or scored as any other.

    Returns
    -------
    name : str
        The registered name.

    Examples
    --------
    >>> from skndcg.metrics import (define_measure, grouped_ranking_scores,
    ...                             undefine_measure)
    >>> def top_label(ranked_labels, k):
    ...     return float(ranked_labels[0])
    >>> define_measure("top_label", top_label, description="Label of the top row.")
    'top_label'
    >>> grouped_ranking_scores([3, 2, 0, 1, 0], [0.1, 0.9, 0.5, 0.3, 0.2],
    ...                        ["a", "a", "a", "b", "b"],
    ...                        metrics=["top_label", "ndcg@3"])
    {'top_label': 1.5, 'ndcg@3': 0.9106...}
    >>> undefine_measure("top_label")
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {name!r} ({type(name).__name__}).")
    if not callable(per_query):
        raise TypeError(
            f"per_query for measure {name!r} must be a function "
            "per_query(ranked_labels, k) -> float, got "
            f"{per_query!r} ({type(per_query).__name__})."
        )
    check_flags(higher_is_better=higher_is_better, cutoff=cutoff, skip_empty=skip_empty)
    aliases, needs = ((x,) if isinstance(x, str) else x for x in (aliases, needs))
    declared = []
    for pname, default in (params or {}).items():
        if not isinstance(pname, str) or not pname.isidentifier():
            raise ValueError(
                f"measure {name!r}: parameter name {pname!r} is not valid."
            )
        if isinstance(default, bool) or not isinstance(default, (int, float)):
            raise ValueError(
                f"measure {name!r}: parameter {pname!r} needs a numeric default, "
                f"got {default!r}."
            )
        if not math.isfinite(default):
            raise ValueError(
                f"measure {name!r}: parameter {pname!r} has default {default!r}; "
                "expected a finite number."
            )
        declared.append(R.Param(pname, float(default), ""))
    return R.declare(
        name,
        description,
        aliases=tuple(aliases),
        params=tuple(declared),
        cutoff=bool(cutoff),
        needs=tuple(needs),
        unjudged=unjudged,
        empty_when="no_relevant" if skip_empty else "never",
        per_query=per_query,
        higher_is_better=bool(higher_is_better),
        builtin=False,
    ).name


def undefine_measure(name):
    """Remove a measure added with :func:`define_measure` (by any of its names).

    Parameters
    ----------
    name : str
        The measure's name or one of its aliases.

    Examples
    --------
    >>> from skndcg.metrics import define_measure, undefine_measure
    >>> define_measure("first", lambda labels, k: float(labels[0]))
    'first'
    >>> undefine_measure("first")
    """
    R.unregister(name)
