"""Where full-catalogue scores come from: factors, a matrix, a function or an
estimator, each giving the scores of a block of users for every catalogue item."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ...utils._values import py


class Source:
    """``source(lo, hi)``: scores of evaluated users ``lo:hi`` for every item,
    a C-contiguous float64 array of shape ``(hi - lo, n_items)``.

    ``seconds`` holds the time spent building features (estimators only).
    """

    def __init__(self, users, items):
        self.users = users  # ids of the evaluated users, in block order
        self.items = items  # catalogue ids
        self.seconds = {}

    def __call__(self, lo, hi):
        ids = self.users[lo:hi]
        block = np.asarray(self.scores(ids, self.items), dtype=np.float64)
        if block.shape != (len(ids), len(self.items)):
            raise ValueError(
                f"the scores of {len(ids)} users x {len(self.items)} items must "
                f"have shape {(len(ids), len(self.items))}, got {block.shape}."
            )
        return np.ascontiguousarray(block)


class _Estimator(Source):
    def __init__(self, model, features, users, items):
        super().__init__(users, items)
        self.model, self.features = model, features
        self.seconds = {"features": 0.0}

    def scores(self, users, items):
        start = time.perf_counter()
        X = self.features(users, items)
        self.seconds["features"] += time.perf_counter() - start
        return np.asarray(self.model.predict(X), dtype=np.float64).reshape(
            len(users), len(items)
        )


class _Dense(Source):
    """Scores already in memory, one row per evaluated user, in block order."""

    def __init__(self, matrix, users, items):
        super().__init__(users, items)
        self.matrix = matrix

    def __call__(self, lo, hi):
        return self.matrix[lo:hi]


class _Factors(Source):
    """``user_factors[u] @ item_factors[i]``: one BLAS product per block."""

    def __init__(self, user_rows, item_rows, block_size):
        super().__init__(None, None)
        self.user_rows = user_rows  # (n_evaluated, width)
        self.item_t = item_rows.T  # (width, n_items), a view: BLAS reads it as is
        self.out = np.empty((min(block_size, user_rows.shape[0]), item_rows.shape[0]))

    def __call__(self, lo, hi):
        out = self.out[: hi - lo]
        np.matmul(self.user_rows[lo:hi], self.item_t, out=out)
        return out


def model_kind(scores, features):
    """``"matrix"``, ``"factors"``, ``"estimator"`` or ``"function"``: the form
    of ``scores``, checked with ``features`` (raises on a mismatch)."""
    if isinstance(scores, pd.DataFrame):
        kind, extra = "matrix", "features is only used with an estimator, not a matrix."
    elif isinstance(scores, tuple):
        kind, extra = "factors", "features is only used with an estimator, not factors."
        if len(scores) != 2:
            raise ValueError(
                "scores as a tuple must be (user_factors, item_factors), got a "
                f"tuple of {len(scores)}."
            )
    elif hasattr(scores, "predict"):
        if features is None:
            raise ValueError(
                "an estimator needs features=, a callable f(user_ids, item_ids) "
                "returning the feature rows of every (user, item) pair, user by "
                "user (len(user_ids) * len(item_ids) rows)."
            )
        return "estimator"
    elif callable(scores):
        kind, extra = "function", "features is only used with an estimator."
    else:
        raise TypeError(
            "scores must be a DataFrame (users x items), a tuple (user_factors, "
            "item_factors), a callable f(user_ids, item_ids) or a fitted "
            f"estimator with predict, got {type(scores).__name__}."
        )
    if features is not None:
        raise ValueError(extra)
    return kind


def make_source(scores, features, users, items, block_size):
    """The :class:`Source` of ``scores`` for the evaluated ``users`` (ids)."""
    kind = model_kind(scores, features)
    if kind == "matrix":
        missing_u = pd.Index(users).difference(scores.index)
        missing_i = pd.Index(items).difference(scores.columns)
        if len(missing_u) or len(missing_i):
            raise ValueError(
                "the score matrix must have a row per user and a column per "
                f"eligible item; missing users {list(missing_u[:5])}, missing "
                f"items {list(missing_i[:5])}."
            )
        matrix = scores.reindex(index=users, columns=items).to_numpy(np.float64)
        return _Dense(np.ascontiguousarray(matrix), users, items)
    if kind == "estimator":
        return _Estimator(scores, features, users, items)
    if kind == "function":
        source = Source(users, items)
        source.scores = scores
        return source
    u, i = (
        _factor_rows(f, ids, name)
        for f, ids, name in zip(scores, (users, items), ("user", "item"), strict=True)
    )
    if u.shape[1] != i.shape[1]:
        raise ValueError(
            f"user_factors has {u.shape[1]} columns and item_factors "
            f"{i.shape[1]}; a dot product needs the same width."
        )
    return _Factors(u, i, block_size)


def _factor_rows(factors, ids, name):
    """The rows of ``factors`` for ``ids``, C-contiguous float64."""
    arg = f"{name}_factors"
    if isinstance(factors, pd.DataFrame):
        where = factors.index.get_indexer(ids)
        if (where < 0).any():
            missing = [py(x) for x in np.asarray(ids)[where < 0][:5]]
            raise ValueError(
                f"{arg} has no row for the {name}s {missing} "
                f"({int((where < 0).sum())} missing); its index must hold every "
                f"evaluated {name} id."
            )
        values = factors.to_numpy()
    else:
        values = np.asarray(factors)
        where = np.asarray(ids)
        if where.dtype.kind not in "iu":
            raise ValueError(
                f"{arg} is an array, so {name} ids must be integer row numbers; "
                f"got {py(where[0])!r}. Pass a DataFrame indexed by {name} id."
            )
        if where.size and (where.min() < 0 or where.max() >= values.shape[0]):
            bad = where[(where < 0) | (where >= values.shape[0])][0]
            raise ValueError(
                f"{name} id {py(bad)} is outside the {values.shape[0]} "
                f"rows of {arg}; an array is indexed by {name} id."
            )
    if values.ndim != 2 or values.dtype.kind not in "biuf":
        raise ValueError(
            f"{arg} must be a 2-D numeric array (one row per {name}), got shape "
            f"{values.shape} and dtype {values.dtype}."
        )
    out = np.ascontiguousarray(values[where], dtype=np.float64)
    if not np.isfinite(out).all():
        r = int(np.flatnonzero(~np.isfinite(out).all(axis=1))[0])
        raise ValueError(
            f"{arg} must be finite; the row of {name} {py(ids[r])!r} is not."
        )
    return out
