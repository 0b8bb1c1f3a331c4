"""Out-of-fold per-query metric values: :func:`cross_val_ranking_report`."""

from __future__ import annotations

from contextlib import suppress

import numpy as np
import pandas as pd

from ...metrics import make_ranking_scorer, ranking_report
from ...utils._query_ids import resolve_qid
from .._compare._inputs import metric_names


def _route(estimator, cv, scorer, groups, params):
    """``(split, fit, score)`` metadata, as ``cross_validate`` routes it."""
    from sklearn.utils.metadata_routing import (
        MetadataRouter,
        MethodMapping,
        _routing_enabled,
        process_routing,
    )

    if not _routing_enabled():
        return {"groups": groups}, dict(params), {}
    if groups is not None:
        raise ValueError(
            "groups can only be passed when metadata routing is disabled; with "
            "sklearn.set_config(enable_metadata_routing=True) pass it in params, "
            "for example params={'groups': groups}."
        )
    router = MetadataRouter(owner="cross_val_ranking_report")
    for role, obj, method in (
        ("splitter", cv, "split"),
        ("estimator", estimator, "fit"),
        ("scorer", scorer, "score"),
    ):
        mapping = MethodMapping().add(caller="fit", callee=method)
        router.add(**{role: obj}, method_mapping=mapping)
    routed = process_routing(router, "fit", **params)
    return (
        dict(routed.splitter.split),
        dict(routed.estimator.fit),
        dict(routed.scorer.score),
    )


