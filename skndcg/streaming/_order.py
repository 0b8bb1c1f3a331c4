"""Checking, as batches go by, that the rows of each query come together."""

from __future__ import annotations

import numpy as np


class GroupedCheck:
    """Remembers the queries already finished and refuses one that comes back.

    While the ids arrive in increasing order only the last one is compared;
    the first step down switches to a set of every id seen so far.
    """

    def __init__(self, where: str, qid_col: str):
        self.where = where
        self.qid_col = qid_col
        self.last = None
        self.finished: list[np.ndarray] = []
        self.seen: set | None = None

    def add(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """``keys`` of queries just finished, starting at file rows ``rows``."""
        if keys.shape[0] == 0:
            return
        if self.seen is None:
            if self._increasing(keys):
                self.finished.append(keys)
                self.last = keys[-1]
                return
            self.seen = set()
            for earlier in self.finished:
                self.seen.update(earlier.tolist())
            self.finished = []
        for key, row in zip(keys.tolist(), rows.tolist(), strict=True):
            if key in self.seen:
                raise ValueError(
                    f"{self.where}: rows are not grouped by query id: "
                    f"{self.qid_col}={key!r} appears again at row {row} after rows "
                    "of other queries. Streaming reads the file once, in order, so "
                    "each query's rows must be together; sort the file by "
                    f"{self.qid_col!r}, or score it with skndcg.dask."
                    "grouped_ranking_scores, which shuffles rows by query."
                )
            self.seen.add(key)

    def _increasing(self, keys: np.ndarray) -> bool:
        try:
            ok = bool(np.all(keys[1:] > keys[:-1]))
            return ok and (self.last is None or bool(keys[0] > self.last))
        except TypeError:  # ids that do not compare (mixed types)
            return False
