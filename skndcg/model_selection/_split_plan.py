"""Group-level fold planning for GroupTimeSeriesSplit, vectorised over groups
(sorted by ``(start, end, label)``): the only Python loop runs over folds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..utils._values import py
from ._split_data import NO_TIME


@dataclass(frozen=True)
class GroupTable:
    """Groups in sorted order: position ``p`` holds label ``labels[p]``."""

    start: np.ndarray
    end: np.ndarray
    n_rows: np.ndarray
    labels: np.ndarray
    row_pos: np.ndarray


@dataclass(frozen=True)
class Fold:
    """One fold in group positions (all arrays sorted ascending)."""

    cutoff: object
    test_lo: int
    test_hi: int
    train: np.ndarray
    gap: np.ndarray
    purged: np.ndarray


def group_table(data):
    """Per-group intervals and row counts, in order-key order."""
    n_groups = data.labels.size
    row_order = np.argsort(data.codes, kind="stable")
    counts = np.bincount(data.codes, minlength=n_groups)
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
    t_sorted = data.t[row_order]
    start = np.minimum.reduceat(t_sorted, offsets)
    end = np.maximum.reduceat(t_sorted, offsets)
    order = np.lexsort((np.arange(n_groups), end, start))
    pos = np.empty(n_groups, dtype=np.intp)
    pos[order] = np.arange(n_groups, dtype=np.intp)
    return GroupTable(
        start[order], end[order], counts[order], data.labels[order], pos[data.codes]
    )


class Formatter:
    """Turn internal time values into readable text and pandas scalars."""

    def __init__(self, data):
        self.is_datetime, self.tz = data.is_datetime, data.tz
        self.no_time = data.time_source == NO_TIME

    def note(self):
        """What to say first in an error when no time was given."""
        return f"{NO_TIME} (pass time= or set time_col); " if self.no_time else ""

    def value(self, v):
        if self.is_datetime:
            ts = pd.Timestamp(int(v), unit="ns", tz="UTC")
            return (
                ts.tz_convert(self.tz) if self.tz is not None else ts.tz_localize(None)
            )
        return py(v)

    def text(self, v):
        v = self.value(v)
        if isinstance(v, pd.Timestamp):
            return str(v.date()) if v == v.normalize() else str(v)
        return repr(v)

    def span(self, d):
        if self.is_datetime:
            return str(pd.Timedelta(int(d), unit="ns"))
        return repr(py(d))


def _cannot_form(params, table, n_splits):
    n_distinct = np.unique(table.start).size
    ts = params.test_size.raw if params.test_size is not None else None
    what = f"n_splits={n_splits}" if n_splits is not None else "any"
    return ValueError(
        f"cannot form {what} non-empty folds from {table.start.size} groups "
        f"({n_distinct} distinct start times) with test_size={ts!r}, "
        f"balance={params.balance!r}"
    )


def _count_blocks(params, table, n_splits):
    """Test-block start positions for count mode (groups or rows)."""
    start = table.start
    n_groups = start.size
    weights = table.n_rows if params.balance == "rows" else np.ones(n_groups, np.int64)
    cum = np.concatenate(([0], np.cumsum(weights)))
    total = int(cum[-1])
    size = params.test_size
    if size is not None and size.kind == "groups":
        q = size.value
    elif size is not None:
        q = int(np.floor(size.value * total))
    else:
        q = total // (n_splits + 1)
    allowed = np.flatnonzero(start[1:] != start[:-1]) + 1
    if q < 1 or allowed.size == 0:
        raise _cannot_form(params, table, n_splits)
    n_targets = n_splits if n_splits is not None else (total - 1) // q
    targets = total - q * np.arange(n_targets, 0, -1, dtype=np.int64)
    if n_targets == 0 or targets[0] <= 0:
        raise _cannot_form(params, table, n_splits)
    reach = cum[allowed]
    idx = np.searchsorted(reach, targets, side="left")
    lo = np.clip(idx - 1, 0, allowed.size - 1)
    hi = np.clip(idx, 0, allowed.size - 1)
    pos = np.where(reach[hi] - targets < targets - reach[lo], allowed[hi], allowed[lo])
    bad = np.flatnonzero(np.diff(pos) <= 0)
    if bad.size:
        if n_splits is not None:
            raise _cannot_form(params, table, n_splits)
        pos = pos[bad[-1] + 1 :]
    return pos, start[pos]


def _time_cutoffs(params, table, n_splits, fmt):
    """Ascending cutoffs of the non-empty time windows or calendar periods."""
    start = table.start
    size = params.test_size
    if size is not None and size.kind == "freq":
        return _calendar_cutoffs(start, size.value, fmt.tz), f"periods of {size.raw!r}"
    span = start[-1] - start[0]
    if size is not None and size.kind == "duration":
        d = size.value
    elif size is not None:
        d = size.value * span
    else:
        d = span / (n_splits + 1)
    if fmt.is_datetime:
        d = int(d)
    if d <= 0:
        raise _cannot_form(params, table, n_splits)
    u = start[-1] - start
    if fmt.is_datetime:
        j = np.maximum(1, -(-u // d))
    else:
        j = np.maximum(1, np.ceil(u / d)).astype(np.int64)
    j = np.unique(j)[::-1]
    return start[-1] - j * d, f"windows of {fmt.span(d)}"


def _calendar_cutoffs(start, freq, tz):
    starts = pd.DatetimeIndex(np.unique(start).astype("datetime64[ns]"))
    if tz is not None:
        starts = starts.tz_localize("UTC").tz_convert(tz).tz_localize(None)
    ordinals = np.unique(starts.to_period(freq).asi8)
    period_starts = pd.PeriodIndex.from_ordinals(ordinals, freq=freq).start_time
    if tz is not None:
        period_starts = period_starts.tz_localize(
            tz,
            ambiguous=np.ones(ordinals.size, dtype=bool),
            nonexistent="shift_forward",
        )
    return period_starts.as_unit("ns").asi8


def _train(params, table, cutoff, lo):
    """Training, gap and purged positions for a fold whose test block starts at lo."""
    start, end = table.start, table.end
    gap = params.gap
    if gap.kind == "groups":
        keep = max(lo - gap.value, 0)
        gap_pos = np.arange(keep, lo, dtype=np.intp)
        eligible = np.arange(keep, dtype=np.intp)
        spans = end[:keep] >= cutoff
        purged, train = eligible[spans], eligible[~spans]
        limit = cutoff
    else:
        limit = cutoff - gap.value
        ends = end[:lo]
        purged = np.flatnonzero(ends >= cutoff)
        gap_pos = np.flatnonzero((ends >= limit) & (ends < cutoff))
        train = np.flatnonzero(ends < limit)
    window = params.max_train_size
    if window is not None and window.kind == "groups":
        train = train[max(train.size - window.value, 0) :]
    elif window is not None:
        train = train[start[train] >= limit - window.value]
    return train, gap_pos, purged


def _fold_error(params, fmt, k, fold):
    n_outside = fold.test_lo - fold.train.size - fold.gap.size - fold.purged.size
    extra = f", {n_outside} outside max_train_size" if n_outside else ""
    return ValueError(
        f"{fmt.note()}fold {k} (cutoff {fmt.text(fold.cutoff)}) has "
        f"{fold.train.size} training groups (min_train_size={params.min_train_size}): "
        f"{fold.purged.size} purged for spanning the cutoff, "
        f"{fold.gap.size} in the gap{extra}. Use fewer splits, a smaller gap, or "
        f"shorter-lived groups (e.g. user-week instead of user)"
    )


def _overlap_error(table, fmt, k, fold):
    p, n = fold.purged[0], fold.purged.size
    label = py(table.labels[p])
    spans = "1 group spans" if n == 1 else f"{n} groups span"
    return ValueError(
        f"{fmt.note()}{spans} the cutoff of fold {k} "
        f"({fmt.text(fold.cutoff)}), e.g. group {label!r}: "
        f"{fmt.text(table.start[p])} .. {fmt.text(table.end[p])}"
    )


def plan_folds(params, table, fmt):
    """All folds, earliest first; raise when the requested folds cannot be formed."""
    n_splits = params.n_splits
    kind = None if params.test_size is None else params.test_size.kind
    # Fold sizes are counted (in groups or rows) unless they are time spans.
    if kind == "groups" or (kind in (None, "fraction") and params.balance != "time"):
        los, cutoffs = _count_blocks(params, table, n_splits)
    else:
        cutoffs, unit = _time_cutoffs(params, table, n_splits, fmt)
        los = np.searchsorted(table.start, cutoffs, side="left")
        his = np.append(los[1:], table.start.size)
        keep = (his > los) & (los > 0)
        los, cutoffs = los[keep], cutoffs[keep]
        if n_splits is not None and los.size < n_splits:
            raise ValueError(
                f"only {los.size} non-empty test {unit} are available for "
                f"n_splits={n_splits} (the earliest non-empty one has no earlier "
                f"data to train on)"
            )
        if n_splits is None and los.size == 0:
            raise _cannot_form(params, table, n_splits)
        if n_splits is not None:
            los, cutoffs = los[-n_splits:], cutoffs[-n_splits:]
    his = np.append(los[1:], table.start.size)
    folds = []
    for k in range(los.size - 1, -1, -1):
        train, gap, purged = _train(params, table, cutoffs[k], los[k])
        fold = Fold(cutoffs[k], int(los[k]), int(his[k]), train, gap, purged)
        if n_splits is None and train.size < params.min_train_size:
            if not folds:
                raise _fold_error(params, fmt, 0, fold)
            break
        folds.append(fold)
    folds.reverse()
    for k, fold in enumerate(folds):
        if params.on_overlap == "raise" and fold.purged.size:
            raise _overlap_error(table, fmt, k, fold)
        if fold.train.size < params.min_train_size:
            raise _fold_error(params, fmt, k, fold)
    return folds