def cross_val_ranking_report(
    estimator,
    X,
    y,
    *,
    cv=None,
    metrics=("ndcg@10",),
    groups=None,
    params=None,
    qid_col="qid",
    **metric_options,
):
    """Per-query metric values of every test fold of a cross-validation.

    For each split of ``cv``, a clone of ``estimator`` is fitted on the
    training rows, predicts the test rows once, and
    :func:`~skndcg.metrics.ranking_report` scores every test query. The
    numbers are those of :func:`~skndcg.metrics.make_ranking_scorer` inside
    ``cross_validate`` on the same folds (the mean of a fold's rows is the
    fold's score), but kept per query, so that models can be compared on
    the same out-of-fold queries with :func:`compare`.

    Parameters
    ----------
    estimator : estimator object
        Any scikit-learn estimator with ``fit`` and ``predict`` (a regressor,
        a ranker, :class:`~skndcg.ranker.QueryRanker`, a pipeline, ...).
    X : pandas.DataFrame, polars.DataFrame or array-like of shape \
(n_samples, n_features)
        Data. Holds the ``qid_col`` column unless the query ids are routed
        in ``params``.
    y : array-like of shape (n_samples,)
        Relevance labels.
    cv : int, cross-validation splitter or iterable, default=None
        As in :func:`sklearn.model_selection.cross_validate` (for example
        ``GroupKFold`` or :class:`~skndcg.model_selection.GroupTimeSeriesSplit`).
    metrics : str or list of str, default=("ndcg@10",)
        Metric names, as in :func:`~skndcg.metrics.ranking_report`.
    groups : array-like of shape (n_samples,), default=None
        Group labels for the splitter, only when metadata routing is off.
    params : dict, default=None
        Metadata. Routing off: passed to ``estimator.fit`` (per-row entries
        sliced to the training rows). Routing on
        (``sklearn.set_config(enable_metadata_routing=True)``): routed to the
        estimator's ``fit``, the splitter's ``split`` and the scoring, which
        takes ``qid`` (the query ids, instead of the column), exactly as for
        ``cross_validate``.
    qid_col : str or int, default="qid"
        Column of ``X`` holding the query ids when ``qid`` is not routed. It
        is dropped before ``predict`` unless the fitted model was trained on
        it (its ``feature_names_in_`` lists it), as the scorers do.
    **metric_options : dict
        Options of the metrics (``gain``, ``ties``, ``convention``, ...).

    Returns
    -------
    report : pandas.DataFrame
        One row per (fold, test query): ``fold`` (the split's number, from
        0), then the columns of :func:`~skndcg.metrics.ranking_report`.

    See Also
    --------
    compare : Compare models on these per-query values.

    Notes
    -----
    Fold means are not independent measurements: the training sets of
    different folds share most of their rows, so a model's fold scores move
    together, and the folds' test sets are small. Their spread therefore
    understates the uncertainty, and a t-test over fold means is
    overconfident (Dietterich, 1998; Nadeau & Bengio, 2003). The queries of
    the test folds are each scored once, by a model that did not see them:
    comparing two models query by query on these out-of-fold values, with
    the query (or the user) as the unit, is the paired comparison
    :func:`compare` makes. The interval still treats the fitted models as
    fixed, so it does not include the variation from refitting on new data.

    References
    ----------
    .. [1] T. G. Dietterich, "Approximate statistical tests for comparing
       supervised classification learning algorithms", Neural Computation
       10(7), 1998.
    .. [2] C. Nadeau and Y. Bengio, "Inference for the generalization error",
       Machine Learning 52(3), 2003.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn.compose import make_column_transformer
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import GroupKFold
    >>> from sklearn.pipeline import make_pipeline
    >>> from skndcg.evaluation import cross_val_ranking_report
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"qid": np.repeat(np.arange(30), 5),
    ...                   "f": rng.normal(size=150)})
    >>> y = (X["f"] + rng.normal(scale=0.5, size=150) > 0.5).astype(int)
    >>> model = make_pipeline(
    ...     make_column_transformer(("passthrough", ["f"])), Ridge())
    >>> oof = cross_val_ranking_report(model, X, y, cv=GroupKFold(3),
    ...                                groups=X["qid"], metrics=["ndcg@5"])
    >>> oof.shape[0], sorted(oof["fold"].unique().tolist())
    (30, [0, 1, 2])
    """
    from sklearn.base import clone, is_classifier
    from sklearn.model_selection import check_cv
    from sklearn.utils import _safe_indexing, indexable

    names = metric_names(metrics)
    scorer = make_ranking_scorer(names, qid_col=qid_col, **metric_options)
    X, y = indexable(X, y)
    y = np.asarray(y)
    n_rows = int(X.shape[0]) if hasattr(X, "shape") else len(X)
    params = {} if params is None else dict(params)
    cv = check_cv(cv, y, classifier=is_classifier(estimator))
    split_params, fit_params, score_params = _route(
        estimator, cv, scorer, groups, params
    )
    caller = "cross_val_ranking_report"
    frames = []
    for fold, (train, test) in enumerate(cv.split(X, y, **split_params)):
        model = clone(estimator)
        # Per-row entries of the fit params cut to the fold; others as they are.
        fit = {}
        for key, value in fit_params.items():
            if value is None:
                continue
            sized = False
            if hasattr(value, "__len__") and not isinstance(value, (str, dict)):
                with suppress(TypeError):
                    sized = len(value) == n_rows
            fit[key] = _safe_indexing(value, train) if sized else value
        model.fit(_safe_indexing(X, train), y[train], **fit)
        X_test = _safe_indexing(X, test)
        routed_qid = score_params.get("qid")
        qid_test = None if routed_qid is None else _safe_indexing(routed_qid, test)
        try:
            X_model, qid = resolve_qid(
                X_test,
                qid_test,
                qid_col=qid_col,
                caller=caller,
                drop_col=qid_col not in list(getattr(model, "feature_names_in_", ())),
            )
        except ValueError as exc:
            raise ValueError(
                f"{exc} With metadata routing on, pass the ids as params={{'qid': "
                "qid}}; otherwise keep them in the column."
            ) from None
        y_score = np.asarray(model.predict(X_model))
        if y_score.ndim == 2 and y_score.shape[1] == 1:
            y_score = y_score[:, 0]
        if y_score.shape != (len(test),):
            raise ValueError(
                f"{caller}: {type(model).__name__}.predict returned shape "
                f"{y_score.shape}; ranking needs one score per row ({len(test)},)."
            )
        weight = score_params.get("sample_weight")
        report = ranking_report(
            y[test],
            y_score,
            qid,
            metrics=names,
            sample_weight=None if weight is None else _safe_indexing(weight, test),
            **metric_options,
        )
        report.insert(0, "fold", fold)
        frames.append(report)
    if not frames:
        raise ValueError(f"{caller}: the splitter yielded no split.")
    return pd.concat(frames, ignore_index=True)
