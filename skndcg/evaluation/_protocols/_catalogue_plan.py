"""Who is ranked against what: users, catalogue, seen items and held-out items
of a full-catalogue evaluation, as compressed rows of item numbers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...utils._values import py


@dataclass
class Plan:
    """Item numbers index ``catalogue``; user numbers index ``users``.

    ``seen_items[seen_ptr[u]:seen_ptr[u + 1]]`` are user ``u``'s training items
    (sorted, empty without ``exclude_seen``); ``pos_items`` and ``pos_labels``
    from ``pos_ptr`` its held-out eligible items (sorted, one each, the best
    label); ``evaluated`` the users with at least one, in increasing order.
    """

    users: np.ndarray
    catalogue: np.ndarray
    seen_ptr: np.ndarray
    seen_items: np.ndarray
    pos_ptr: np.ndarray
    pos_items: np.ndarray
    pos_labels: np.ndarray
    evaluated: np.ndarray


def unique(values):
    """Sorted distinct values (a sort and a pass: faster than ``np.unique`` on
    many distinct numbers)."""
    values = np.asarray(values)
    if values.dtype.kind not in "biuf" or values.size == 0:
        return np.unique(values)
    out = np.sort(values)
    keep = np.empty(out.size, dtype=bool)
    keep[0] = True
    np.not_equal(out[1:], out[:-1], out=keep[1:])
    if out.dtype.kind == "f":
        keep[1:] &= ~(np.isnan(out[1:]) & np.isnan(out[:-1]))
    return out[keep]


def _small_int(dtype):
    """Integers that int64 holds: signed, or unsigned of fewer than 8 bytes."""
    return dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8)


def _codes(values, uniques):
    """Position of each value in the sorted ``uniques``, and whether it is there."""
    values = np.asarray(values)
    if (
        _small_int(values.dtype)
        and _small_int(uniques.dtype)
        and uniques.size
        and int(uniques[-1]) - int(uniques[0]) <= 4 * (values.size + uniques.size)
    ):
        # Small integer ids: a lookup table instead of a binary search.
        base = int(uniques[0])
        table = np.full(int(uniques[-1]) - base + 1, -1, dtype=np.int64)
        table[uniques.astype(np.int64) - base] = np.arange(uniques.size)
        at = values.astype(np.int64) - base
        inside = (at >= 0) & (at < table.size)
        pos = np.where(inside, table[np.where(inside, at, 0)], -1)
        return np.maximum(pos, 0), pos >= 0
    pos = np.searchsorted(uniques, values)
    pos = np.minimum(pos, uniques.size - 1)
    return pos, uniques[pos] == values


def _rows(keys, n_users, n_items):
    """Compressed rows of sorted ``user * n_items + item`` keys."""
    ptr = np.searchsorted(keys, np.arange(n_users + 1, dtype=np.int64) * n_items)
    return ptr.astype(np.int64), (keys % n_items).astype(np.int64)


def make_plan(train, test, catalogue, exclude_seen):
    """The :class:`Plan` of ``train`` and ``test`` over ``catalogue`` (sorted
    distinct item ids)."""
    labels = (
        test["rating"].to_numpy(np.float64)
        if "rating" in test.columns
        else np.ones(len(test))
    )
    n_items = np.int64(catalogue.size)
    test_item, known = _codes(test["item_id"].to_numpy(), catalogue)
    users = unique(test["user_id"].to_numpy())
    test_user = _codes(test["user_id"].to_numpy(), users)[0].astype(np.int64)
    seen = np.zeros(0, dtype=np.int64)
    if exclude_seen:
        tr_user, tr_known_user = _codes(train["user_id"].to_numpy(), users)
        tr_item, tr_known_item = _codes(train["item_id"].to_numpy(), catalogue)
        keep = tr_known_user & tr_known_item
        seen = unique(tr_user[keep].astype(np.int64) * n_items + tr_item[keep])
    seen_ptr, seen_items = _rows(seen, users.size, n_items)
    empty = np.flatnonzero(np.diff(seen_ptr) >= n_items)
    if empty.size:
        raise ValueError(
            f"user {py(users[empty[0]])!r} has no eligible item: all "
            f"{catalogue.size} catalogue items are in its training "
            f"interactions ({empty.size} such users); drop these users or pass "
            "exclude_seen=False."
        )
    # Held-out positives: eligible (user, item) pairs, the best label of each.
    pair = test_user * n_items + test_item
    ok = known
    if seen.size:
        at = np.minimum(np.searchsorted(seen, pair), seen.size - 1)
        ok = known & (seen[at] != pair)
    pair, lab = pair[ok], labels[ok]
    order = np.lexsort((-lab, pair))
    pair, lab = pair[order], lab[order]
    first = np.ones(pair.size, dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    pair, lab = pair[first], lab[first]
    pos_ptr, pos_items = _rows(pair, users.size, n_items)
    evaluated = np.flatnonzero(np.diff(pos_ptr) > 0)
    return Plan(
        users, catalogue, seen_ptr, seen_items, pos_ptr, pos_items,
        np.ascontiguousarray(lab, dtype=np.float64), evaluated,
    )  # fmt: skip
