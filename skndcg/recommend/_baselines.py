"""One feature column as a ranking model: the baselines of a comparison."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from ..utils._args import check_flags


class FeatureColumnRanker(BaseEstimator):
    """One feature column as a ranking model: a baseline with ``predict``.

    Parameters
    ----------
    column : str
        The column whose value is the score, for example ``"pop_short"`` or
        ``"cooc"`` of :class:`HistoryFeatures`.
    ascending : bool, default=False
        False: higher values rank first; True: lower values rank first (a
        rank column such as ``"stage_rank"``, the candidate stage's order
        with its popularity fallback).
    tie_break : str or None, default=None
        A second column (higher first) that orders rows tied on ``column``:
        ``FeatureColumnRanker("cooc", tie_break="pop_log")`` is item kNN
        with the popularity fallback for users without a past. The scores
        are then positions (0 to n - 1) of that order over the rows given.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.recommend import FeatureColumnRanker
    >>> X = pd.DataFrame({"qid": [0, 0], "pop_log": [1.0, 3.0]})
    >>> FeatureColumnRanker("pop_log").fit(X).predict(X).tolist()
    [1.0, 3.0]
    """

    def __init__(self, column, *, ascending=False, tie_break=None):
        self.column = column
        self.ascending = ascending
        self.tie_break = tie_break

    def fit(self, X, y=None, **fit_params):
        """Check that ``X`` has the column; nothing is learned.

        Parameters
        ----------
        X : pandas.DataFrame
            Feature rows.
        y : array-like or None, default=None
            Ignored.
        **fit_params : dict
            Ignored (a search may route ``qid`` or weights here).

        Returns
        -------
        self : object
            The ranker.
        """
        self._check(X)
        self.is_fitted_ = True
        return self

    def _check(self, X):
        check_flags(ascending=self.ascending)
        for col in (self.column, self.tie_break):
            if col is None:
                continue
            if not isinstance(X, pd.DataFrame) or col not in X.columns:
                got = list(X.columns) if isinstance(X, pd.DataFrame) else type(X)
                raise ValueError(
                    f"FeatureColumnRanker needs a DataFrame with the column {col!r}, "
                    f"got {got}."
                )

    def predict(self, X):
        """The column's values as scores.

        Parameters
        ----------
        X : pandas.DataFrame
            Feature rows holding ``column`` (and ``tie_break``).

        Returns
        -------
        scores : ndarray of shape (n_rows,)
            float64, negated when ``ascending``; positions of the order
            with ``tie_break``.
        """
        self._check(X)
        values = X[self.column].to_numpy(np.float64)
        values = -values if self.ascending else values
        if self.tie_break is None:
            return values
        order = np.lexsort((X[self.tie_break].to_numpy(np.float64), values))
        score = np.empty(values.size)
        score[order] = np.arange(values.size, dtype=np.float64)
        return score
