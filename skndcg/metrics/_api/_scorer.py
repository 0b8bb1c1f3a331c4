"""Group-aware scorers usable as ``scoring=`` in scikit-learn model selection.

A ``make_scorer`` scorer never receives ``X``, so it cannot read the query id
column: that is why this is a small scorer class of its own rather than
``sklearn.metrics.make_scorer``, with the scorer interface scikit-learn relies
on (``set_score_request``, ``get_metadata_routing``, pickling, deep copies).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest

from skndcg.utils._query_ids import has_column, resolve_qid

from ...utils._args import metric_names
from ...utils._docstrings import with_references
from ...utils._leak import check_query_overlap
from .._catalogue._names import parse_metric
from .._catalogue._registry import ensure_registered
from .._conventions import DATA_OPTIONS, OPTIONS, call_options
from .._core._engine import check_k
from .._core._side import check_side_inputs
from ._ranking import REFERENCES, grouped_ranking_scores

__all__ = ["make_ndcg_scorer", "make_ranking_scorer"]

#: Options passed on to :func:`grouped_ranking_scores`.
_OPTIONS = tuple(key for key in OPTIONS if key not in DATA_OPTIONS)


def _check_metric_options(options: dict) -> None:
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
        if key not in _OPTIONS:
            raise TypeError(
                f"unknown metric option {key!r}; valid options are {list(_OPTIONS)}."
            )
    call_options(**options)


def _routing_enabled() -> bool:
    return bool(get_config().get("enable_metadata_routing", False))


def _hint_no_ids() -> str:
    if _routing_enabled():
        return (
            "Metadata routing is on: pass qid= to the search's fit (or in "
            "params= of cross_validate), and check that this scorer requests it "
            "(set_score_request(qid=True), the default)."
        )
    return (
        "Metadata routing is off, so a qid passed to a search's fit reaches the "
        "model but never a scorer: keep the query ids in the X column."
    )


class _OneMetricScores(dict):
    """The dict of a one-metric list scorer, printed with how to get a number
    (scikit-learn shows it with ``%s`` where it needs one: cross_val_score,
    GridSearchCV(refit=True))."""

    def __str__(self):
        (name,) = self
        return (
            f"{dict.__repr__(self)} (a scorer made from a list of metrics returns "
            f"a dict; for a single number pass the name alone: "
            f"make_ranking_scorer({name!r}))"
        )


def _qid_col_of(estimator, qid_col):
    """The scorer's own ``qid_col``, else the estimator's, else ``"qid"``."""
    if qid_col is not None:
        return qid_col
    declared = getattr(estimator, "qid_col", None)
    if isinstance(declared, (str, Integral)) and not isinstance(declared, bool):
        return declared
    return "qid"


def _uses_column(estimator, qid_col) -> bool:
    """Whether ``estimator`` was fitted with ``qid_col`` among its features."""
    return qid_col in list(getattr(estimator, "feature_names_in_", ()))


class _RankingScorer:
    """The scorer :func:`make_ranking_scorer` and :func:`make_ndcg_scorer` build
    and document."""

    def __init__(self, metrics, single, qid_col, options, signature, side=None):
        self._side = side  # (item_col, popularity) of the beyond-accuracy measures
        self._metrics = metrics
        self._single = single
        self._qid_col = qid_col
        self._options = options
        self._signature = signature
        self._requests = {"qid": True, "sample_weight": None}  # the default requests
        # The measures added with define_measure that the names use: pickled
        # with the scorer, registered again in a worker process.
        definitions = (parse_metric(n).definition for n in metrics)
        self._measures = tuple(dict.fromkeys(m for m in definitions if not m.builtin))

    def __setstate__(self, state):
        self.__dict__.update(state)
        ensure_registered(self.__dict__.get("_measures", ()))

    def __repr__(self):
        return self._signature

    def _routing_repr(self):
        return repr(self)

    def __call__(self, estimator, X, y_true, *, qid=None, sample_weight=None):
        """Score a fitted ``estimator``'s predictions on ``X`` per query, as
        :func:`make_ranking_scorer` describes; ``qid``, when given, wins over
        the column, and ``sample_weight`` holds query weights, as in
        :func:`grouped_ranking_scores`."""
        caller = repr(self)
        qid_col = _qid_col_of(estimator, self._qid_col)
        try:
            X_model, qid = resolve_qid(
                X,
                qid,
                qid_col=qid_col,
                caller=caller,
                drop_col=not _uses_column(estimator, qid_col),
            )
        except ValueError as exc:
            if qid is None and not has_column(X, qid_col):
                raise ValueError(f"{exc} {_hint_no_ids()}") from None
            raise
        check_query_overlap(estimator, qid, caller=caller)
        side = {}
        if getattr(self, "_side", None) is not None:
            item_col, side["popularity"] = self._side
            if not has_column(X, item_col):
                raise ValueError(
                    f"{caller}: X has no column {item_col!r} (item_col) holding "
                    "the item of each row; pass a pandas or polars DataFrame "
                    "with it."
                )
            side["item_id"] = np.asarray(X[item_col])
            if has_column(X_model, item_col) and not _uses_column(estimator, item_col):
                X_model = (
                    X_model.drop(columns=[item_col])
                    if hasattr(X_model, "iloc")
                    else X_model.drop(item_col)
                )
        n_rows, n_labels = qid.shape[0], len(y_true)
        if n_labels != n_rows:
            raise ValueError(
                f"{caller}: y_true has {n_labels} entries but X has {n_rows} rows; "
                "pass one relevance label per row."
            )
        y_score = np.asarray(estimator.predict(X_model))
        if y_score.ndim == 2 and y_score.shape[1] == 1:
            y_score = y_score[:, 0]
        if y_score.shape != (n_rows,):
            raise ValueError(
                f"{caller}: {type(estimator).__name__}.predict returned an array of "
                f"shape {y_score.shape}, but ranking needs one score per row, shape "
                f"({n_rows},). Score with a model that predicts a single value "
                "per row (a regressor or a ranker)."
            )
        scores = grouped_ranking_scores(
            y_true,
            y_score,
            qid,
            self._metrics,
            sample_weight=sample_weight,
            **side,
            **self._options,
        )
        # scikit-learn maximises scores: a measure where lower is better is
        # negated, as scikit-learn's own "neg_*" scorers are.
        for name in self._metrics:
            if not parse_metric(name).definition.higher_is_better:
                scores[name] = -scores[name]
        if self._single:
            return scores[self._metrics[0]]
        return _OneMetricScores(scores) if len(scores) == 1 else scores

    def _accept_sample_weight(self):
        # Without routing, GridSearchCV forwards fit's sample_weight to scorers
        # that accept it; per-row training weights are rarely the per-query
        # weights a ranking metric averages with, so the scorer declines them.
        return False

    def set_score_request(self, *, qid=UNCHANGED, sample_weight=UNCHANGED):
        """Set how ``qid`` and ``sample_weight`` are routed to this scorer.

        Only available with ``sklearn.set_config(enable_metadata_routing=True)``.

        Parameters
        ----------
        qid : bool, str or None, default=sklearn.utils.metadata_routing.UNCHANGED
            ``True`` (the default request) routes ``qid``; ``False`` ignores it
            (the column is used); a string routes the metadata of that name,
            for example ``"groups"`` to reuse the splitter's groups; ``None``
            raises if it is passed.
        sample_weight : bool, str or None, \
