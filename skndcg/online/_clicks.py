"""Clicks on any shown lists, drawn from a click model with known relevance."""

from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions, validate_params

from ..evaluation._shared import as_generator
from ._clicklog import (
    column,
    examination_or_default,
    positions,
    probabilities,
    refuse_repeats,
)
from ._ranking import query_codes


@validate_params(
    {
        "qid": ["array-like"],
        "position": ["array-like"],
        "relevance": ["array-like"],
        "click_model": [StrOptions({"pbm", "cascade"})],
        "examination": ["array-like", None],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def simulate_clicks(
    qid, position, relevance, *, click_model="pbm", examination=None, random_state=None
):
    """Draw clicks on shown lists from a click model.

    The companion of :func:`simulate_click_log` for lists the log did not
    show: an interleaved list, an A/B test's arms, a new ranker's top ``k``.
    Under ``"pbm"`` a row at position ``r`` is clicked with probability
    ``examination[r - 1] * relevance``; under ``"cascade"`` the user reads each
    list from the top and clicks the first item that attracts them (chance:
    its relevance), then stops.

    Parameters
    ----------
    qid : array-like of shape (n_rows,)
        List (query) of each row.
    position : array-like of shape (n_rows,)
        1-based position of each row in its list; NaN for rows not shown
        (never clicked). Under ``"cascade"`` a position holds one row of its
        list.
    relevance : array-like of shape (n_rows,)
        True click probability of each row once examined, in [0, 1].
    click_model : {"pbm", "cascade"}, default="pbm"
        Click model.
    examination : array-like, default=None
        Examination probability per position (each in [0, 1]) for
        ``"pbm"``, a 1-D array; by default ``1 / position``. It must cover
        the deepest position.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed.

    Returns
    -------
    click : ndarray of shape (n_rows,) of int8
        1 for a click.

    See Also
    --------
    simulate_click_log : A whole log, with its logger's propensities.

    Examples
    --------
    >>> from skndcg.online import simulate_clicks
    >>> simulate_clicks([1, 1, 1], [1, 2, 3], [1.0, 1.0, 0.0],
    ...                 click_model="cascade", random_state=0).tolist()
    [1, 0, 0]
    """
    q = np.asarray(qid)
    if q.ndim != 1:
        raise ValueError(f"qid must be a 1-D array of list ids, got shape {q.shape}.")
    n = q.size
    pos, shown = positions(position, n)
    rel = probabilities(column(relevance, "relevance", n), "relevance")
    rng = as_generator(random_state)
    ipos = np.where(shown, pos, 1).astype(np.int64)
    attracted = shown & (rng.random(n) < rel)
    if click_model == "pbm":
        depth = int(ipos.max()) if n else 0
        e = examination_or_default(examination, depth)
        if e.ndim != 1 or e.size < depth:
            raise ValueError(
                f"examination must be a 1-D array with a probability for every "
                f"position down to {depth}, got shape {e.shape}."
            )
        probabilities(e, "examination")
        return (attracted & (rng.random(n) < e[ipos - 1])).astype(np.int8)
    if examination is not None:
        raise ValueError("examination is for click_model='pbm' only.")
    codes, _ = query_codes(q)
    why = "under the cascade model each position of a list holds one item."
    refuse_repeats(q, codes, ipos, "position", why, shown)
    order = np.lexsort((ipos, codes))
    hit = order[attracted[order]]  # the attracted rows, by query then position
    first = np.ones(hit.size, bool)  # the first of its query, clicked
    first[1:] = codes[hit][1:] != codes[hit][:-1]
    out = np.zeros(n, np.int8)
    out[hit[first]] = 1
    return out
