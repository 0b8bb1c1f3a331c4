"""How QueryRanker turns the inner model's output into one score per row (the
rules of the QueryRanker docstring)."""

from __future__ import annotations

import numpy as np
from sklearn.base import is_regressor


def response_method(estimator, kind) -> str:
    """Which method of the (unfitted) inner estimator gives the scores."""
    if kind != "pointwise" or is_regressor(estimator):
        return "predict"
    if hasattr(estimator, "predict_proba"):
        return "predict_proba"
    if hasattr(estimator, "decision_function"):
        return "decision_function"
    tags = getattr(estimator, "__sklearn_tags__", None)
    what = getattr(tags(), "estimator_type", None) if tags else None
    what = f"a {what}" if what else "neither a ranker nor a regressor"
    raise TypeError(
        f"QueryRanker: {type(estimator).__name__} is {what} and has neither "
        "predict_proba nor decision_function, so its predict gives labels, not "
        "scores to rank by. Use a ranker (LGBMRanker, XGBRanker, CatBoostRanker), "
        "a regressor, or a classifier with predict_proba or decision_function."
    )


def scores(estimator, method, X, **params) -> np.ndarray:
    """One score per row of ``X`` from the fitted inner estimator."""
    out = np.asarray(getattr(estimator, method)(X, **params))
    if method == "predict":
        return out
    name = type(estimator).__name__
    classes = np.asarray(getattr(estimator, "classes_", []))
    if method == "decision_function":
        if out.ndim == 1 or out.shape[1] == 1:
            return out.reshape(-1)
        raise ValueError(
            f"QueryRanker: {name}.decision_function returned {out.shape[1]} "
            "columns (one per class) and the classifier has no predict_proba to "
            "take an expected label from; use a classifier with predict_proba, "
            "a regressor or a ranker."
        )
    if classes.size == out.shape[1] and classes.dtype.kind in "iuf":
        return out @ classes.astype(np.float64)
    if out.shape[1] == 2:
        return out[:, 1]
    raise _no_order("QueryRanker", name, out.shape[1], classes)


def _no_order(caller, name, n_classes, classes):
    return ValueError(
        f"{caller}: {name} has {n_classes} non-numeric classes "
        f"{classes.tolist()!r}, which give no order to rank by; use numeric "
        "relevance labels."
    )


def check_fitted(estimator, method) -> None:
    """After fit: refuse classifiers whose output gives no single score."""
    if method == "predict":
        return
    classes = np.asarray(getattr(estimator, "classes_", []))
    if classes.size <= 2 or (method == "predict_proba" and classes.dtype.kind in "iuf"):
        return
    name = type(estimator).__name__
    if method == "decision_function":
        raise ValueError(
            f"QueryRanker.fit: {name} has {classes.size} classes and no "
            "predict_proba, so its decision_function gives one column per class "
            "and no expected label to rank by; use a classifier with "
            "predict_proba, a regressor or a ranker."
        )
    raise _no_order("QueryRanker.fit", name, classes.size, classes)
