"""Why a mean metric changed between two periods: :func:`explain_change`."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._compare._inputs import chosen_metrics, one_row_per_query, sorted_unique

ALL = "(all)"


def _labels(by, frame, name):
    if isinstance(by, str):
        if by not in frame.columns:
            raise ValueError(
                f"by={by!r} names no column of {name} (columns {list(frame.columns)})."
            )
        labels = frame[by].to_numpy()
    elif isinstance(by, (Mapping, pd.Series)):
        labels = pd.Series(frame["qid"].to_numpy()).map(by).to_numpy()
    elif callable(by):
        labels = np.asarray(by(frame["qid"].to_numpy().copy()))
        if labels.shape != (len(frame),):
            raise ValueError(
                f"the segment rule by={by!r} returned shape {labels.shape} for the "
                f"{len(frame)} queries of {name}; a rule returns one label per query."
            )
    else:
        raise ValueError(
            "by must be a column name, a mapping from query id to segment or a rule "
            f"(such as history_segments(...)), got {type(by).__name__}."
        )
    missing = pd.isna(labels)
    if missing.any():
        qids = frame["qid"].to_numpy()[missing][:5].tolist()
        raise ValueError(
            f"by gives no segment to {int(missing.sum())} quer(y/ies) of {name}, "
            f"for example {qids}; give every query a segment."
        )
    return labels


def _check(frame, name):
    if not isinstance(frame, pd.DataFrame) or "qid" not in frame.columns:
        raise ValueError(
            f"{name} must be a DataFrame of per-query values with a 'qid' column "
            "(such as ranking_report's), got "
            + (
                f"columns {list(frame.columns)}."
                if isinstance(frame, pd.DataFrame)
                else f"{type(frame).__name__}."
            )
        )
    one_row_per_query(frame, name, "as compare asks")


def explain_change(before, after, *, by, metrics=None):
    """Split the change of a mean metric into segment mix and within-segment change.

    A mean over queries moves for two reasons: the segments' own means moved
    (the ranker got better or worse for new users), or the mix of queries
    moved (more new users, who score lower, came this week). With shares
    ``w`` and means ``m`` of each segment ``g`` before (``0``) and after
    (``1``), the change of the overall mean ``M1 - M0`` is the sum over
    segments of

    - ``within = (m1 - m0) * (w0 + w1) / 2``: the segment's own change,
      weighted by its average share;
    - ``mix = (w1 - w0) * ((m0 + m1) / 2 - (M0 + M1) / 2)``: its change of
      share, times how far its level is from the overall one (a segment that
      grows lifts the mean only if it scores above it).

    The parts sum to the change exactly (up to rounding): the symmetric
    shift-share split, which does not depend on which period is taken as the
    reference. A segment present in one period only has no within-segment
    change; all of its contribution is mix.

    Parameters
    ----------
    before, after : pandas.DataFrame
        Per-query values of the two periods, with a ``qid`` column and one
        column per metric (such as :func:`~skndcg.metrics.ranking_report`
        frames). NaN values (queries a metric skipped) are left out of that
        metric, as the grouped means do.
    by : str, mapping or callable
        The segments: a column of both frames, a mapping from query id to
        segment, or a rule called with each period's query ids, such as
        :func:`history_segments`, :func:`frequency_segments` and
        :func:`cold_item_segments`.
    metrics : str or list of str, default=None
        Metric columns to explain; None takes every numeric column the frames
        share, except bookkeeping ones (``n_items``, ``weight``, ...) and the
        ``dcg@k`` / ``idcg@k`` columns behind ``ndcg@k``.

    Returns
    -------
    parts : pandas.DataFrame
        Per metric, one row per segment (in sorted order) and a last row whose
        ``segment`` is ``"(all)"``: ``metric``, ``segment``, ``n_before``,
        ``n_after``, ``share_before``, ``share_after``, ``mean_before``,
        ``mean_after``, ``mix``, ``within`` and ``change`` (``mix + within``;
        on the ``"(all)"`` row, ``mean_after - mean_before``).

    See Also
    --------
    metric_over_time : Find the drop first.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.evaluation import explain_change
    >>> before = pd.DataFrame({"qid": [1, 2, 3, 4],
    ...                        "ndcg@10": [0.75, 0.75, 0.75, 0.25],
    ...                        "user": ["old", "old", "old", "new"]})
    >>> after = pd.DataFrame({"qid": [5, 6, 7, 8],
    ...                       "ndcg@10": [0.75, 0.75, 0.25, 0.25],
    ...                       "user": ["old", "old", "new", "new"]})
    >>> parts = explain_change(before, after, by="user")
    >>> parts[["segment", "share_before", "share_after", "mix", "within", "change"]]
      segment  share_before  share_after       mix  within    change
    0     new          0.25          0.5 -0.078125     0.0 -0.078125
    1     old          0.75          0.5 -0.046875     0.0 -0.046875
    2   (all)          1.00          1.0 -0.125000     0.0 -0.125000

    The mean fell by 0.125 with no segment getting worse: more of the
    queries came from new users, who score lower.
    """
    _check(before, "before")
    _check(after, "after")
    frames = [("before", before), ("after", after)]
    exclude = {by if isinstance(by, str) else None}
    names = chosen_metrics(metrics, frames, exclude, "before and after")
    labels = [_labels(by, frame, side) for side, frame in frames]
    rows = []
    for m in names:
        parts = []
        for (side, frame), lab in zip(frames, labels, strict=True):
            v = pd.to_numeric(frame[m], errors="coerce").to_numpy(dtype=np.float64)
            text = np.isnan(v) & frame[m].notna().to_numpy()
            if text.any():
                raise ValueError(
                    f"metric {m!r} of {side} must be numeric, got "
                    f"{frame[m][text].tolist()[0]!r} for the query "
                    f"{frame['qid'][text].tolist()[0]!r}."
                )
            if np.isinf(v).any():
                raise ValueError(
                    f"metric {m!r} of {side} is infinite for the query "
                    f"{frame['qid'][np.isinf(v)].tolist()[0]!r}."
                )
            ok = ~np.isnan(v)
            if not ok.any():
                raise ValueError(f"every value of {m!r} is NaN in one of the periods.")
            g = pd.Series(v[ok]).groupby(lab[ok], sort=False)
            parts.append((g.mean(), g.size(), v[ok].mean()))
        (m0, n0, big0), (m1, n1, big1) = parts
        segs = sorted_unique(m0.index.append(m1.index))
        m0, m1 = m0.reindex(segs), m1.reindex(segs)
        n0, n1 = n0.reindex(segs).fillna(0), n1.reindex(segs).fillna(0)
        w0, w1 = n0 / n0.sum(), n1 / n1.sum()
        # A segment missing from one period: no within change, all mix.
        a, b = m0.fillna(m1), m1.fillna(m0)
        mix = (w1 - w0) * ((a + b) / 2 - (big0 + big1) / 2)
        within = (b - a) * (w0 + w1) / 2
        for s in segs:
            rows.append([m, s, int(n0[s]), int(n1[s]), w0[s], w1[s], m0[s], m1[s],
                         mix[s], within[s], mix[s] + within[s]])  # fmt: skip
        rows.append([m, ALL, int(n0.sum()), int(n1.sum()), 1.0, 1.0, big0, big1,
                     mix.sum(), within.sum(), big1 - big0])  # fmt: skip
    return pd.DataFrame(
        rows,
        columns=["metric", "segment", "n_before", "n_after", "share_before",
                 "share_after", "mean_before", "mean_after", "mix", "within",
                 "change"],
    )  # fmt: skip
