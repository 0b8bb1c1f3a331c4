"""What a ranking scorer accepts when it is built: its metric names and options."""

from __future__ import annotations

from ...utils._args import metric_names
from .._catalogue._names import parse_metric
from .._conventions import DATA_OPTIONS, call_options
from .._conventions import OPTIONS as _CALL_OPTIONS

#: Options passed on to :func:`grouped_ranking_scores`.
OPTIONS = tuple(key for key in _CALL_OPTIONS if key not in DATA_OPTIONS)


def check_metric_options(options: dict) -> None:
    """Refuse unknown or invalid metric options when the scorer is built."""
    for key in options:
        if key == "k":
            raise TypeError(
                "make_ranking_scorer got k=; put the cut-off in the metric name "
                "instead, for example 'ndcg@5', or use make_ndcg_scorer(k=5)."
            )
        if key == "sample_weight":
            raise TypeError(
                "sample_weight is not a scorer option: pass it when calling the "
                "scorer, or route it with scorer.set_score_request("
                "sample_weight=True) when metadata routing is enabled."
            )
        if key not in OPTIONS:
            raise TypeError(
                f"unknown metric option {key!r}; valid options are {list(OPTIONS)}."
            )
    call_options(**options)


def check_metrics(metrics) -> tuple[tuple, bool]:
    """Metric names as a tuple, and whether one name (not a list) was given."""
    names = metric_names(metrics, (list, tuple))
    canonical = [parse_metric(m) for m in names]
    if len(set(canonical)) != len(canonical):
        raise ValueError(
            f"metrics has duplicates: {names!r} names the same metric more than once."
        )
    return tuple(names), isinstance(metrics, str)
