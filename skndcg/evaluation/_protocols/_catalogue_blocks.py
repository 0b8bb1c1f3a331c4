"""The block loop of a full-catalogue evaluation: score a block of users, keep
each user's top items with the compiled top-k, and turn the kept rows into the
per-user report a few blocks at a time, so memory stays bounded by the block."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..._native._threads import PARALLEL_ROWS, num_threads, run_chunks
from ...metrics._shared import label_max_of, parse_metric, report_with_means
from ...utils._values import py
from . import _catalogue_kernels as K
from ._catalogue_plan import make_plan
from ._catalogue_sources import make_source

#: Kept rows gathered before they are scored into the report (and freed).
REPORT_ROWS = 1 << 20


def needs_label_max(names):
    """Whether a measure of ``names`` reads the largest label of all rows."""
    return any("label_max" in parse_metric(n).definition.needs for n in names)


def largest_label(labels, options):
    """The largest label the engine sees among ``labels`` and a 0 (the label
    of every kept item that is not held out), or None."""
    return label_max_of(np.append(labels, 0.0), **options)


class _Report:
    """Kept rows gathered block by block and scored into the per-user report."""

    def __init__(self, plan, names, options, keep_rows, label_max):
        self.plan, self.names, self.options = plan, names, options
        self.pending, self.n_pending, self.parts = [], 0, []
        self.kept = [] if keep_rows else None
        self.seconds = 0.0
        self.label_max = None
        if needs_label_max(names):
            # A measure reading the largest label of all the rows (ERR's g_max)
            # sees every block's: the held-out labels and the 0 of the others.
            self.label_max = (
                largest_label(plan.pos_labels, options)
                if label_max == "all"
                else label_max
            )

    def add(self, user, item, score, label):
        piece = (user, item, score, label)
        self.pending.append(piece)
        if self.kept is not None:
            self.kept.append(piece)
        self.n_pending += user.size
        if self.n_pending >= REPORT_ROWS:
            self.flush()

    def flush(self):
        if not self.pending:
            return
        start = time.perf_counter()
        user, _, score, label = (
            np.concatenate(c) for c in zip(*self.pending, strict=True)
        )
        self.pending, self.n_pending = [], 0
        report, _ = report_with_means(
            label, score, self.plan.users[user], metrics=self.names,
            nan_score="unretrieved", queries="judged", with_means=False,
            label_max=self.label_max, **self.options,
        )  # fmt: skip
        self.parts.append(report)
        self.seconds += time.perf_counter() - start

    def result(self):
        self.flush()
        report = (
            self.parts[0]
            if len(self.parts) == 1
            else pd.concat(self.parts, ignore_index=True)
        )
        if self.kept is None:
            return report, None
        user, item, score, label = (
            np.concatenate(c) for c in zip(*self.kept, strict=True)
        )
        cand = pd.DataFrame(
            {
                "user_id": self.plan.users[user],
                "item_id": self.plan.catalogue[item],
                "score": score,
                "label": label,
            }
        )
        return report, cand


def evaluate(
    scores, train, test, catalogue, *, names, top_n, exclude_seen, features,
    rel_threshold, block_size, return_candidates, label_max="all",
):  # fmt: skip
    """``(report, candidates or None, seconds)`` of ``train`` and ``test`` over
    the checked ``catalogue`` (report None when no user is evaluated): every
    evaluated user scored ``block_size`` at a time, the ``top_n`` best eligible
    items of each kept (with their ties). ``label_max``: the largest label of
    all the data, when these rows are one piece of it ("all": of these rows)."""
    start = time.perf_counter()
    plan = make_plan(train, test, catalogue, exclude_seen)
    ev = plan.evaluated
    if not ev.size:
        return None, None, {}
    source = make_source(scores, features, plan.users[ev], catalogue, block_size)
    seconds = {"prepare": time.perf_counter() - start, "scoring": 0.0, "top_k": 0.0}
    options = {"rel_threshold": rel_threshold}
    n_items = plan.catalogue.size
    pos_user = np.repeat(
        np.arange(plan.users.size, dtype=np.int64), np.diff(plan.pos_ptr)
    )
    hit = np.zeros(plan.pos_items.size, dtype=bool)
    out = _Report(plan, names, options, return_candidates, label_max)
    top = np.int64(top_n)
    # Room for 2 * top_n kept items per row (more only with ties at the cut).
    cap = np.int64(2 * top_n)
    n_slots = min(block_size, ev.size) * int(cap)
    slots = (np.empty(n_slots, dtype=np.int64), np.empty(n_slots), np.empty(n_slots))
    for lo in range(0, ev.size, block_size):
        hi = min(lo + block_size, ev.size)
        start = time.perf_counter()
        block = source(lo, hi)
        mid = time.perf_counter()
        seconds["scoring"] += mid - start
        rows_user = ev[lo:hi]
        if not np.isfinite(block.sum()):  # one fast pass; NaN or inf make it so
            bad = np.argwhere(~np.isfinite(block))
            if bad.size:  # (else the sum overflowed: the scores are finite)
                r, c = bad[0]
                raise ValueError(
                    f"scores must be finite; user {py(plan.users[rows_user[r]])!r}, "
                    f"item {py(plan.catalogue[c])!r} scored {float(block[r, c])}."
                )
        n_rows = hi - lo
        cut = np.empty(n_rows)
        count = np.empty(n_rows, dtype=np.int64)
        # All threads on a large block, one on a small.
        n_chunks = 1
        if n_rows * n_items >= PARALLEL_ROWS:
            n_chunks = max(1, min(num_threads(), n_rows))
        args = (block, rows_user, plan.seen_ptr, plan.seen_items)
        positives = (plan.pos_ptr, plan.pos_items, plan.pos_labels)
        run_chunks(
            K.select, n_chunks, n_chunks, *args, top, cut, count, *positives,
            cap, *slots, hit,
        )  # fmt: skip
        if (count <= cap).all():
            # Row r's items are in its slots r * cap onwards: gather them.
            taken = (np.arange(cap) < count[:, None]).ravel()
            col, score, label = (x[: n_rows * cap][taken] for x in slots)
        else:  # ties at the cut of some row: write every row in a second pass
            first = np.zeros(n_rows, dtype=np.int64)
            np.cumsum(count[:-1], out=first[1:])
            total = int(first[-1] + count[-1])
            col = np.empty(total, dtype=np.int64)
            score = np.empty(total)
            label = np.empty(total)
            run_chunks(
                K.keep_rows, n_chunks, n_chunks, *args, cut, first, *positives,
                col, score, label, hit,
            )  # fmt: skip
        # The block's held-out items outside its top: judged, not retrieved.
        p0, p1 = plan.pos_ptr[rows_user[0]], plan.pos_ptr[rows_user[-1] + 1]
        missed = p0 + np.flatnonzero(~hit[p0:p1])
        seconds["top_k"] += time.perf_counter() - mid
        out.add(
            np.concatenate([np.repeat(rows_user, count), pos_user[missed]]),
            np.concatenate([col, plan.pos_items[missed]]),
            np.concatenate([score, np.full(missed.size, np.nan)]),
            np.concatenate([label, plan.pos_labels[missed]]),
        )
    report, cand = out.result()
    seconds["metrics"] = out.seconds
    return report, cand, {**seconds, **source.seconds}
