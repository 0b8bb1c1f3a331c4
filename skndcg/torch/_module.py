"""``RankingMetric``: the torchmetrics ``Metric`` built on :func:`ranking_scores`."""

from __future__ import annotations

import importlib

from ._metric import _OPTIONS, ranking_scores, resolve_options
from ._names import parse

_OWN = {*_OPTIONS, "convention", "discount", "rel_threshold"}


def _torchmetrics():
    try:
        return importlib.import_module("torchmetrics")
    except ImportError as exc:
        raise ImportError(
            "skndcg.torch.RankingMetric is a torchmetrics Metric, but torchmetrics "
            "is not installed; install it with `pip install 'skndcg[torch]'` (or "
            "`pip install torchmetrics`). skndcg.torch.ranking_scores works "
            "without it."
        ) from exc


def build():
    """Create the class (torchmetrics is imported here, on first use)."""
    tm = _torchmetrics()
    from torchmetrics.utilities.data import dim_zero_cat

    class RankingMetric(tm.Metric):
        """Any skndcg ranking measure as a torchmetrics ``Metric``.

        ``update(preds, target, indexes)`` keeps the rows (one score, one label
        and one query id per row, of any shapes that match); ``compute()`` ranks
        every query at once on the rows' device and returns the mean over
        queries with the names, conventions and options of
        :mod:`skndcg.metrics`. The states are lists of tensors synchronised by
        concatenation, so under DDP the queries of every process are scored
        together (a query may be split across processes or batches).

        Parameters
        ----------
        metric : str or sequence of str, default="ndcg@10"
            Measure name(s): ``"ndcg@10"``, ``"dcg@5"``, ``"map"``, ``"mrr@10"``,
            ``"p@5"``, ``"r@20"``, ``"hit@10"``. A sequence makes ``compute()``
            return a dict.
        convention : {None, "skndcg", "sklearn"}, default=None
            Preset of :mod:`skndcg.metrics` (the others are not available on
            tensors and raise).
        gain, ties, empty, discount, rel_threshold, nan_score, queries, \
ap_denominator, p_denominator
            As in :func:`skndcg.metrics.grouped_ranking_scores`; ``ties`` is
            ``"average"`` or ``"stable"``. With ``nan_score="unretrieved"`` a NaN
            score marks a judged row the system did not retrieve: it counts in
            the ideal DCG and the relevant counts but takes no rank.
        **kwargs
            Passed to ``torchmetrics.Metric`` (``sync_on_compute``,
            ``compute_on_cpu``, ...).
        """

        is_differentiable = False
        higher_is_better = True
        full_state_update = False

        def __init__(self, metric="ndcg@10", **options):
            kwargs = {k: options.pop(k) for k in list(options) if k not in _OWN}
            super().__init__(**kwargs)
            names = [metric] if isinstance(metric, str) else list(metric)
            for name in names:
                parse(name)
            resolve_options(**options)
            self.metric = metric
            self._names = names
            self._options = options
            self.add_state("preds", default=[], dist_reduce_fx="cat")
            self.add_state("target", default=[], dist_reduce_fx="cat")
            self.add_state("indexes", default=[], dist_reduce_fx="cat")

        def update(self, preds, target, indexes):
            """Keep one batch of rows (flattened; detached from the graph)."""
            if not (preds.shape == target.shape == indexes.shape):
                raise ValueError(
                    "preds, target and indexes must have the same shape, got "
                    f"{tuple(preds.shape)}, {tuple(target.shape)} and "
                    f"{tuple(indexes.shape)}."
                )
            self.preds.append(preds.detach().flatten())
            self.target.append(target.detach().flatten())
            self.indexes.append(indexes.detach().flatten())

        def compute(self):
            """Mean over queries of every row kept since the last reset."""
            scores = ranking_scores(
                dim_zero_cat(self.preds),
                dim_zero_cat(self.target),
                dim_zero_cat(self.indexes),
                self._names,
                **self._options,
            )
            return scores[self.metric] if isinstance(self.metric, str) else scores

    RankingMetric.__module__ = "skndcg.torch"
    return RankingMetric
