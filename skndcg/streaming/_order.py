"""Checking, as batches go by, that the rows of each query come together."""

from __future__ import annotations

import numpy as np


class GroupedCheck:
    """Remembers the queries already finished and refuses one that comes back.

    While the ids arrive in increasing order only the last one is compared;
    the first step down switches to a mapping of every id seen so far to its
    rows, so that the error names where the query was first and where it
    comes back. ``rows`` names the file's rows in the message (``"row"`` for a
    Parquet file's rows counted from 0).
    """

    def __init__(self, where: str, qid_col: str, rows: str = "row"):
        self.where = where
        self.qid_col = qid_col
        self.rows = rows
        self.last = None
        self.finished: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.seen: dict | None = None

    def add(self, keys: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> None:
        """``keys`` of queries just finished, on file rows ``[starts, stops)``."""
        if keys.shape[0] == 0:
            return
        if self.seen is None:
            if self._increasing(keys):
                self.finished.append((keys, starts, stops))
                self.last = keys[-1]
                return
            self.seen = {}
            for k, a, b in self.finished:
                rows = zip(a.tolist(), b.tolist(), strict=True)
                self.seen.update(zip(k.tolist(), rows, strict=True))
            self.finished = []
        for key, start, stop in zip(
            keys.tolist(), starts.tolist(), stops.tolist(), strict=True
        ):
            if key in self.seen:
                raise self._error(key, self.seen[key], start)
            self.seen[key] = (start, stop)

    def _error(self, key, first, again) -> ValueError:
        start, stop = first
        span = f"{start}" if stop - start == 1 else f"{start}-{stop - 1}"
        plural = "" if stop - start == 1 else "s"
        return ValueError(
            f"{self.where}: rows are not grouped by query id: {self.qid_col}="
            f"{key!r} is on {self.rows}{plural} {span}, then again from "
            f"{self.rows} {again} on, after rows of other queries. Streaming "
            "reads the file once, in order, so each query's rows must be "
            f"together; sort the file by {self.qid_col!r}, or score it with "
            "skndcg.dask.grouped_ranking_scores, which shuffles rows by query."
        )

    def _increasing(self, keys: np.ndarray) -> bool:
        try:
            ok = bool(np.all(keys[1:] > keys[:-1]))
            return ok and (self.last is None or bool(keys[0] > self.last))
        except TypeError:  # ids that do not compare (mixed types)
            return False
