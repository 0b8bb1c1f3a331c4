"""Examination propensity per position, estimated from a click log."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.stats import norm
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ...utils._constraints import Count
from ...utils._docstrings import with_references
from ...utils._seeds import integer_draw
from .._stats._resampling import check_length, check_resamples, unit_sums
from ._em import cells, regression_em, warn_sparse_em

_REFERENCES = """
    References
    ----------
    .. [1] A. Agarwal, I. Zaitsev, X. Wang, C. Li, M. Najork and T. Joachims,
       "Estimating Position Bias without Intrusive Interventions", WSDM 2019.
    .. [2] X. Wang, N. Golbandi, M. Bendersky, D. Metzler and M. Najork, "Position
       Bias Estimation for Unbiased Learning to Rank in Personal Search",
       WSDM 2018.
"""


@dataclass(frozen=True)
class PositionBias:
    """Examination propensity per position, relative to position 1.

    Returned by :func:`estimate_position_bias`. It converts to its
    ``propensity`` array, so it can be passed as ``discount=`` to every metric.

    Parameters
    ----------
    propensity : ndarray of shape (n_positions,)
        Propensity of positions 1, 2, ...; the first value is 1.0.
    low, high : ndarray of shape (n_positions,)
        Bootstrap interval of each propensity (queries resampled, the whole
        fit repeated on each resample), on the log scale around the estimate:
        ``propensity * exp(-+z * sd)`` with ``sd`` the bootstrap standard
        deviation of the log propensity. It always holds the estimate. NaN
        when ``n_resamples=0``.
    method : str
        ``"intervention"`` or ``"em"``: the estimator used.
    n_impressions : ndarray of shape (n_positions,)
        Logged impressions per position.
    band_low, band_high : ndarray of shape (n_positions,) or None
        Simultaneous band: the whole curve lies inside it with the stated
        confidence (the bootstrap maximum of the standardised deviations over
        the positions replaces ``z``). None when not computed.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.evaluation import PositionBias
    >>> bias = PositionBias(np.array([1.0, 0.5]), np.array([1.0, 0.4]),
    ...                     np.array([1.0, 0.6]), "em", np.array([10, 10]))
    >>> np.asarray(bias)
    array([1. , 0.5])
    """

    propensity: np.ndarray
    low: np.ndarray
    high: np.ndarray
    method: str
    n_impressions: np.ndarray
    band_low: np.ndarray | None = None
    band_high: np.ndarray | None = None

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.propensity, dtype=dtype)

    def __len__(self):
        return len(self.propensity)


def _per_impression(values, name, n):
    must = f"{name} must hold one value per impression ({n} values)"
    return check_length(values, n, must)


def _codes(values, name, n):
    _, codes = np.unique(_per_impression(values, name, n), return_inverse=True)
    return codes.ravel()


def _check_log(position, click, qid, doc, max_position):
    pos = np.asarray(position)
    if pos.ndim != 1 or pos.size == 0:
        raise ValueError(
            f"position must be a non-empty 1-D array, got shape {pos.shape}."
        )
    if not np.issubdtype(pos.dtype, np.number) or np.any(pos != np.round(pos)):
        raise ValueError("position must hold whole numbers (1 for the top slot).")
    if pos.min() < 1:
        raise ValueError(
            f"position must be >= 1 (1 is the top slot), got {pos.min().item()!r} at "
            f"row {int(np.argmin(pos))}."
        )
    pos = pos.astype(np.int64)
    n = pos.size
    clk = _per_impression(click, "click", n)
    if clk.dtype != bool and not np.isin(clk, (0, 1)).all():
        bad = clk[~np.isin(clk, (0, 1))][0]
        raise ValueError(f"click must be 0/1 or boolean, got {bad.item()!r}.")
    clk = clk.astype(np.float64)
    query = _codes(qid, "qid", n)
    pair = np.unique(
        np.stack([query, _codes(doc, "doc", n)], axis=1),
        axis=0,
        return_inverse=True,
    )[1].ravel()
    keep = pos <= max_position if max_position is not None else np.ones(n, bool)
    if not keep.any():
        raise ValueError(f"no impression at a position <= max_position={max_position}.")
    return pos[keep], clk[keep], query[keep], pair[keep], keep


def _solve(ii, jj, num, den, pair_weight, n_pos):
    """Least squares on the log ratios, log propensity of position 1 fixed at 0."""
    ok = (num > 0) & (den > 0) & (pair_weight > 0)
    ratio = np.log(np.where(ok, num, 1.0) / np.where(ok, den, 1.0))
    A = np.zeros((ii.size, n_pos))
    A[np.arange(ii.size), ii] = 1.0
    A[np.arange(ii.size), jj] = -1.0
    sw = np.sqrt(np.where(ok, pair_weight, 0.0))
    A = A[:, 1:] * sw[:, None]
    coef, *_ = np.linalg.lstsq(A, ratio * sw, rcond=None)
    return np.exp(np.concatenate([[0.0], coef]))


def _intervention(pos, clk, query, pair, n_pos, n_resamples, draw):
    cell_pair, cell_pos, n, c, cell_query = cells(pos, clk, query, pair, n_pos)
    # Per-query sums of the matched click rates for every pair of positions.
    sel = np.isin(cell_pair, np.flatnonzero(np.bincount(cell_pair) >= 2))
    if not sel.any():
        raise ValueError(
            "no (qid, doc) pair of the log was shown at two different positions, "
            "so intervention harvesting has nothing to compare; it needs the same "
            "document at different positions (several rankers, or randomised "
            "swaps). Use method='em' instead."
        )
    rows, row_of = np.unique(cell_pair[sel], return_inverse=True)
    N = np.zeros((rows.size, n_pos))
    C = np.zeros((rows.size, n_pos))
    N[row_of, cell_pos[sel]] = n[sel]
    C[row_of, cell_pos[sel]] = c[sel]
    q = np.zeros(rows.size, np.int64)
    q[row_of] = cell_query[sel]
    ii, jj = np.triu_indices(n_pos, k=1)
    both = (N[:, ii] > 0) & (N[:, jj] > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(both, N[:, ii] * N[:, jj] / (N[:, ii] + N[:, jj]), 0.0)
        rate_i = np.where(both, C[:, ii] / N[:, ii], 0.0)
        rate_j = np.where(both, C[:, jj] / N[:, jj], 0.0)
    n_queries = int(cell_query.max()) + 1
    fewer = np.where(both, np.minimum(C[:, ii], C[:, jj]), 0.0)
    num, den, clicks = (
        unit_sums(x, q, n_queries) for x in (w * rate_i, w * rate_j, fewer)
    )
    tot_clicks = clicks.sum(axis=0)
    # The positions no usable pair links to position 1 (0-based, sorted).
    usable = tot_clicks > 0
    links = coo_matrix((np.ones(usable.sum()), (ii[usable], jj[usable])), (n_pos,) * 2)
    label = connected_components(links, directed=False)[1]
    missing = np.flatnonzero(label != label[0]).tolist()
    if missing:
        raise ValueError(
            f"position(s) {[m + 1 for m in missing]} share no clicked document with "
            "the other positions, so intervention harvesting cannot place them; "
            "pass a smaller max_position or use method='em'."
        )
    est = _solve(ii, jj, num.sum(0), den.sum(0), tot_clicks, n_pos)
    boots = np.empty((n_resamples, n_pos))
    n_q = num.shape[0]
    for b in range(n_resamples):
        counts = np.bincount(draw(0, n_q, n_q), minlength=n_q)
        boots[b] = _solve(ii, jj, counts @ num, counts @ den, tot_clicks, n_pos)
    return est, boots


def _intervals(est, boots, confidence):
    """Pointwise intervals and the simultaneous band, on the log scale."""
    n_pos = est.shape[0]
    if not len(boots):
        nan = np.full(n_pos, np.nan)
        return nan, nan, nan, nan
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(boots)
        sd = np.nanstd(np.where(np.isfinite(logs), logs, np.nan), axis=0, ddof=1)
        sd = np.nan_to_num(sd, nan=np.inf)
        sd[0] = 0.0  # position 1 is 1 by definition
        z = norm.ppf(0.5 + confidence / 2)
        gap = np.abs(logs[:, 1:] - np.log(est[1:]))
        # A position every replicate puts at the estimate (sd 0) never moves.
        dev = np.where(sd[1:] > 0, gap / sd[1:], np.where(gap > 0, np.inf, 0.0))
    dev = np.where(np.isnan(dev), np.inf, dev)
    c = float(np.quantile(dev.max(axis=1), confidence)) if n_pos > 1 else z
    c = max(c, z)
    return tuple(est * np.exp(s * sd) for s in (-z, z, -c, c))


@validate_params(
    {
        "position": ["array-like"],
        "click": ["array-like"],
        "qid": ["array-like"],
        "doc": ["array-like"],
        "method": [StrOptions({"auto", "intervention", "em"})],
        "features": ["array-like", None],
        "max_position": [Count(1), None],
        "n_resamples": [Count(0)],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Count(1)],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
@with_references(_REFERENCES)
def estimate_position_bias(
    position,
    click,
    *,
    qid,
    doc,
    method="auto",
    features=None,
    max_position=None,
    n_resamples=100,
    confidence=0.95,
    max_iter=200,
    tol=1e-7,
    random_state=None,
):
    """Examination propensity per position from a click log (position-based model).

    Under the position-based click model a document ``d`` shown for query ``q``
    at position ``k`` is clicked with probability ``p_k * r(q, d)``: the
    propensity ``p_k`` that the user examines position ``k`` times the
    document's relevance. The estimate is relative to position 1, so it can
    replace the logarithmic discount: ``discount=estimate_position_bias(...)``.

    Two estimators:

    - ``"intervention"``: intervention harvesting (Agarwal et al., 2019). When the
      same document of the same query was shown at several positions (several
      rankers, or randomised swaps), its click rates at two positions differ
      only by the ratio of their propensities. Every pair of positions gives a
      ratio (click rates of the documents shown at both, weighted by their
      impressions); the log propensities are fitted to all ratios by least
      squares.
    - ``"em"``: regression EM (Wang et al., 2018), which needs no such
      variation. Expectation-maximisation of the position-based model, with one
      relevance per (query, document) pair, or with relevance predicted from
      ``features`` by logistic regression in each M step.

    ``"auto"`` takes intervention harvesting when some (query, document) pair
    was shown at two positions, and EM otherwise.

    Parameters
    ----------
    position : array-like of shape (n_impressions,)
        1-based position of each impression.
    click : array-like of shape (n_impressions,)
        1 (or True) when the impression was clicked.
    qid, doc : array-like of shape (n_impressions,)
        Query and document ids of each impression.
    method : {"auto", "intervention", "em"}, default="auto"
        Estimator, see above.
    features : array-like of shape (n_impressions, n_features), default=None
        Relevance features for ``method="em"`` (regression EM); constant within
        a (query, document) pair.
    max_position : int >= 1, default=None
        Estimate positions 1 to ``max_position`` only (impressions below are
        left out); ``None`` keeps every logged position.
    n_resamples : int >= 0, default=100
        Bootstrap resamples of the queries for the intervals; 0 skips them.
        Otherwise at least ``1 + 1 / (1 - confidence)`` (21 at 95%), so that
        the band's quantile at ``confidence`` has a resample beyond it.
    confidence : float in (0, 1), default=0.95
        Coverage of the intervals.
    max_iter : int, default=200
        Most EM iterations.
    tol : float, default=1e-7
        EM stops when no propensity moves by more than ``tol``.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the bootstrap.

    Returns
    -------
    bias : PositionBias
        ``propensity`` (first value 1.0), its interval ``low``/``high``, the
        ``method`` used and ``n_impressions`` per position. Usable as an array.

    {references}

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.evaluation import estimate_position_bias
    >>> from skndcg.metrics import grouped_ndcg_score
    >>> rng = np.random.default_rng(0)
    >>> qid = np.tile(np.repeat(np.arange(100), 4), 40)  # 100 queries, 40 times
    >>> doc = np.tile([0, 1, 2, 3], 4000)
    >>> position = np.concatenate([rng.permutation(4) + 1 for _ in range(4000)])
    >>> click = rng.random(16000) < 0.6 / position
    >>> bias = estimate_position_bias(position, click, qid=qid, doc=doc,
    ...                               n_resamples=30, random_state=0)
    >>> bias.method, np.round(bias.propensity, 1)
    ('intervention', array([1. , 0.5, 0.3, 0.3]))
    >>> score = grouped_ndcg_score([1, 0, 2], [0.2, 0.9, 0.5], [1, 1, 1], k=3,
    ...                            discount=bias)
    """
    if n_resamples:
        check_resamples(n_resamples, confidence, tails=1)
    draw = integer_draw(random_state)
    pos, clk, query, pair, keep = _check_log(position, click, qid, doc, max_position)
    n_pos = int(pos.max())
    counts = np.bincount(pos - 1, minlength=n_pos)
    if (counts == 0).any():
        gap = int(np.flatnonzero(counts == 0)[0]) + 1
        raise ValueError(
            f"position {gap} has no impression, but position {n_pos} has; "
            "propensities are estimated for consecutive positions from 1 (pass "
            "max_position to stop earlier)."
        )
    if not clk.any():
        raise ValueError(
            f"click holds no click among its {clk.size} impressions; a log without "
            "clicks says nothing about how often each position is examined."
        )
    shown = np.unique(np.stack([pair, pos], axis=1), axis=0)[:, 0]
    varied = np.unique(shown).size < shown.size
    if method == "auto":
        method = "intervention" if varied else "em"
    if method == "em" and features is None and not varied:
        raise ValueError(
            "every (qid, doc) pair was shown at one position only and no features "
            "were given: a relevance per pair then explains the clicks at any "
            "propensities. Pass features= (regression EM predicts relevance from "
            "them) or log the same documents at several positions."
        )
    if method == "intervention":
        est, boots = _intervention(pos, clk, query, pair, n_pos, n_resamples, draw)
    else:
        X = None
        if features is None:
            warn_sparse_em(pos, pair)
        else:
            X = np.asarray(features, dtype=np.float64)
            if X.ndim != 2 or X.shape[0] != keep.size:
                raise ValueError(
                    f"features must have shape (n_impressions, n_features) = "
                    f"({keep.size}, ...), got {X.shape}."
                )
            if not np.isfinite(X).all():
                row, col = np.argwhere(~np.isfinite(X))[0]
                raise ValueError(
                    f"features must be finite, got {float(X[row, col])!r} at "
                    f"impression {row}, feature {col}."
                )
            X = X[keep]
        est, boots = regression_em(
            pos, clk, query, pair, n_pos, X, max_iter, tol, n_resamples, draw
        )
    low, high, band_low, band_high = _intervals(est, boots, confidence)
    return PositionBias(est, low, high, method, counts, band_low, band_high)
