"""A click-log simulator with known truth: loggers, click models, true values."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ..evaluation._shared import as_generator, check_length
from ..utils._constraints import Count
from ._clicklog import examination_or_default, score_column
from ._plackett_luce import inclusion_probability, sample_rankings
from ._ranking import query_codes, rank_rows, rank_weights, target_table


@dataclass(frozen=True)
class SimulatedClickLog:
    """A simulated click log and the truth behind it.

    Returned by :func:`simulate_click_log`.

    Parameters
    ----------
    log : pandas.DataFrame
        One row per candidate of each logged query: ``qid`` (the logged query,
        one ranking shown once), ``query`` (the underlying query, logged
        ``impressions_per_query`` times), ``item`` (an id unique over all
        queries), ``position`` (1-based logged rank, NaN when not shown),
        ``click`` (0/1), ``logging_probability`` (the probability the logger
        showed the row's item, at any position), ``relevance`` (the true
        probability of a click once examined), ``feature`` (a noisy signal of
        relevance, to build new rankers from) and ``logging_score`` (the
        logger's score; the softmax logger ranks by it).
    examination : ndarray of shape (n_shown,) or None
        True examination probability of positions 1, 2, ... under the
        position-based model; None for the cascade model, where examination
        depends on the items above.
    click_model : str
        ``"pbm"`` or ``"cascade"``.

    Examples
    --------
    >>> from skndcg.online import simulate_click_log
    >>> sim = simulate_click_log(n_queries=50, random_state=0)
    >>> sim.log.shape
    (1000, 9)
    >>> value = sim.true_value(sim.log["feature"], k=5)
    >>> 0 < value < 5
    True
    """

    log: pd.DataFrame
    examination: np.ndarray | None
    click_model: str

    def true_query_values(self, new_score, *, k=10, target="clicks"):
        """True value of a new ranker on every logged query.

        Parameters
        ----------
        new_score : array-like of shape (n_rows,)
            The new ranker's score of each row of :attr:`log`.
        k : int, default=10
            Cut-off: the new ranker shows its top ``k``.
        target : {"clicks", "dcg"}, default="clicks"
            ``"clicks"``: expected clicks on the new top ``k``; under the
            position-based model ``sum_r examination[r] * relevance``, with
            examination 0 beyond the logged depth; under the cascade model the
            chance of a click, ``1 - prod(1 - relevance)``. ``"dcg"`` (position-based
            model only): ``sum_r relevance / log2(r + 1)`` over the top ``k``.

        Returns
        -------
        values : ndarray of shape (n_logged_queries,)
            In the order of the sorted ``qid``.
        """
        n = len(self.log)
        must = f"new_score must hold one score per row of the log ({n} values)"
        score = check_length(new_score, n, must, np.float64)
        score = score_column(score, "new_score", n)
        codes, n_q = query_codes(self.log["qid"].to_numpy())
        rel = self.log["relevance"].to_numpy()
        if self.click_model == "cascade":
            if target != "clicks":
                raise ValueError(
                    "target='dcg' is defined for the position-based model only; "
                    "this log was simulated with click_model='cascade'."
                )
            order, rank, _ = rank_rows(codes, score)
            top = rank <= k
            log_miss = np.log1p(-np.minimum(rel[order][top], 1 - 1e-15))
            miss = np.bincount(codes[order][top], weights=log_miss, minlength=n_q)
            return -np.expm1(miss)
        w = rank_weights(codes, score, target_table(target, k, self.examination))
        return np.bincount(codes, weights=w * rel, minlength=n_q)

    def true_value(self, new_score, *, k=10, target="clicks"):
        """Mean over logged queries of :meth:`true_query_values`.

        Parameters
        ----------
        new_score : array-like of shape (n_rows,)
            The new ranker's score of each row of :attr:`log`.
        k : int, default=10
            Cut-off of the new ranking.
        target : {"clicks", "dcg"}, default="clicks"
            See :meth:`true_query_values`.

        Returns
        -------
        value : float
        """
        return float(self.true_query_values(new_score, k=k, target=target).mean())


@validate_params(
    {
        "n_queries": [Count(1)],
        "n_candidates": [Count(1)],
        "n_shown": [Count(1)],
        "impressions_per_query": [Count(1)],
        "click_model": [StrOptions({"pbm", "cascade"})],
        "logger": [StrOptions({"uniform", "softmax"})],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "examination": ["array-like", None],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def simulate_click_log(
    n_queries=1000,
    n_candidates=20,
    n_shown=10,
    *,
    impressions_per_query=1,
    click_model="pbm",
    logger="uniform",
    temperature=1.0,
    examination=None,
    random_state=None,
):
    """Simulate a click log from a known logger and click model.

    Each of ``n_queries`` queries has ``n_candidates`` items with a true
    relevance (the chance of a click once examined) drawn from Beta(1, 3). The
    query is logged ``impressions_per_query`` times; each time the logger
    ranks the candidates and shows the first ``n_shown``, and the user clicks:

    - ``click_model="pbm"`` (position-based model): position ``r`` is examined
      with probability ``examination[r - 1]``, independently of the rest, and an
      examined item is clicked with probability equal to its relevance;
    - ``click_model="cascade"``: the user reads from the top, clicks the first
      item that attracts them (chance: its relevance) and stops.

    Loggers, each with its exact propensities in ``logging_probability``:

    - ``"uniform"``: a uniformly random ranking; every item is shown with
      probability ``n_shown / n_candidates``;
    - ``"softmax"``: a Plackett-Luce ranking drawn with weights
      ``exp(logging_score / temperature)``; each item's chance of being among
      the first ``n_shown`` is computed exactly (by numerical integration, to
      about 1e-9).

    The result knows the truth: :meth:`SimulatedClickLog.true_value` gives any
    new ranker's true expected clicks, so an off-policy estimate made from the
    log can be checked against it.

    Parameters
    ----------
    n_queries : int, default=1000
        Number of distinct queries.
    n_candidates : int, default=20
        Candidates per query.
    n_shown : int, default=10
        Length of each logged ranking (at most ``n_candidates``).
    impressions_per_query : int, default=1
        Times each query is logged, each time with a fresh ranking (the same
        items at several positions, which ``estimate_position_bias`` needs).
    click_model : {"pbm", "cascade"}, default="pbm"
        How users click, see above.
    logger : {"uniform", "softmax"}, default="uniform"
        How the logged rankings are drawn.
    temperature : float > 0, default=1.0
        Temperature of the softmax logger (smaller is greedier).
    examination : array-like of shape (n_shown,), default=None
        Examination probability per position for the position-based model;
        by default ``1 / position``.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed.

    Returns
    -------
    sim : SimulatedClickLog
        The flat ``log`` (see :class:`SimulatedClickLog`), the true
        ``examination`` and the ``click_model``.

    See Also
    --------
    counterfactual_report : Estimate a new ranker's clicks from such a log.

    Examples
    --------
    >>> from skndcg.online import simulate_click_log
    >>> sim = simulate_click_log(n_queries=200, logger="softmax", random_state=0)
    >>> log = sim.log
    >>> int(log["position"].notna().sum())  # 200 rankings of 10
    2000
    >>> round(float(log.groupby("qid")["logging_probability"].sum().iloc[0]), 6)
    10.0
    >>> round(sim.true_value(log["relevance"], k=10), 3) > round(
    ...     sim.true_value(-log["relevance"], k=10), 3)
    True
    """
    if n_shown > n_candidates:
        raise ValueError(
            f"n_shown={n_shown} is more than n_candidates={n_candidates}: a logged "
            "ranking shows at most every candidate."
        )
    rng = as_generator(random_state)
    exam = None
    if click_model == "pbm":
        exam = examination_or_default(examination, n_shown)
        if exam.shape != (n_shown,) or not np.all((exam >= 0) & (exam <= 1)):
            raise ValueError(
                f"examination must hold {n_shown} probabilities in [0, 1] (one per "
                f"shown position), got {np.asarray(examination)!r}."
            )
    elif examination is not None:
        raise ValueError("examination is for click_model='pbm' only.")
    n, m, reps = n_candidates, n_shown, impressions_per_query
    rel = rng.beta(1.0, 3.0, size=(n_queries, n))
    logit = np.log(rel / (1.0 - rel))
    feature = logit + rng.normal(0.0, 1.0, size=rel.shape)
    logging_score = logit + rng.normal(0.0, 1.0, size=rel.shape)
    if logger == "uniform":
        lw = np.zeros_like(rel)
        prob = np.full(rel.shape, m / n)
    else:
        lw = logging_score / temperature
        prob = inclusion_probability(lw, m)
    # every impression: (n_queries * reps) rankings
    lw_all = np.repeat(lw, reps, axis=0)
    rel_all = np.repeat(rel, reps, axis=0)
    top = sample_rankings(lw_all, m, rng)  # item index at positions 1..m
    n_imp = n_queries * reps
    position = np.full((n_imp, n), np.nan)
    np.put_along_axis(position, top, np.arange(1, m + 1, dtype=np.float64)[None], 1)
    rel_shown = np.take_along_axis(rel_all, top, axis=1)
    attracted = rng.random(rel_shown.shape) < rel_shown
    if click_model == "pbm":
        clicked = attracted & (rng.random(rel_shown.shape) < exam[None, :])
    else:
        first = np.where(attracted.any(1), attracted.argmax(1), m)
        clicked = np.arange(m)[None, :] == first[:, None]
    click = np.zeros((n_imp, n), np.int8)
    np.put_along_axis(click, top, clicked.astype(np.int8), 1)
    query = np.repeat(np.arange(n_queries), reps)
    log = pd.DataFrame(
        {
            "qid": np.repeat(np.arange(n_imp), n),
            "query": np.repeat(query, n),
            "item": (query[:, None] * n + np.arange(n)[None, :]).ravel(),
            "position": position.ravel(),
            "click": click.ravel(),
            "logging_probability": np.repeat(prob, reps, axis=0).ravel(),
            "relevance": rel_all.ravel(),
            "feature": np.repeat(feature, reps, axis=0).ravel(),
            "logging_score": np.repeat(logging_score, reps, axis=0).ravel(),
        }
    )
    return SimulatedClickLog(log, exam, click_model)
