"""Every user ranked against the whole catalogue: :func:`full_catalogue_report`."""

from __future__ import annotations

import re
import time

from ...utils._args import check_flags
from ...utils._counts import check_integer
from ...utils._interactions import check_frame
from .._compare._inputs import metric_names
from ._catalogue_blocks import evaluate
from ._catalogue_plan import unique
from ._catalogue_sources import model_kind

_CUTOFF = re.compile(r"@\s*(\d+)\s*$")


def full_catalogue_report(
    scores,
    train,
    test,
    *,
    metrics=("ndcg@10", "recall@10", "map@10"),
    top_n=100,
    exclude_seen=True,
    items=None,
    features=None,
    rel_threshold=None,
    block_size=256,
    return_candidates=False,
):
    """Rank every eligible item for every test user and score the ranking.

    For each user with a held-out item, the model scores every **eligible**
    item: the catalogue (by default the items of ``train``, those that exist
    before the test period) minus, with ``exclude_seen=True``, the items the
    user interacted with in ``train``. Users are scored ``block_size`` at a
    time and only the ``top_n`` best items of each are kept (with every item
    tied with the last one), so memory stays bounded. A held-out item outside
    that list is *judged but not retrieved*: it counts in the ideal DCG and in
    the recall and AP denominators but takes no rank, so every metric with a
    cut-off ``k <= top_n`` is the number the whole ranking gives.

    Each block costs one call of the model (for factors, one matrix product)
    and one compiled pass that keeps each user's top items while skipping
    their seen items where they lie: the block is neither copied nor masked.
    With ``train`` or ``test`` a dask DataFrame, users are partitioned by id
    ranges and each partition is ranked by the same code on the workers; the
    report equals the one computed in memory.

    Parameters
    ----------
    scores : pandas.DataFrame, tuple, callable or fitted estimator
        The model: a users x items score matrix (index user ids, columns item
        ids); a dot-product model ``(user_factors, item_factors)``, two 2-D
        arrays of the same width whose rows are indexed by user and item id
        (integer ids as row numbers, or DataFrames indexed by id); a callable
        ``f(user_ids, item_ids)`` returning an array of shape
        ``(len(user_ids), len(item_ids))``; or any fitted estimator with
        ``predict`` (a :class:`~skndcg.ranker.QueryRanker` included) together
        with ``features``. Higher scores rank first; scores must be finite.
    train : pandas.DataFrame or dask.dataframe.DataFrame
        The interactions before the test period, columns ``user_id`` and
        ``item_id``. It is not modified.
    test : pandas.DataFrame or dask.dataframe.DataFrame
        The held-out interactions, columns ``user_id``, ``item_id`` and
        optionally ``rating`` (the relevance label; 1 when absent). A held-out
        item that is not eligible for its user (cold, or seen in training with
        ``exclude_seen``) cannot be ranked and is left out; a user left with no
        held-out item is not evaluated.
    metrics : str or sequence of str, default=("ndcg@10", "recall@10", "map@10")
        Metric names with a cut-off at most ``top_n``, as in
        :func:`~skndcg.metrics.ranking_report`.
    top_n : int >= 1, default=100
        Items kept per user.
    exclude_seen : bool, default=True
        Leave each user's training items out of their candidates.
    items : array-like or None, default=None
        The catalogue; None takes the distinct items of ``train``. Training
        items outside it are not ranked, so they need no excluding.
    features : callable or None, default=None
        With an estimator: ``features(user_ids, item_ids)`` returns the
        ``len(user_ids) * len(item_ids)`` feature rows of every pair, user by
        user, ready for ``predict``.
    rel_threshold : float or None, default=None
        As in :func:`~skndcg.metrics.ranking_report`.
    block_size : int >= 1, default=256
        Users scored at once: the scores in memory are ``block_size * n_items``
        floats, and the kept rows are scored into the report about a million
        at a time, so memory does not grow with the number of users (beyond
        the report and, when asked, the candidates).
    return_candidates : bool, default=False
        Also return the kept rows (``user_id``, ``item_id``, ``score``,
        ``label``; NaN score for a held-out item outside the top). On dask,
        the rows come partition by partition.

    Returns
    -------
    report : pandas.DataFrame
        :func:`~skndcg.metrics.ranking_report` with one row per evaluated user
        (``qid`` is the user id), ready for :func:`compare`. Where the time
        went is in ``report.attrs["timings"]``, seconds of ``"prepare"``
        (reading the interactions), ``"scoring"`` (the model; for an estimator
        ``"features"`` of it builds the rows), ``"top_k"``, ``"metrics"`` and
        ``"total"`` (on dask, the steps are summed over the partitions).
    candidates : pandas.DataFrame
        Only with ``return_candidates=True``.

    Raises
    ------
    ValueError
        When a test user has no eligible item, when ``top_n`` exceeds the
        catalogue, when a metric has no cut-off or one deeper than ``top_n``,
        when a score is not finite, or when factors are of different widths
        or lack a row for an evaluated user or a catalogue item.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.evaluation import full_catalogue_report
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 12]})
    >>> test = pd.DataFrame({"user_id": [1, 2], "item_id": [12, 10]})
    >>> matrix = pd.DataFrame([[0.1, 0.9, 0.5], [0.8, 0.3, 0.2]],
    ...                       index=[1, 2], columns=[10, 11, 12])
    >>> report = full_catalogue_report(matrix, train, test, metrics="ndcg@2",
    ...                                top_n=2)
    >>> report[["qid", "n_items", "ndcg@2"]]
       qid  n_items  ndcg@2
    0    1        1     1.0
    1    2        2     1.0

    A dot-product model, one row of factors per user and per item id:

    >>> import numpy as np
    >>> user_factors = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> item_factors = pd.DataFrame([[0.2, 0.1], [0.9, 0.3], [0.5, 0.4]],
    ...                             index=[10, 11, 12])
    >>> report = full_catalogue_report((user_factors, item_factors), train,
    ...                                test, metrics="ndcg@2", top_n=2)
    >>> report["ndcg@2"].round(4).tolist()
    [1.0, 0.6309]
    >>> sorted(report.attrs["timings"])
    ['metrics', 'prepare', 'scoring', 'top_k', 'total']
    """
    start = time.perf_counter()
    check_integer("top_n", top_n, 1)
    names = metric_names(metrics)
    for name in names:
        match = _CUTOFF.search(str(name))
        if match is None:
            raise ValueError(
                f"metric {name!r} has no cut-off; full-catalogue evaluation keeps "
                f"the top {top_n} items per user, so every metric needs one, "
                "e.g. 'ndcg@10'."
            )
        if int(match.group(1)) > top_n:
            raise ValueError(
                f"metric {name!r} looks deeper than top_n={top_n}; raise top_n "
                f"to at least {match.group(1)}."
            )
    check_integer("block_size", block_size, 1)
    check_flags(exclude_seen=exclude_seen, return_candidates=return_candidates)
    model_kind(scores, features)
    options = dict(
        names=names, top_n=top_n, exclude_seen=exclude_seen, features=features,
        rel_threshold=rel_threshold, block_size=block_size,
        return_candidates=return_candidates,
    )  # fmt: skip
    # (a dask frame told without importing dask)
    if any(type(f).__module__.split(".")[0] == "dask" for f in (train, test)):
        from ._catalogue_dask import dask_report

        report, cand, seconds = dask_report(scores, train, test, items, options)
    else:
        check_frame(train, "train", ("user_id", "item_id"))
        check_frame(test, "test", ("user_id", "item_id"))
        check_rows(len(train), len(test))
        catalogue = catalogue_of(train["item_id"] if items is None else items, top_n)
        report, cand, seconds = evaluate(scores, train, test, catalogue, **options)
        if report is None:
            raise ValueError(NOTHING)
    seconds["total"] = time.perf_counter() - start
    report.attrs["timings"] = seconds
    return (report, cand) if return_candidates else report


NOTHING = (
    "no test user has a held-out item among its eligible items; nothing to evaluate."
)


def check_rows(n_train, n_test):
    if n_test == 0 or n_train == 0:
        raise ValueError(f"train and test need rows, got {n_train} and {n_test}.")


def catalogue_of(items, top_n):
    """The sorted distinct ``items``, checked to hold ``top_n`` items."""
    catalogue = unique(items)
    if top_n > catalogue.size:
        raise ValueError(
            f"top_n={top_n} is larger than the {catalogue.size} eligible items of "
            "the catalogue; lower top_n."
        )
    return catalogue
