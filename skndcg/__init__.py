"""skndcg: group-aware ranking evaluation and model selection for scikit-learn.

The sub-packages, one line each (docs/architecture.rst draws how they fit):

- :mod:`skndcg.metrics`: the measures on flat ``(y_true, y_score, qid)`` arrays,
  the registry of measures, reports and scikit-learn scorers.
- :mod:`skndcg.io`: TREC runs and qrels, CSV and Parquet predictions, read and
  joined.
- :mod:`skndcg.evaluation`: comparisons with intervals and tests, protocols
  (full catalogue, sampled), position bias, monitoring over time.
- :mod:`skndcg.online`: counterfactual estimates from click logs, interleaving,
  A/B tests of ranking metrics.
- :mod:`skndcg.model_selection`: splitters for grouped, time-ordered data.
- :mod:`skndcg.ranker`: :class:`~skndcg.ranker.QueryRanker`, which lets
  LightGBM/XGBoost rankers run inside ``GridSearchCV``.
- :mod:`skndcg.recommend`: recommenders as estimators, candidates, features and
  the catalogue scorer.
- :mod:`skndcg.datasets`: MovieLens-style data, generated or loaded.
- :mod:`skndcg.plotting`: plots of reports and comparisons.
- :mod:`skndcg.dask`: the measures on Dask DataFrames.
- :mod:`skndcg.spark`: the measures on Spark DataFrames.
- :mod:`skndcg.streaming`: the measures over files larger than memory.
- ``skndcg.torch``: the measures on torch tensors, inside a training loop.
- ``skndcg.cli``: the ``skndcg`` command line.
- ``skndcg.demo``: the demo application (``skndcg demo``).
- ``skndcg.utils``: private helpers shared by every sub-package.
- ``skndcg._native``: the compiled-code infrastructure (numba, threads).
- ``skndcg._partial``: the scale-out driver of Dask, Spark and streaming.
"""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
