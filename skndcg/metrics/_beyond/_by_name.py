"""The per-user popularity measures as registry measures, usable by name
(``novelty(n_users=N)@k``, ``arp@k``, ...): each a sum or a mean over a user's top
``k`` of one value per row, which ``row_values`` derives from ``item_id`` and
``popularity`` as :mod:`._popularity` does; the engine ranks them as labels
(``_core/_side.py``), so the values equal those functions' (``missing="error"``,
``primitive="popular"``), ties included.
"""

from __future__ import annotations

import numpy as np

from .._catalogue._registry import Param, declare
from .._jit import jit, n_read

_SIDE = ("item_id", "popularity")
_LONG_TAIL = Param(
    "long_tail",
    0.2,
    "the head's share of the items: every item but the ceil(long_tail * n) "
    "most popular of popularity's n items is in the long tail",
    low=0.0,
    high=1.0,
    open_low=True,
    open_high=True,
)
_N_USERS = Param(
    "n_users",
    None,
    "training users, the denominator of p(i); by default the sum of the counts",
    low=1.0,
    integer=True,
)


@jit
def top_sum(labels, k):
    total = 0.0
    for i in range(n_read(labels, k)):
        total += labels[i]
    return total


@jit
def top_mean(labels, k):
    return top_sum(labels, k) / n_read(labels, k)


@jit
def top_mean_param(labels, k, param):  # (param is read by row_values)
    return top_mean(labels, k)


@jit
def top_sum_param(labels, k, param):
    return top_sum(labels, k)


@jit
def share_of_counted(labels, k, n_relevant, param):
    return top_sum(labels, k) / n_relevant if n_relevant > 0 else 0.0


@jit
def share_of_k(labels, k):
    return top_sum(labels, k) / (labels.shape[0] if k is None else k)


def _items(relevant, side):
    """Item code of each row, item ids, popularity per item, and its table."""
    from .._core._validate import check_length
    from ._items import item_codes
    from ._listwise import popularity_of

    codes, uniques = item_codes(side["item_id"])
    check_length("item_id", codes.shape[0], relevant.shape[0])
    pop, table = popularity_of(side["popularity"], uniques, "error", allowed=("error",))
    return codes, uniques, pop, table


def _tail(spec, relevant, side):
    from ._listwise import long_tail_of

    codes, uniques, _, table = _items(relevant, side)
    return long_tail_of(spec.param("long_tail"), table, uniques)[codes]


def _novelty(spec, relevant, side):
    from ._items import py
    from ._popularity import check_n_users

    codes, uniques, pop, table = _items(relevant, side)
    n_users = spec.param("n_users")
    total = (
        float(table.sum()) if n_users is None else check_n_users(int(n_users), table)
    )
    if (pop == 0).any():
        raise ValueError(
            f"item {py(uniques[np.flatnonzero(pop == 0)[0]])!r} has popularity 0: "
            f"its self-information -log2(0) is infinite; {spec.name} needs every "
            "item of item_id seen in training (novelty_score needs it only for "
            "the recommended items)."
        )
    return (-np.log2(pop / total))[codes]


def _arp(spec, relevant, side):
    codes, _, pop, _ = _items(relevant, side)
    return pop[codes]


def _serendipity(spec, relevant, side):
    from ._listwise import head_of

    if spec.k is None:
        raise ValueError(
            f"{spec.name} needs a cut-off, as in 'serendipity@10': the primitive "
            "recommender shows every user the k most popular items."
        )
    codes, uniques, _, table = _items(relevant, side)
    return relevant & ~head_of(table, uniques, spec.k)[codes]


_BY_NAME = (
    ("novelty", "Novelty: mean self-information -log2(p(i)) of the top k's items, "
     "p(i) their share of training users.", (_N_USERS,), top_mean_param, _novelty),
    ("arp", "Average recommendation popularity: mean training popularity of the "
     "top k's items.", (), top_mean, _arp),
    ("aplt", "Average percentage of long-tail items: the long tail's share of the "
     "top k.", (_LONG_TAIL,), top_mean_param, _tail),
    ("aclt", "Average coverage of long-tail items: how many long-tail items the "
     "top k holds.", (_LONG_TAIL,), top_sum_param, _tail),
    ("long_tail_recall", "Recall at k of the relevant long-tail rows.",
     (_LONG_TAIL,), share_of_counted, lambda sp, rel, side: rel & _tail(sp, rel, side)),
    ("serendipity", "Share of the top k that is relevant and not among the k most "
     "popular training items.", (), share_of_k, _serendipity),
)  # fmt: skip

for _name, _text, _params, _kernel, _values in _BY_NAME:
    declare(
        _name,
        _text,
        aliases=("average_popularity",) if _name == "arp" else (),
        params=_params,
        needs=("n_relevant",) if _name == "long_tail_recall" else (),
        empty_when="no_relevant" if _name == "long_tail_recall" else "never",
        per_query=_kernel,
        higher_is_better=_name != "arp",
        depth="k",
        form="sum",
        side_inputs=_SIDE,
        row_values=_values,
    )
