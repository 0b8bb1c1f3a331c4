"""Meta-estimators that make learning-to-rank models work in scikit-learn."""

from skndcg.ranker._query_ranker import QueryRanker
from skndcg.utils._leak import QueryLeakWarning

__all__ = ["QueryLeakWarning", "QueryRanker"]
