"""The result of :func:`~skndcg.evaluation.compare` with ``by=``."""

from __future__ import annotations

import html
import json

import pandas as pd

from ...utils._values import py


class SegmentedComparison:
    """Models compared within each segment of the queries.

    Made by :func:`compare` (and :func:`compare_scores`) with ``by=``: one
    :class:`Comparison` per segment, whose p-values are corrected together,
    over every (segment, comparison, metric), and whose corrected intervals
    share one confidence level. Draw it with
    :func:`~skndcg.plotting.plot_forest`.

    Parameters
    ----------
    comparisons : dict
        ``{segment: Comparison}``, in segment order.

    Attributes
    ----------
    segments : list
        Segment labels, sorted (or in first-seen order when they do not sort).
    comparisons : dict
        The comparison of every segment.
    models, metrics, baseline, pairs, test, correction, confidence, \
confidence_adjusted, alpha, interval, n_resamples
        As in :class:`Comparison`, shared by the segments.

    See Also
    --------
    compare : Makes it with ``by=``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skndcg.evaluation import compare
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(60)
    >>> scores = pd.DataFrame({
    ...     "model": ["old"] * 60 + ["new"] * 60,
    ...     "qid": np.tile(np.arange(60), 2),
    ...     "ndcg@10": np.r_[base, np.clip(base + 0.1, 0, 1)],
    ... })
    >>> by = {q: "new users" if q < 20 else "returning" for q in range(60)}
    >>> cmp = compare(scores, baseline="old", by=by, n_resamples=500,
    ...               random_state=0)
    >>> cmp
    <SegmentedComparison of 2 models in 2 segments, baseline='old', ...>
    >>> cmp.to_frame()[["segment", "model", "n_queries"]]
         segment model  n_queries
    0  new users   old         20
    1  new users   new         20
    2  returning   old         40
    3  returning   new         40
    """

    def __init__(self, comparisons):
        self.comparisons = dict(comparisons)
        self.segments = list(self.comparisons)
        one = next(iter(self.comparisons.values()))
        for name in (
            "models",
            "metrics",
            "baseline",
            "pairs",
            "test",
            "correction",
            "confidence",
            "confidence_adjusted",
            "alpha",
            "interval",
            "n_resamples",
        ):
            setattr(self, name, getattr(one, name))

    def __getitem__(self, segment):
        return self.comparisons[segment]

    def to_frame(self, *, pairs=False):
        """All segments in one DataFrame, with a ``segment`` column first.

        Parameters
        ----------
        pairs : bool, default=False
            As in :meth:`Comparison.to_frame`.

        Returns
        -------
        frame : pandas.DataFrame
            The rows of every segment's :meth:`Comparison.to_frame`; the
            ``p_adjusted`` and ``significant`` columns are corrected over all
            segments.
        """
        frames = []
        for g, cmp in self.comparisons.items():
            frame = cmp.to_frame(pairs=pairs)
            frame.insert(0, "segment", [g] * len(frame))
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def to_markdown(self, digits=3):
        """One Markdown table per segment, each under a heading.

        Parameters
        ----------
        digits : int, default=3
            Decimals shown.

        Returns
        -------
        text : str
        """
        return "\n".join(
            f"**{g}**\n\n{cmp.to_markdown(digits)}"
            for g, cmp in self.comparisons.items()
        )

    def to_json(self, **kwargs):
        """Every segment's :meth:`Comparison.to_json` in one JSON document.

        Parameters
        ----------
        **kwargs : dict
            Passed to :func:`json.dumps` (for example ``indent=2``).

        Returns
        -------
        text : str
            An object ``{"segments": [{"segment": ..., "comparison": ...}]}``.
        """
        doc = {
            "segments": [
                {"segment": py(g), "comparison": json.loads(cmp.to_json())}
                for g, cmp in self.comparisons.items()
            ]
        }
        return json.dumps(doc, default=str, **kwargs)

    def _repr_html_(self):
        return "".join(
            f"<h4>{html.escape(str(g))}</h4>{cmp._repr_html_()}"
            for g, cmp in self.comparisons.items()
        )

    def __repr__(self):
        base = "all pairs" if self.baseline is None else f"baseline={self.baseline!r}"
        return (
            f"<SegmentedComparison of {len(self.models)} models in "
            f"{len(self.segments)} segments, {base}, test={self.test!r}, "
            f"correction={self.correction!r}>"
        )
