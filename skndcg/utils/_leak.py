"""Notice when a model is scored on queries it was fitted on (a fold leak).

Scoring the very rows of the fit (``return_train_score=True``, or predicting on
the training frame) is not a leak: when the scored queries and their row counts
(:func:`query_fingerprint`) are exactly those of the fit, nothing is said.
"""

from __future__ import annotations

import warnings

import numpy as np


class QueryLeakWarning(UserWarning):
    """A model is scored on queries it was fitted on.

    Raised as a warning by :class:`~skndcg.ranker.QueryRanker` (at
    ``predict`` and ``score`` time when query ids are known, and by the
    scorers of :func:`~skndcg.metrics.make_ranking_scorer`) when some of the
    queries it ranks were among the queries it was fitted on, which happens
    when a splitter such as ``KFold`` cuts queries in two. Turn it into an
    error with ``warnings.simplefilter("error", QueryLeakWarning)``; silence
    it for protocols that reuse query ids on purpose with
    ``QueryRanker(..., query_overlap="ignore")``.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from sklearn.linear_model import LinearRegression
    >>> from skndcg.ranker import QueryLeakWarning, QueryRanker
    >>> X = pd.DataFrame({"qid": [1, 1, 2, 2], "f": [0.1, 0.4, 0.3, 0.9]})
    >>> ranker = QueryRanker(LinearRegression()).fit(X, [0, 1, 0, 1])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ranker.predict(X.iloc[:1])  # one row of a query of the fit
    >>> [w.category.__name__ for w in caught]
    ['QueryLeakWarning']
    """


def query_fingerprint(qid) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique 64-bit hashes of ``qid`` (integral floats hash as
    integers) and the number of rows of each."""
    import pandas as pd  # only a fitted QueryRanker needs it

    arr = np.asarray(qid)
    if arr.dtype.kind == "f" and arr.size and np.all(np.mod(arr, 1) == 0):
        arr = arr.astype(np.int64)
    elif arr.dtype.kind in "iub":
        arr = arr.astype(np.int64, copy=False)
    elif arr.dtype.kind in "US":
        arr = arr.astype(object)
    return np.unique(pd.util.hash_array(arr, categorize=True), return_counts=True)


def check_query_overlap(estimator, qid, *, caller: str) -> None:
    """Warn with :class:`QueryLeakWarning` if ``estimator`` was fitted on
    queries of ``qid``; one without QueryRanker.fit's ``_fit_queries`` (or with
    ``query_overlap="ignore"``) is ignored."""
    seen = getattr(estimator, "_fit_queries", None)
    if seen is None or getattr(estimator, "query_overlap", "warn") == "ignore":
        return
    hashes, counts = query_fingerprint(qid)
    fit_hashes, fit_counts = seen
    if np.array_equal(hashes, fit_hashes) and np.array_equal(counts, fit_counts):
        return  # the rows of the fit themselves (a training score)
    n_overlap = int(np.isin(hashes, fit_hashes, assume_unique=True).sum())
    if n_overlap == 0:
        return
    warnings.warn(
        f"{caller}: {n_overlap} of the {hashes.size} queries being ranked were "
        f"also in the data the model was fitted on ({fit_hashes.size} queries): "
        "rows of one query are on both sides of the split, so the score is "
        "optimistic. Keep queries whole with GroupKFold or GroupTimeSeriesSplit "
        "(skndcg.model_selection), or pass groups=<query ids> to the search or "
        "cross_validate with a group-aware splitter. If the protocol reuses "
        "query ids on purpose, set QueryRanker(..., query_overlap='ignore').",
        QueryLeakWarning,
        stacklevel=3,
    )
