"""The labels as the engine reads them, before any convention's rule, and the
largest label of a table (what a front end scoring pieces gives each piece)."""

from __future__ import annotations

import numpy as np

from .._conventions import resolve_convention
from ._validate import RowsError, as_1d, check_finite, hist_size, label_range


def labels_in(y_true, nan_label):
    """``(labels, unjudged rows or None, histogram size, known >= 0)`` of
    ``y_true``, before the convention's own label rules."""
    unjudged = nan_label == "unjudged"
    y_in = as_1d(y_true, "y_true", missing_as_nan=unjudged)
    unjudged_rows = None
    if unjudged and y_in.dtype.kind == "f":
        isnan = np.isnan(y_in)
        if isnan.any():
            # NaN again only to the measures that use them (Measure.unjudged).
            unjudged_rows = isnan
            y_in = np.where(isnan, 0.0, y_in)
    if y_in.dtype.kind in "biu":
        y, n_hist = label_range(y_in)
        return y, unjudged_rows, n_hist, n_hist > 0
    if y_in.dtype.kind != "f":
        raise TypeError(f"y_true must be numeric, got dtype {y_in.dtype}.")
    try:
        check_finite(y_in, "y_true")
    except RowsError as exc:
        if nan_label is None and np.isnan(y_in).any():
            raise exc.hinted(
                "A NaN label can mark a row nobody judged: pass nan_label='unjudged'."
            ) from None
        raise
    y = y_in.astype(np.float64, copy=False)
    # Float labels stay float64 (an int64 copy would raise the peak memory);
    # their range still tells the label checks they are >= 0.
    return y, unjudged_rows, 0, hist_size(y) > 0


def label_max_of(y_true, *, convention=None, gain=None, nan_label=None, **_):
    """The largest label the engine sees in ``y_true``, or None (no rows, or
    labels the engine refuses); the label rules keep the order of labels, so
    the largest of each piece's largest is the data's."""
    try:
        y, _, _, known_nonnegative = labels_in(y_true, nan_label)
        if y.shape[0] == 0:
            return None
        conv = resolve_convention(convention, gain=gain)
        y = conv.check_labels(y, nonnegative=known_nonnegative)
    except (TypeError, ValueError):
        return None
    return float(np.max(y.astype(np.float64)))
