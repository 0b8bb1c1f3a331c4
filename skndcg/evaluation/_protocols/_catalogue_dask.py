"""Full-catalogue evaluation on Dask: users partitioned, each partition ranked
in memory by the same code, the per-user reports put back in user order."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._catalogue_blocks import evaluate, largest_label, needs_label_max
from ._catalogue_plan import make_plan
from ._full_catalogue import NOTHING, catalogue_of, check_rows


def _labels_max(train, test, catalogue, exclude_seen, rel_threshold):
    train, test = train.reset_index(drop=True), test.reset_index(drop=True)
    plan = make_plan(train, test, catalogue, exclude_seen)
    if not plan.evaluated.size:
        return np.nan
    value = largest_label(plan.pos_labels, {"rel_threshold": rel_threshold})
    return np.inf if value is None else value


def _catalogue(n_train, n_test, items, top_n):
    check_rows(int(n_train), int(n_test))
    return catalogue_of(np.asarray(items), top_n)


def _largest(values):
    """The largest of the partitions' largest labels (None: not known)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    if not values.size or np.isinf(values).any():
        return None
    return float(values.max())


def _partition(scores, train, test, catalogue, options, label_max):
    if len(test) == 0:
        return None, None, {}
    train, test = train.reset_index(drop=True), test.reset_index(drop=True)
    return evaluate(scores, train, test, catalogue, **options, label_max=label_max)


def dask_report(scores, train, test, items, options):
    """``(report, candidates, seconds)`` of :func:`full_catalogue_report` with
    ``train`` or ``test`` a dask DataFrame (the other may be pandas)."""
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - dask is an optional extra
        raise ImportError(
            "full-catalogue evaluation of dask frames needs dask: "
            "pip install 'skndcg[dask]'."
        ) from exc
    for frame, name in ((train, "train"), (test, "test")):
        if not isinstance(frame, (dd.DataFrame, pd.DataFrame)):
            raise TypeError(
                f"{name} must be a pandas or dask DataFrame, got "
                f"{type(frame).__name__}."
            )
        missing = [c for c in ("user_id", "item_id") if c not in frame.columns]
        if missing:
            raise ValueError(
                f"{name} must have the columns ['user_id', 'item_id']; missing "
                f"{missing} (it has {list(frame.columns)})."
            )
    # The same users in partition i of both (ranges of user ids, from test; the
    # pieces are indexed by user id, which they hold as a column too).
    if not isinstance(test, dd.DataFrame):
        test = dd.from_pandas(test, npartitions=1)
    if not isinstance(train, dd.DataFrame):
        train = dd.from_pandas(train, npartitions=1)
    by_user = test.set_index("user_id", drop=False)
    divisions = by_user.divisions
    if by_user.npartitions == 1 or None in divisions:
        # One range of users (dask leaves its bounds unknown): one piece each.
        seen = train.repartition(npartitions=1)
        by_user = test.repartition(npartitions=1)
    else:
        seen = train.set_index("user_id", drop=False, divisions=list(divisions))
    train_parts, test_parts = seen.to_delayed(), by_user.to_delayed()
    # One graph: the partitions by user are made once and read by every step.
    delayed = dask.delayed
    found = train["item_id"].unique() if items is None else items
    catalogue = delayed(_catalogue)(
        train.shape[0], test.shape[0], found, options["top_n"]
    )
    pieces = list(zip(train_parts, test_parts, strict=True))
    label_max = None
    if needs_label_max(options["names"]):
        # ERR's default g_max reads the largest label of all users.
        label_max = delayed(_largest)(
            [
                delayed(_labels_max)(
                    tr, te, catalogue, options["exclude_seen"], options["rel_threshold"]
                )
                for tr, te in pieces
            ]
        )
    model = delayed(scores, traverse=False)
    results = dask.compute(
        *[
            delayed(_partition)(model, tr, te, catalogue, options, label_max)
            for tr, te in pieces
        ]
    )
    results = [r for r in results if r[0] is not None]
    if not results:
        raise ValueError(NOTHING)
    report = pd.concat([r[0] for r in results], ignore_index=True)
    cand = None
    if options["return_candidates"]:
        cand = pd.concat([r[1] for r in results], ignore_index=True)
    seconds = {}
    for _, _, part in results:
        for key, value in part.items():
            seconds[key] = seconds.get(key, 0.0) + value
    return report, cand, seconds