default=sklearn.utils.metadata_routing.UNCHANGED
            The same for ``sample_weight`` (query weights), which is not
            requested by default.

        Returns
        -------
        self : object
            The scorer, with updated requests.
        """
        if not _routing_enabled():
            raise RuntimeError(
                "This method is only available when metadata routing is enabled. "
                "You can enable it using "
                "sklearn.set_config(enable_metadata_routing=True)."
            )
        for name, alias in (("qid", qid), ("sample_weight", sample_weight)):
            if alias is UNCHANGED:
                continue
            # Validated by scikit-learn (True, False, None or an identifier).
            MetadataRequest(owner=self).score.add_request(param=name, alias=alias)
            self._requests[name] = alias
        return self

    def get_metadata_routing(self):
        """Get the metadata this scorer requests.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRequest
            ``qid`` requested by default, ``sample_weight`` on request.
        """
        request = MetadataRequest(owner=self)
        for name, alias in self._requests.items():
            request.score.add_request(param=name, alias=alias)
        return request


@with_references(REFERENCES)
def make_ranking_scorer(
    metrics, *, qid_col=None, item_col=None, popularity=None, **metric_options
):
    """Make a group-aware ranking scorer for ``scoring=`` in scikit-learn.

    The scorer is called as ``scorer(estimator, X, y_true, *, qid=None,
    sample_weight=None)``. It predicts once, then evaluates every metric per
    query with :func:`grouped_ranking_scores`. Query ids come from ``qid``
    (routed by scikit-learn when metadata routing is enabled: the scorer
    requests it by default) or else from the ``qid_col`` column of a pandas or
    polars DataFrame ``X``: the scorer's own ``qid_col`` if given, else the
    ``qid_col`` of the estimator it scores (so ``QueryRanker(...,
    qid_col="query")`` declares the column for its scorers too), else
    ``"qid"``. The column is dropped before ``predict`` unless the
    estimator was fitted with it (its ``feature_names_in_`` lists it).

    Parameters
    ----------
    metrics : str or list of str
        A metric name, ir-measures style and case-insensitive (``"ndcg@10"``,
        ``"dcg@5"``, ``"map@10"``, ``"mrr"``, ``"p@5"``, ``"r@20"``,
        ``"hit@10"``): the scorer returns a float. A list of names: the scorer
        returns a dict keyed by those names (use it with ``refit="ndcg@10"``),
        computed from one ``predict`` call.
    qid_col : str, int or None, default=None
        DataFrame column holding the query ids, read when no ``qid`` is passed.
        ``None`` reads the ``qid_col`` attribute of the scored estimator (a
        :class:`~skndcg.ranker.QueryRanker`), falling back to ``"qid"``.
    item_col : str, int or None, default=None
        DataFrame column holding the item of each row, for the beyond-accuracy
        measures (``"novelty@10"``, ``"arp@10"``, ...); dropped before
        ``predict`` unless the estimator was fitted with it.
    popularity : dict or array-like, default=None
        The items' training popularity, for the same measures, as in
        :func:`grouped_ranking_scores`.
    **metric_options : dict
        Passed to :func:`grouped_ranking_scores`: ``gain``, ``discount``,
        ``ties``, ``empty``, ``convention``, ``rel_threshold``,
        ``ap_denominator``, ``p_denominator``.

    Returns
    -------
    scorer : callable
        A scorer object with ``set_score_request`` and
        ``get_metadata_routing``; picklable and safe to deep-copy.

    See Also
    --------
    make_ndcg_scorer : The NDCG@k scorer.
    grouped_ranking_scores : The metrics on flat arrays.

    Notes
    -----
    Inside ``GridSearchCV`` or ``cross_validate``, scikit-learn turns an error
    raised by a scorer into a ``nan`` score and a warning unless
    ``error_score="raise"`` is set; set it so that a missing query id stops
    the search.

    {references}

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import LinearRegression
    >>> from skndcg.metrics import make_ranking_scorer
    >>> X = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "f": [3, 1, 2, 1, 2]})
    >>> y = [2, 0, 1, 0, 1]
    >>> model = LinearRegression().fit(X[["f"]], y)
    >>> scorer = make_ranking_scorer(["ndcg@2", "mrr"])
    >>> scorer
    make_ranking_scorer(['ndcg@2', 'mrr'])
    >>> {name: round(value, 3) for name, value in scorer(model, X, y).items()}
    {'ndcg@2': 1.0, 'mrr': 1.0}
    """
    names = tuple(metric_names(metrics, (list, tuple)))
    if len({parse_metric(m) for m in names}) != len(names):
        raise ValueError(
            f"metrics has duplicates: {list(names)!r} names the same metric more "
            "than once."
        )
    single = isinstance(metrics, str)
    if qid_col is not None and (
        isinstance(qid_col, bool) or not isinstance(qid_col, (str, Integral))
    ):
        raise TypeError(
            f"qid_col must be None or a column name (str or int), got {qid_col!r} "
            f"({type(qid_col).__name__})."
        )
    _check_metric_options(metric_options)
    side = _side_of(names, item_col, popularity)
    args = [repr(metrics if single else list(names))]
    if qid_col is not None:
        args.append(f"qid_col={qid_col!r}")
    if side is not None:
        args.append(f"item_col={item_col!r}, popularity=<{type(popularity).__name__}>")
    args += [f"{key}={value!r}" for key, value in metric_options.items()]
    signature = f"make_ranking_scorer({', '.join(args)})"
    return _RankingScorer(names, single, qid_col, dict(metric_options), signature, side)


def _side_of(names, item_col, popularity):
    """``(item_col, popularity)`` for the metrics that read them, checked."""
    reads = check_side_inputs(
        names, {"item_col=": item_col, "popularity=": popularity},
        hint=" to make_ranking_scorer (the DataFrame column of item ids, and the "
        "training popularity)",
    )  # fmt: skip
    if not reads:
        return None
    if isinstance(item_col, bool) or not isinstance(item_col, (str, Integral)):
        raise TypeError(
            f"item_col must be a column name (str or int), got {item_col!r}."
        )
    from .._beyond._listwise import popularity_table  # (pandas: only when read)

    popularity_table(popularity)  # refused now, not as NaN in every fold of a search
    return item_col, popularity


@with_references(REFERENCES)
def make_ndcg_scorer(k=10, *, qid_col=None, **options):
    """Make a group-aware NDCG@k scorer for ``scoring=`` in scikit-learn.

    Shortcut for ``make_ranking_scorer(f"ndcg@{k}", qid_col=qid_col,
    **options)``; the scorer returns
    ``grouped_ndcg_score(y_true, estimator.predict(X), qid, k=k, **options)``.

    Parameters
    ----------
    k : int or None, default=10
        Cut-off; ``None`` counts the whole list.
    qid_col : str, int or None, default=None
        DataFrame column holding the query ids, read when no ``qid`` is passed;
        ``None`` takes the scored estimator's ``qid_col``, else ``"qid"``.
    **options : dict
        ``gain``, ``discount``, ``ties``, ``empty``, ``convention``, as in
        :func:`grouped_ndcg_score`.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true, *, qid=None, sample_weight=None)``
        returning a float; see :func:`make_ranking_scorer`.

    See Also
    --------
    make_ranking_scorer : Any metric, or several in one pass.
    grouped_ndcg_score : The metric on flat arrays.

    {references}

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import LinearRegression
    >>> from skndcg.metrics import make_ndcg_scorer
    >>> X = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "f": [3, 1, 2, 2, 1]})
    >>> y = [2, 0, 1, 0, 1]
    >>> model = LinearRegression().fit(X[["f"]], y)
    >>> scorer = make_ndcg_scorer(k=2)
    >>> scorer
    make_ndcg_scorer(k=2)
    >>> round(scorer(model, X, y), 4)
    0.8155

    The query ids can also be passed (or routed) as an array:

    >>> round(scorer(model, X[["f"]], y, qid=X["qid"]), 4)
    0.8155
    """
    k = check_k(k)
    name = "ndcg" if k is None else f"ndcg@{k}"
    scorer = make_ranking_scorer(name, qid_col=qid_col, **options)
    # Its arguments as make_ranking_scorer shows them, with k= for the name.
    rest = scorer._signature[len(f"make_ranking_scorer({name!r}") :]
    scorer._signature = f"make_ndcg_scorer(k={k!r}{rest}"
    return scorer
