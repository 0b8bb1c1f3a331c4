"""Comparisons by segment: labels, built-in rules and the per-segment runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from ...utils._values import py
from .._stats._significance import adjust_p_values, corrected_confidence
from .._stats._small_sample import warn_small
from ._inputs import (
    Scores,
    examples_text,
    model_frames,
    per_query_input,
    sorted_order,
    sorted_unique,
)
from ._numbers import correct, run


def segment_labels(by, scores, s: Scores) -> np.ndarray:
    """One segment label per query of ``s`` (in the order of ``s.qids``)."""
    frames = model_frames(scores)
    order = sorted_order(next(iter(frames.values()))["qid"].to_numpy())
    if callable(by) and not isinstance(by, (Mapping, pd.Series)):
        labels = np.asarray(by(s.qids.copy()))
        if labels.shape != s.qids.shape:
            raise ValueError(
                f"the segment rule by={by!r} returned shape {labels.shape} for "
                f"{s.qids.size} queries; a rule returns one label per query."
            )
    else:
        labels = per_query_input(by, "by", s.qids, frames, order)
    if pd.isna(labels).any():
        bad = s.qids[pd.isna(labels)]
        raise ValueError(
            "by gives no segment (missing label) for the queries "
            f"{examples_text(bad)}; give every query a segment."
        )
    return labels


def compare_segments(s: Scores, labels, settings, flags, random_state):
    """A :class:`SegmentedComparison`: one run per segment, one correction."""
    from .._stats._resampling import as_generator
    from ._result import Comparison
    from ._segmented_result import SegmentedComparison

    rng = as_generator(random_state)
    correction = settings["correction"]
    segments = sorted_unique(labels)
    # One stable sort of the queries by segment; each segment is then a slice
    # (in the queries' order), not a comparison of every label per segment.
    position = {g: i for i, g in enumerate(segments)}
    codes = pd.Series(labels).map(position).to_numpy(dtype=np.int64)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(segments) + 1))
    results = []
    for i, _ in enumerate(segments):
        rows = order[bounds[i] : bounds[i + 1]]
        sub = replace(
            s,
            qids=s.qids[rows],
            values=s.values[:, rows],
            keep=s.keep[rows],
            weights=s.weights[rows],
            clusters=None if s.clusters is None else pd.factorize(s.clusters[rows])[0],
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            r = run(sub, random_state=rng, **{**settings, "correction": None})
        results.append((sub, r))
    p_all = np.concatenate([r["p_value"].ravel() for _, r in results])
    p_adj = adjust_p_values(p_all, correction)
    conf_adj = corrected_confidence(
        p_adj, correction, settings["confidence"], settings["n_resamples"]
    )
    options = {k: v for k, v in settings.items() if k != "min_queries"}
    comparisons = {}
    small_any = []
    ends = np.cumsum([r["p_value"].size for _, r in results])
    p_segs = np.split(p_adj, ends[:-1])
    for g, (sub, r), p_seg in zip(segments, results, p_segs, strict=True):
        correct(r, p_seg.reshape(r["p_value"].shape), conf_adj, settings["interval"])
        r["n_corrected"] = int(p_all.size)
        del r["diff_dist"], r["diff_jack"]
        if r["small"].any():
            small_any.append(f"{py(g)!r} ({int(r['n_units'][r['small']].max())})")
        comparisons[g] = Comparison(sub, r, **options, **flags)
    if small_any:
        warn_small("segments " + ", ".join(small_any) + " have few queries", settings)
    return SegmentedComparison(comparisons)
