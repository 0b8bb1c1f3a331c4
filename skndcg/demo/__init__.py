"""The demo application: ``skndcg demo`` / ``make demo``.

It sits on top of the library and uses only its public pieces: a ratings log
becomes user x month ranking queries (:func:`skndcg.datasets.make_ranking_task`),
a LightGBM ranker is tuned over time-ordered folds
(:class:`skndcg.model_selection.GroupTimeSeriesSplit`,
:class:`skndcg.ranker.QueryRanker`, :func:`skndcg.metrics.make_ranking_scorer`)
and compared on later queries with the strongest simple baseline, with
intervals over queries and over users.
"""

from ._run import DEFAULT_OUT, run_demo

__all__ = ["DEFAULT_OUT", "run_demo"]
