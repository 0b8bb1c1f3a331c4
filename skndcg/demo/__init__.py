"""The demo application: ``skndcg demo`` / ``make demo``.

It sits on top of the library and uses only its public pieces: a ratings log
becomes user x month ranking queries (:func:`skndcg.datasets.make_ranking_task`),
a protocol splitter holds queries out and draws the tuning folds by the same
rule (:class:`skndcg.model_selection.GlobalTimeSplit`,
:class:`~skndcg.model_selection.LeaveLastNSplit`,
:class:`~skndcg.model_selection.UserFractionSplit`), a LightGBM ranker is tuned
(:class:`skndcg.ranker.QueryRanker`, :func:`skndcg.metrics.make_ranking_scorer`)
and compared on the held-out queries with the strongest simple baseline, on
sampled candidates or the whole catalogue
(:func:`skndcg.evaluation.full_catalogue_report` with
:class:`skndcg.datasets.CandidateFeatures`), with intervals over queries and
over users.
"""

DEFAULT_OUT = "skndcg_demo_output"

__all__ = ["DEFAULT_OUT", "run_demo"]


def __getattr__(name):
    # Loaded on first use, so the command line's parser does not import
    # scikit-learn and LightGBM just to print a default folder name.
    if name == "run_demo":
        from ._run import run_demo

        return run_demo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), "run_demo"])
