"""``RankingMetric``: the torchmetrics ``Metric`` built on :func:`ranking_scores`."""

import importlib
from functools import cache

import torch
from torch import Tensor

from ..utils._args import metric_names
from ._metric import intra_op_threads, ranking_scores
from ._names import implementation, parse
from ._options import OPTION_NAMES, resolve


def _cat(state):
    """The rows of a list state as one tensor (no copy for a single batch)."""
    if isinstance(state, Tensor):
        return state
    return state[0] if len(state) == 1 else torch.cat(state)


def _given(state):
    """Whether a list state holds rows (after a DDP sync it is a tensor)."""
    return len(state) > 0 if isinstance(state, list) else state.numel() > 0


@cache
def build():
    """Create the class, once (torchmetrics is imported here, on first use)."""
    try:
        tm = importlib.import_module("torchmetrics")
    except ImportError as exc:
        raise ImportError(
            "skndcg.torch.RankingMetric is a torchmetrics Metric, but torchmetrics "
            "is not installed; install it with `pip install 'skndcg[torch]'` (or "
            "`pip install torchmetrics`). skndcg.torch.ranking_scores works "
            "without it."
        ) from exc

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
            Any name of the measure registry of :mod:`skndcg.metrics`:
            ``"ndcg@10"``, ``"map"``, ``"mrr@10"``, ``"err@20"``,
            ``"rbp(p=0.9)"``, ``"bpref"``, ``"judged@10"``... A sequence makes
            ``compute()`` return a dict.
        convention : str or None, default=None
            Any preset of :mod:`skndcg.metrics` (``"trec_eval"``, ``"ranx"``,
            ``"lightgbm"``, ``"torchmetrics"``...), with the same meaning.
        gain, ties, empty, discount, rel_threshold, nan_score, nan_label, \
queries, ap_denominator, p_denominator, cpu_fallback, num_threads
            As in :func:`skndcg.torch.ranking_scores`. With
            ``nan_score="unretrieved"`` a NaN score marks a judged row the
            system did not retrieve: it counts in the ideal DCG and the
            relevant counts but takes no rank; with ``nan_label="unjudged"`` a
            NaN target marks a retrieved row nobody judged.
        **kwargs
            Passed to ``torchmetrics.Metric`` (``sync_on_compute``,
            ``compute_on_cpu``, ...).
        """

        is_differentiable = False
        higher_is_better = True
        full_state_update = False

        def __init__(self, metric="ndcg@10", **options):
            kwargs = {k: options.pop(k) for k in list(options) if k not in OPTION_NAMES}
            super().__init__(**kwargs)
            names = metric_names(metric)
            opts = resolve(**options)
            for name in names:
                implementation(parse(name), cpu_fallback=opts.cpu_fallback)
            self.metric = metric
            self._names = names
            self._options = options
            for state in ("preds", "target", "indexes", "doc_id"):
                self.add_state(state, default=[], dist_reduce_fx="cat")

        def update(self, preds, target, indexes, doc_id=None):
            """Keep one batch of rows (flattened; detached from the graph).

            ``doc_id`` (integer document ids) is given with every batch or
            with none: the conventions that break ties by document id use it.
            """
            shapes = [preds.shape, target.shape, indexes.shape]
            if doc_id is not None:
                shapes.append(doc_id.shape)
            if len(set(shapes)) > 1:
                raise ValueError(
                    "preds, target, indexes (and doc_id) must have the same "
                    f"shape, got {' and '.join(str(tuple(s)) for s in shapes)}."
                )
            if (doc_id is None) == _given(self.doc_id) and _given(self.preds):
                raise ValueError(
                    "doc_id must be given with every batch or with none, since "
                    "the last reset()."
                )
            self.preds.append(preds.detach().flatten())
            self.target.append(target.detach().flatten())
            self.indexes.append(indexes.detach().flatten())
            if doc_id is not None:
                self.doc_id.append(doc_id.detach().flatten())

        def compute(self):
            """Mean over queries of every row kept since the last reset."""
            if not _given(self.preds):
                raise ValueError(
                    "RankingMetric has no rows to score: call update() with a "
                    "batch before compute() (since the last reset())."
                )
            # The concatenation too runs on num_threads threads.
            tensors = [self.preds] if isinstance(self.preds, Tensor) else self.preds
            n_rows = sum(t.numel() for t in tensors)
            threads = self._options.get("num_threads", "auto")
            with intra_op_threads(threads, tensors[0].device, n_rows):
                scores = ranking_scores(
                    _cat(self.preds),
                    _cat(self.target),
                    _cat(self.indexes),
                    self._names,
                    doc_id=_cat(self.doc_id) if _given(self.doc_id) else None,
                    **self._options,
                )
            return scores[self.metric] if isinstance(self.metric, str) else scores

    RankingMetric.__module__ = "skndcg.torch"
    return RankingMetric
