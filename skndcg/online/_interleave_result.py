"""Credit from clicks on interleaved lists: wins, ties and a test."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from sklearn.utils._param_validation import StrOptions, validate_params

from ..evaluation._shared import as_generator, bootstrap_ratios
from ..utils._constraints import Count
from ._clicklog import clicks, column, positions, refuse_repeats
from ._ranking import query_codes


class InterleavingResult(NamedTuple):
    """Outcome of an interleaving experiment.

    Returned by :func:`interleaving_result`.

    Parameters
    ----------
    wins_a, wins_b, ties : int
        Queries whose clicks favour ranker A, ranker B, or neither (no click
        included).
    delta : float
        ``wins_a / (wins_a + wins_b) - 0.5``: positive when A wins more of the
        queries that were not tied; NaN when every query tied.
    p_value : float
        Two-sided p-value of "neither ranker is preferred".

    Examples
    --------
    >>> from skndcg.online import InterleavingResult
    >>> InterleavingResult(6, 2, 2, 0.25, 0.29).delta
    0.25
    """

    wins_a: int
    wins_b: int
    ties: int
    delta: float
    p_value: float


def sign_test(ca, cb):
    """Queries won by A (more credit ``ca``), by B, tied, and the sign test."""
    wa, wb = int((ca > cb).sum()), int((cb > ca).sum())
    decided = wa + wb
    delta = wa / decided - 0.5 if decided else np.nan
    p = binomtest(wa, decided, 0.5).pvalue if decided else 1.0
    return InterleavingResult(wa, wb, ca.size - decided, float(delta), float(p))


def _balanced_credit(codes, n_q, clk, position, rank_a, rank_b):
    hit = np.flatnonzero(clk > 0)
    if hit.size == 0:
        return np.zeros(n_q), np.zeros(n_q)
    hc = codes[hit]
    order = np.lexsort((position[hit], hc))
    last = np.r_[hc[order][1:] != hc[order][:-1], True]
    deepest = hit[order[last]]  # the lowest clicked row of each query with a click
    cut = np.zeros(n_q, np.int64)
    cut[codes[deepest]] = np.minimum(rank_a[deepest], rank_b[deepest])
    ca = np.bincount(hc, weights=rank_a[hit] <= cut[hc], minlength=n_q)
    cb = np.bincount(hc, weights=rank_b[hit] <= cut[hc], minlength=n_q)
    return ca, cb


@validate_params(
    {
        "interleaved": [pd.DataFrame],
        "click": ["array-like"],
        "users": ["array-like", None],
        "method": [StrOptions({"team_draft", "balanced"}), None],
        "n_resamples": [Count(1)],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def interleaving_result(
    interleaved,
    click,
    *,
    users=None,
    method=None,
    n_resamples=10000,
    random_state=None,
):
    """Wins, ties and a test of an interleaving experiment from its clicks.

    Per query, clicks are turned into a preference:

    - team-draft: the ranker whose team received more clicks wins;
    - balanced: with ``c`` the deepest clicked item and ``m`` the better of
      its ranks in A and in B, the ranker holding more clicked items in its
      own top ``m`` wins (Joachims, 2002).

    A query with no click, or equal credit, is a tie.

    Parameters
    ----------
    interleaved : pandas.DataFrame
        The lists returned by :func:`interleave` (columns ``qid``,
        ``position``, ``team``, ``rank_a``, ``rank_b``), possibly filtered to
        the queries served. Each query's list appears once: two rows of a
        query at one position (a list there twice) are refused, as are a
        position, and for ``"balanced"`` a ``rank_a`` or ``rank_b``, that is
        not a whole number >= 1.
    click : array-like of shape (n_interleaved_rows,)
        1 (or True) for each clicked row of ``interleaved``, aligned with it.
    users : array-like of shape (n_interleaved_rows,), default=None
        User of each row (constant within a query). Given, the p-value
        comes from a bootstrap over users of ``delta`` (queries of one user
        are not independent); otherwise from an exact two-sided binomial
        (sign) test of the wins among non-tied queries.
    method : {"team_draft", "balanced"}, default=None
        Credit rule; by default the method ``interleave`` recorded in
        ``interleaved.attrs``.
    n_resamples : int >= 1, default=10000
        Bootstrap resamples of the users (with ``users`` only).
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the bootstrap.

    Returns
    -------
    result : InterleavingResult
        ``(wins_a, wins_b, ties, delta, p_value)``.

    See Also
    --------
    interleave : Build the interleaved lists.

    References
    ----------
    .. [1] O. Chapelle, T. Joachims, F. Radlinski and Y. Yue, "Large-Scale
       Validation and Analysis of Interleaved Search Evaluation", ACM TOIS 30(1),
       2012.

    Examples
    --------
    >>> from skndcg.online import interleave, interleaving_result
    >>> lists = interleave([1, 1, 2, 2, 3, 3], [0, 1, 0, 1, 0, 1],
    ...                    [2, 1, 2, 1, 2, 1], [1, 2, 1, 2, 1, 2], random_state=0)
    >>> clicks = (lists["team"] == "a").astype(int)  # users click A's picks
    >>> result = interleaving_result(lists, clicks)
    >>> result.wins_a, result.wins_b, result.ties, result.delta
    (3, 0, 0, 0.5)
    >>> round(result.p_value, 3)
    0.25
    """
    if method is None:
        method = interleaved.attrs.get("method")
        if method not in ("team_draft", "balanced"):
            raise ValueError(
                "interleaved does not record its method (attrs['method']); pass "
                "method='team_draft' or method='balanced'."
            )
    balanced = ["qid", "position", "rank_a", "rank_b"]
    need = ["qid", "team"] if method == "team_draft" else balanced
    missing = [c for c in need if c not in interleaved.columns]
    if missing:
        raise ValueError(
            f"interleaved lacks the column(s) {missing} that method={method!r} needs "
            "(as interleave returns them)."
        )
    n = len(interleaved)
    if n == 0:
        raise ValueError("interleaved has no row.")
    clk = clicks(click, n)
    q = interleaved["qid"].to_numpy()
    codes, n_q = query_codes(q)
    ranks = {
        c: positions(interleaved[c], n, c, unshown=False)[0].astype(np.int64)
        for c in balanced[1:]
        if c in need or (c == "position" and c in interleaved.columns)
    }
    if "position" in ranks:
        why = "each position of a list holds one item (is a list there twice?)."
        refuse_repeats(q, codes, ranks["position"], "position", why)
    if method == "team_draft":
        team = interleaved["team"].to_numpy()
        if not np.isin(team, ("a", "b")).all():
            bad = team[~np.isin(team, ("a", "b"))][0]
            raise ValueError(f"interleaved['team'] must be 'a' or 'b', got {bad!r}.")
        ca = np.bincount(codes, weights=clk * (team == "a"), minlength=n_q)
        cb = np.bincount(codes, weights=clk * (team != "a"), minlength=n_q)
    else:
        ca, cb = _balanced_credit(codes, n_q, clk, **ranks)
    result = sign_test(ca, cb)
    if users is None:
        return result
    p = _user_bootstrap(users, n, codes, n_q, ca > cb, cb > ca, result.delta,
                        n_resamples, random_state)  # fmt: skip
    return result._replace(p_value=float(p))


def _user_bootstrap(users, n, codes, n_q, win_a, win_b, delta, n_resamples, seed):
    u, n_users = query_codes(column(users, "users", n), "users")
    first = np.zeros(n_q, np.int64)
    first[codes[::-1]] = np.arange(n)[::-1]
    ucodes = u[first]
    if not (u == ucodes[codes]).all():
        row = int(np.flatnonzero(u != ucodes[codes])[0])
        raise ValueError(
            f"users must be constant within a query; row {row} differs from the "
            "first row of its query."
        )
    if np.isnan(delta) or delta == 0:
        return 1.0
    wa = np.bincount(ucodes, weights=win_a, minlength=n_users)
    decided = np.bincount(ucodes, weights=win_a | win_b, minlength=n_users)
    dist = bootstrap_ratios(
        (wa - 0.5 * decided)[:, None], decided[:, None], n_resamples,
        as_generator(seed),
    )[:, 0]  # fmt: skip
    dist = dist[~np.isnan(dist)]
    far = np.sum(dist <= 0) if delta > 0 else np.sum(dist >= 0)
    return min(1.0, 2.0 * (far + 1) / (dist.size + 1))
