"""Team-draft multileaving: one list from several rankers, pairwise credit."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import validate_params

from .._native._jit import jit
from ..evaluation._shared import as_generator
from ..utils._constraints import Count
from ._clicklog import check_qid, clicks, column, score_column
from ._interleave import fill_lists, rank_candidates
from ._interleave_result import InterleavingResult, sign_test
from ._ranking import check_ids, query_codes


@jit
def _multileave(
    t, n_chunks, starts, sizes, offsets, k, orders, keys, picked, out_rows, out_team
):  # pragma: no cover - compiled
    n_q = starts.size
    n_rankers = orders.shape[0]
    ptr = np.zeros(n_rankers, np.int64)
    for g in range(n_q * t // n_chunks, n_q * (t + 1) // n_chunks):
        s = starts[g]
        m = min(k, sizes[g])
        o = offsets[g]
        ptr[:] = 0
        j = 0
        rnd = 0
        while j < m:
            turn = np.argsort(keys[g, rnd])
            for r in turn:
                if j >= m:
                    break
                while picked[orders[r, s + ptr[r]]]:
                    ptr[r] += 1
                row = orders[r, s + ptr[r]]
                picked[row] = True
                out_rows[o + j] = row
                out_team[o + j] = r
                j += 1
            rnd += 1


@validate_params(
    {
        "qid": ["array-like"],
        "item": ["array-like"],
        "scores": ["array-like"],
        "k": [Count(1)],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def multileave(qid, item, scores, *, k=10, random_state=None):
    """Team-draft multileaving of several rankers' lists for every query.

    Each query's candidates are ranked by each ranker's scores (higher first,
    ties in row order). The list is built in rounds: in every round the
    rankers take turns in a random order, each adding its best item not yet
    in the list to its team (Schuth et al., 2014). With two rankers this is
    team-draft interleaving.

    Parameters
    ----------
    qid : array-like of shape (n_rows,)
        Query of each candidate row.
    item : array-like of shape (n_rows,)
        Item id of each row (distinct within a query).
    scores : array-like of shape (n_rows, n_rankers)
        One column of scores per ranker (at least two).
    k : int >= 1, default=10
        Length of each multileaved list.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the turn orders.

    Returns
    -------
    multileaved : pandas.DataFrame
        One row per shown item: ``qid``, ``item``, ``position`` (1-based),
        ``team`` (the column of ``scores`` whose ranker placed the item) and
        ``row`` (the input row).

    See Also
    --------
    multileaving_result : Pairwise wins and tests from the clicks.
    interleave : Two rankers, team draft or balanced.

    References
    ----------
    .. [1] A. Schuth, F. Sietsma, S. Whiteson, D. Lefortier and M. de Rijke,
       "Multileaved Comparisons for Fast Online Evaluation", CIKM 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.online import multileave
    >>> scores = np.array([[3, 1, 2], [2, 3, 1], [1, 2, 3]])  # rows x rankers
    >>> lists = multileave([1, 1, 1], ["x", "y", "z"], scores, random_state=0)
    >>> sorted(lists["team"].tolist())  # each ranker placed one item
    [0, 1, 2]
    """
    q = check_qid(qid)
    n = q.size
    if isinstance(scores, Mapping):
        raise TypeError(
            "scores must be an array of shape (n_rows, n_rankers), one column per "
            f"ranker, got a {type(scores).__name__}; stack a mapping's scores as "
            "columns, for example np.column_stack(list(scores.values()))."
        )
    sc = np.asarray(scores, dtype=np.float64)
    if sc.ndim != 2 or sc.shape[0] != n or sc.shape[1] < 2:
        raise ValueError(
            f"scores must have shape (n_rows, n_rankers) = ({n}, >= 2), one column "
            f"per ranker, got shape {sc.shape}."
        )
    for r in range(sc.shape[1]):
        score_column(sc[:, r], f"scores[:, {r}]", n)
    it = check_ids(column(item, "item", n), "item")
    codes, n_q, orders = rank_candidates(q, it, sc.T)
    n_rankers = sc.shape[1]
    rounds = -(-k // n_rankers)
    keys = as_generator(random_state).random((n_q, rounds, n_rankers))
    rows, team, position, _, _ = fill_lists(_multileave, codes, n_q, k, orders, keys)
    out = pd.DataFrame(
        {"qid": q[rows], "item": it[rows], "position": position, "team": team,
         "row": rows}
    )  # fmt: skip
    out.attrs["n_rankers"] = n_rankers
    return out


@validate_params(
    {"multileaved": [pd.DataFrame], "click": ["array-like"]},
    prefer_skip_nested_validation=True,
)
def multileaving_result(multileaved, click):
    """Pairwise wins, ties and sign tests of a multileaving experiment.

    In each query a ranker beats another when its team received more clicks;
    a query where both got as many (none, for instance) is a tie for that
    pair.

    Parameters
    ----------
    multileaved : pandas.DataFrame
        The lists :func:`multileave` returns (columns ``qid`` and ``team``).
    click : array-like of shape (n_multileaved_rows,)
        1 (or True) for each clicked row, aligned with ``multileaved``.

    Returns
    -------
    result : pandas.DataFrame
        One row per pair of rankers ``a < b``: ``ranker_a``, ``ranker_b``,
        ``wins_a``, ``wins_b``, ``ties``, ``delta`` (the share of non-tied
        queries won by ``a`` minus 0.5) and ``p_value`` (exact two-sided
        binomial test), as :func:`interleaving_result` gives for two.

    See Also
    --------
    multileave : Build the lists.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.online import multileaving_result
    >>> lists = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2], "team": [0, 1, 2, 2, 0, 1]})
    >>> multileaving_result(lists, [1, 0, 0, 1, 1, 0])[["ranker_a", "ranker_b",
    ...                                                  "wins_a", "wins_b", "ties"]]
       ranker_a  ranker_b  wins_a  wins_b  ties
    0         0         1       2       0     0
    1         0         2       1       0     1
    2         1         2       0       1     1
    """
    for name in ("qid", "team"):
        if name not in multileaved.columns:
            raise ValueError(f"multileaved lacks the column {name!r}.")
    n = len(multileaved)
    if n == 0:
        raise ValueError("multileaved has no row.")
    clk = clicks(click, n)
    team = multileaved["team"].to_numpy()
    if team.dtype.kind not in "iu" or (team < 0).any():
        raise ValueError("multileaved['team'] must hold ranker indices 0, 1, ...")
    codes, n_q = query_codes(multileaved["qid"].to_numpy())
    n_rankers = int(multileaved.attrs.get("n_rankers", team.max() + 1))
    if team.max() >= n_rankers:
        raise ValueError(
            f"multileaved['team'] holds ranker {team.max()}, but "
            f"multileaved.attrs['n_rankers'] says there are {n_rankers} rankers."
        )
    credit = np.bincount(
        codes * n_rankers + team, weights=clk, minlength=n_q * n_rankers
    ).reshape(n_q, n_rankers)
    pairs = combinations(range(n_rankers), 2)  # a < b
    rows = [(a, b, *sign_test(credit[:, a], credit[:, b])) for a, b in pairs]
    columns = ["ranker_a", "ranker_b", *InterleavingResult._fields]
    return pd.DataFrame(rows, columns=columns)
