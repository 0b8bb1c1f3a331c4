"""Meta-estimators that make learning-to-rank models work in scikit-learn."""

from skndcg.ranker._query_ranker import QueryRanker

__all__ = ["QueryRanker"]
