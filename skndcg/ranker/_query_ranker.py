"""QueryRanker: fit any ranker or regressor on per-row query ids."""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.validation import check_is_fitted

from skndcg.ranker._columns import (
    check_declared,
    check_feature_dtypes,
    check_same_columns,
    drop_roles,
    role_columns,
)
from skndcg.ranker._fit_args import (
    CONSUMED,
    build_fit_kwargs,
    check_labels,
    eval_kwargs,
    final_step,
    query_args,
    take,
)
from skndcg.ranker._pipeline_fit import fit_with_eval
from skndcg.ranker._response import check_fitted, response_method, scores
from skndcg.ranker._routing import request_on_clone, routing_enabled
from skndcg.utils._leak import check_query_overlap, query_fingerprint
from skndcg.utils._query_ids import column_names, resolve_qid


class QueryRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit a ranker, regressor or classifier on rows grouped by per-row query ids.

    ``QueryRanker`` takes one query id per row, either from a column of a
    pandas/polars DataFrame ``X`` (the default channel, which works with
    scikit-learn metadata routing off) or as a ``qid`` argument (routed by
    scikit-learn when ``sklearn.set_config(enable_metadata_routing=True)``).
    It sorts the rows by query (stable, queries in order of first appearance),
    derives what the inner model needs and fits a clone of ``estimator``:

    - a learning-to-rank model whose ``fit`` takes ``group`` (``LGBMRanker``)
      gets the group sizes; one whose ``fit`` takes ``qid`` (``XGBRanker``) or
      ``group_id`` (``CatBoostRanker``) gets the sorted query codes. The same
      holds for a Pipeline ending in one: the argument then goes to its final
      step.
    - any other estimator is fitted pointwise. A regressor ranks by
      ``predict``; a classifier by ``predict_proba``: the expected label
      ``sum_c P(c) * c`` for numeric classes (for 0/1 labels, the probability
      of class 1), the probability of ``classes_[1]`` for two other classes;
      without ``predict_proba``, by a one-column ``decision_function``. An
      estimator with none of these (a clusterer) is refused.

    The columns that are not features are declared once, here: ``qid_col``,
    ``time_col`` and ``drop_cols`` never reach the model, neither in ``X`` nor
    in eval sets, and the scorers of :mod:`skndcg.metrics` read ``qid_col``
    from the QueryRanker they score. A feature column that LightGBM or XGBoost
    cannot take (datetime, object, string) raises before the fit, naming it
    (checked on what reaches the model: inside a Pipeline, after its
    preprocessing when eval sets are given, else left to the Pipeline).

    Predictions come back in the caller's row order, and :meth:`score` is the
    mean NDCG@10 over queries, so ``GridSearchCV(QueryRanker(...))`` works with
    the default ``scoring=None``. Use a group-aware splitter such as
    ``GroupKFold`` so folds keep queries whole.

    Parameters
    ----------
    estimator : estimator object
        The model to fit, for example ``LGBMRanker()``, ``XGBRanker()``, any
        regressor, or a Pipeline ending in one of them. It is cloned.
    qid_col : str or int, default="qid"
        Name of the query-id column of a DataFrame ``X``. The column is removed
        before the inner model sees ``X`` (also when ``qid`` is passed
        explicitly), so the query id is never a feature.
    time_col : str, int or None, default=None
        Column holding the time of each row (what a time-ordered splitter
        such as :class:`~skndcg.model_selection.GroupTimeSeriesSplit` orders
        by); removed before the model sees ``X``. Must be in ``X`` at fit.
    drop_cols : list of str or int, str, int or None, default=None
        Further columns kept away from the model (user or item ids, ...).
        Must be in ``X`` at fit; dropped wherever present afterwards.
    query_overlap : {"warn", "ignore"}, default="warn"
        What to do when :meth:`predict` (given query ids), :meth:`score` or a
        ranking scorer ranks queries that were in the fit: ``"warn"`` issues a
        :class:`~skndcg.ranker.QueryLeakWarning` (a fold leak: the splitter
        cut queries in two); ``"ignore"`` is for protocols that reuse query
        ids on purpose (users seen in training). Scoring exactly the rows of
        the fit is never reported.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    n_features_in_ : int
        Number of features the inner model saw (``X`` without the ``qid_col``,
        ``time_col`` and ``drop_cols`` columns).
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of those features; only defined when ``X`` has string column
        names.
    n_queries_ : int
        Number of distinct queries seen during fit.
    response_method_ : str
        The method of ``estimator_`` that gives the scores: ``"predict"``,
        ``"predict_proba"`` or ``"decision_function"``.

    See Also
    --------
    skndcg.metrics.grouped_ndcg_score : The metric used by :meth:`score`.

    Notes
    -----
    ``sample_weight`` is per row. For ``XGBRanker``, which takes one weight per
    query, the weights must be constant within each query. Eval sets for early
    stopping are given as ``eval_set=[(X_val, y_val)]`` with either
    ``eval_qid=[qid_val]`` or a ``qid_col`` column in ``X_val``; each is sorted
    by query, loses the declared columns and is passed on with ``eval_group``
    (LightGBM), ``eval_qid`` (XGBoost) or as a ``catboost.Pool`` (CatBoost).
    Per-row weights for them go in ``eval_sample_weight``. When the inner
    estimator is a Pipeline, QueryRanker fits its steps one by one so that
    the eval ``X`` pass through the same fitted preprocessing as the training
    rows before they reach the final step. Other fit parameters are passed to
    the inner ``fit`` (with the ``<step>__`` prefix for a Pipeline when routing
    is off); per-row arrays among them (``init_score``, ``base_margin``) are
    reordered with the rows.

    With metadata routing enabled, ``qid`` is requested by default by ``fit``,
    ``predict`` and ``score``, and so are ``eval_set``, ``eval_qid`` and
    ``eval_sample_weight`` by ``fit``; request ``sample_weight`` with
    ``set_fit_request(sample_weight=True)`` / ``set_score_request``. Other
    metadata is routed to the inner estimator according to its own requests.

    References
    ----------
    .. [1] C. Burges, "From RankNet to LambdaRank to LambdaMART: an overview",
       Microsoft Research technical report MSR-TR-2010-82, 2010.
    .. [2] G. Ke, Q. Meng, T. Finley, T. Wang, W. Chen, W. Ma, Q. Ye and T.-Y. Liu,
       "LightGBM: a highly efficient gradient boosting decision tree", NeurIPS 2017.
    .. [3] T. Chen and C. Guestrin, "XGBoost: a scalable tree boosting system",
       KDD 2016.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn.linear_model import Ridge
    >>> from skndcg.ranker import QueryRanker
    >>> X = pd.DataFrame({"qid": [2, 1, 2, 1, 2], "f": [0.3, 0.9, 0.1, 0.2, 0.5]})
    >>> y = np.array([2, 1, 0, 0, 1])
    >>> model = QueryRanker(Ridge()).fit(X, y)
    >>> model.n_features_in_, model.n_queries_
    (1, 2)
    >>> model.predict(X).shape
    (5,)
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["fit", "predict"])],
        "qid_col": [str, Integral],
        "time_col": [str, Integral, None],
        "drop_cols": [list, tuple, str, Integral, None],
        "query_overlap": [StrOptions({"warn", "ignore"})],
    }

    __metadata_request__fit: ClassVar[dict] = {
        "qid": True,
        "eval_set": True,
        "eval_qid": True,
        "eval_sample_weight": True,
    }
    __metadata_request__predict: ClassVar[dict] = {"qid": True}
    __metadata_request__score: ClassVar[dict] = {"qid": True}

    def __init__(
        self,
        estimator,
        *,
        qid_col="qid",
        time_col=None,
        drop_cols=None,
        query_overlap="warn",
    ):
        self.estimator = estimator
        self.qid_col = qid_col
        self.time_col = time_col
        self.drop_cols = drop_cols
        self.query_overlap = query_overlap

    def _roles(self, caller):
        return role_columns(self.qid_col, self.time_col, self.drop_cols, caller=caller)

    def fit(self, X, y, qid=None, sample_weight=None, **fit_params):
        """Sort the rows by query and fit a clone of ``estimator``.

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like of shape \
(n_samples, n_features)
            Training data. Must hold a ``qid_col`` column unless ``qid`` is
            passed.
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row, in any order (rows of a query need not be
            contiguous). Wins over the column.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights (constant within each query for ``XGBRanker``).
        **fit_params : dict
            ``eval_set``, ``eval_qid``, ``eval_sample_weight`` (see Notes of
            the class) and parameters for the inner estimator's ``fit``.

        Returns
        -------
        self : QueryRanker
            The fitted meta-estimator.
        """
        self._validate_params()
        caller = "QueryRanker.fit"
        roles = self._roles(caller)
        check_declared(X, roles, caller=caller, what="time_col / drop_cols")
        X_model, qid = resolve_qid(X, qid, qid_col=self.qid_col, caller=caller)
        X_model = drop_roles(X_model, roles)
        if len(getattr(X_model, "shape", ())) == 2 and X_model.shape[1] == 0:
            raise ValueError(
                f"QueryRanker.fit: X has no feature column left once qid_col="
                f"{self.qid_col!r} and time_col / drop_cols {roles!r} are removed."
            )
        n_samples = qid.shape[0]
        y_arr = np.asarray(y)
        if y_arr.ndim == 0 or y_arr.shape[0] != n_samples:
            got = f"has {y_arr.shape[0]} entries" if y_arr.ndim else f"is {y!r}"
            raise ValueError(f"QueryRanker.fit: y {got} but X has {n_samples} rows.")
        check_labels(y, what="y")
        eval_params = {k: fit_params.pop(k) for k in CONSUMED if k in fit_params}
        routing = routing_enabled()
        if routing:
            extra = dict(process_routing(self, "fit", **fit_params)["estimator"]["fit"])
        else:
            extra = fit_params

        estimator = clone(self.estimator)
        step = final_step(estimator)
        method = response_method(estimator, step.kind)
        order, args = query_args(step, qid, sample_weight)

        kwargs, passthrough, evals = build_fit_kwargs(
            step, self.qid_col, roles, order, args, n_samples, extra, eval_params
        )
        X_fit, y_fit = take(X_model, order), take(y, order)

        def check(final, X_final, eval_X):
            check_feature_dtypes(final, X_final, roles, caller=caller)
            for i, X_val in enumerate(eval_X):
                where = f"the X of eval_set[{i}]"
                check_feature_dtypes(final, X_val, roles, caller=caller, where=where)

        eval_X = [X_val for X_val, _ in evals.sets] if evals else []
        if step.path and evals is not None:
            final, Xt, eval_X, rest = fit_with_eval(
                estimator, X_fit, y_fit, eval_X, passthrough, routing, check
            )
            evals.sets = list(zip(eval_X, [y for _, y in evals.sets], strict=True))
            final.fit(Xt, y_fit, **rest, **kwargs, **eval_kwargs(step, evals))
        else:
            kwargs.update(eval_kwargs(step, evals))
            if not step.path:
                check(estimator, X_fit, eval_X)
            if step.path and routing:
                request_on_clone(estimator, step.path, kwargs)
            prefix = "" if routing else step.prefix
            kwargs = {prefix + k: v for k, v in kwargs.items()}
            estimator.fit(X_fit, y_fit, **{**passthrough, **kwargs})

        check_fitted(estimator, method)
        self.estimator_ = estimator
        self.response_method_ = method
        self.n_queries_ = int(args["sizes"].size)
        self._fit_queries = query_fingerprint(qid)
        self.n_features_in_ = (
            int(X_model.shape[1]) if hasattr(X_model, "shape") else None
        )
        columns = column_names(X_model)
        if columns and all(isinstance(c, str) for c in columns):
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def _scores(self, X_model, caller, **params):
        check_same_columns(
            getattr(self, "feature_names_in_", None),
            X_model,
            [self.qid_col, *self._roles(caller)],
            caller=caller,
        )
        return scores(self.estimator_, self.response_method_, X_model, **params)

    def predict(self, X, qid=None, **predict_params):
        """Predict scores, in the row order of ``X``.

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like
            Data, with or without the ``qid_col`` column (dropped if present).
        qid : array-like of shape (n_samples,), default=None
            Not used for the predictions (those of the supported models do not
            depend on the query structure); query ids given here or in the
            ``qid_col`` column are only compared with those of the fit (see
            ``query_overlap``).
        **predict_params : dict
            Passed to the inner estimator's ``predict`` (routed by request when
            metadata routing is enabled).

        Returns
        -------
        y_score : ndarray of shape (n_samples,)
            Predicted scores.
        """
        check_is_fitted(self)
        if routing_enabled():
            predict_params = process_routing(self, "predict", **predict_params)[
                "estimator"
            ]["predict"]
        if qid is not None or self.qid_col in column_names(X):
            _, ids = resolve_qid(
                X, qid, qid_col=self.qid_col, caller="QueryRanker.predict"
            )
            check_query_overlap(self, ids, caller="QueryRanker.predict")
        X_model = drop_roles(X, [self.qid_col, *self._roles("QueryRanker.predict")])
        return self._scores(X_model, "QueryRanker.predict", **predict_params)

    def score(self, X, y, qid=None, sample_weight=None):
        """Mean NDCG@10 over queries (skndcg's default convention).

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like
            Data. Must hold a ``qid_col`` column unless ``qid`` is passed.
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row; wins over the column.
        sample_weight : array-like, default=None
            Per-query weights (or per-row, constant within each query), as in
            :func:`skndcg.metrics.grouped_ndcg_score`.

        Returns
        -------
        score : float
            ``grouped_ndcg_score(y, self.predict(X), qid, k=10)``.
        """
        from skndcg.metrics import grouped_ndcg_score

        check_is_fitted(self)
        X_model, qid = resolve_qid(
            X, qid, qid_col=self.qid_col, caller="QueryRanker.score"
        )
        if hasattr(y, "__len__") and len(y) != qid.shape[0]:
            raise ValueError(
                f"QueryRanker.score: y has {len(y)} entries but X has "
                f"{qid.shape[0]} rows; pass one relevance label per row."
            )
        X_model = drop_roles(X_model, self._roles("QueryRanker.score"))
        check_query_overlap(self, qid, caller="QueryRanker.score")
        y_score = self._scores(X_model, "QueryRanker.score")
        return float(
            grouped_ndcg_score(y, y_score, qid, k=10, sample_weight=sample_weight)
        )

    def get_metadata_routing(self):
        """Get the metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            QueryRanker's own requests (``qid`` and the eval-set parameters on
            ``fit``, ``qid`` on ``predict`` and ``score``) plus the inner
            estimator's requests for ``fit`` and ``predict``.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping()
                .add(caller="fit", callee="fit")
                .add(caller="predict", callee="predict"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            inner = self.estimator.__sklearn_tags__()
            tags.input_tags.allow_nan = inner.input_tags.allow_nan
            tags.input_tags.sparse = inner.input_tags.sparse
        except AttributeError:
            pass
        tags.target_tags.required = True
        return tags
