"""skndcg: group-aware ranking evaluation and model selection for scikit-learn.

The package is organised in sub-packages:

- :mod:`skndcg.metrics`: NDCG@k and the ranking-metric family on flat
  ``(y_true, y_score, qid)`` arrays, plus scorers for model selection.
- :mod:`skndcg.model_selection`: :class:`~skndcg.model_selection.GroupTimeSeriesSplit`.
- :mod:`skndcg.ranker`: :class:`~skndcg.ranker.QueryRanker`, which lets
  LightGBM/XGBoost rankers run inside ``GridSearchCV``.
- :mod:`skndcg.datasets`: MovieLens-style data, generated or loaded.
"""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
