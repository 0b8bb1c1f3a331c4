"""Recommenders as scikit-learn estimators, selected under the reported protocol.

- Candidate generators fitted on the past: :class:`PopularityRecommender`
  (all-time, recent or time-decayed), :class:`ItemKNNRecommender`
  (item-to-item co-occurrence) and :class:`EASERecommender` (a linear item
  model in closed form).
- :class:`HistoryFeatures`: the one candidate and feature builder that
  training rows, tuning and the hold-out share: per query (a user in a time
  window), the eligible items, the candidate stage's best items and
  point-in-time features read from the query's past only.
- :func:`make_catalogue_scorer`: a ``scoring=`` for scikit-learn's searches
  that ranks every eligible item of each validation query (or the candidate
  stage's output), not only the rows of ``X``; :func:`catalogue_report` is
  the same ranking as a per-query report.
- :class:`FeatureColumnRanker`: one feature column as a model (baselines).
"""

from ._baselines import FeatureColumnRanker
from ._features import HistoryFeatures
from ._generators import EASERecommender, ItemKNNRecommender, PopularityRecommender
from ._scorer import CatalogueFallbackWarning, catalogue_report, make_catalogue_scorer

__all__ = [
    "CatalogueFallbackWarning",
    "EASERecommender",
    "FeatureColumnRanker",
    "HistoryFeatures",
    "ItemKNNRecommender",
    "PopularityRecommender",
    "catalogue_report",
    "make_catalogue_scorer",
]
