"""Checking, as batches go by, that the rows of each query come together."""

from __future__ import annotations

import numpy as np


class GroupedCheck:
    """Remembers the queries already finished and refuses one that comes back:
    while the ids increase only the last one is compared, then a mapping of
    every id seen to its rows, for the message (``rows`` names the rows)."""

    def __init__(self, where: str, qid_col: str, rows: str = "row"):
        self.where = where
        self.qid_col = qid_col
        self.rows = rows
        self.last = None
        self.finished: list[tuple[np.ndarray, np.ndarray]] = []
        self.seen: dict | None = None  # then: id -> [first row, row after its last]
        self._open: list | None = None  # the rows of the last query, its end unknown

    def add(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """``keys`` of queries just finished, in file order, starting at file rows
        ``rows``; each query ends where the next one starts."""
        if keys.shape[0] == 0:
            return
        if self.seen is None:
            if self._increasing(keys):
                self.finished.append((keys, rows))
                self.last = keys[-1]
                return
            # From here on, a mapping of every id seen to its rows.
            self.seen = {}
            if self.finished:
                keys_seen = np.concatenate([k for k, _ in self.finished])
                starts = np.concatenate([r for _, r in self.finished])
                stops = np.append(starts[1:], int(rows[0]))
                spans = zip(starts.tolist(), stops.tolist(), strict=True)
                self.seen.update(zip(keys_seen.tolist(), map(list, spans), strict=True))
            self.finished = []
        for key, row in zip(keys.tolist(), rows.tolist(), strict=True):
            if self._open is not None:
                self._open[1] = row  # the query before ends here
            if key in self.seen:
                raise self._error(key, self.seen[key], row)
            self._open = self.seen[key] = [row, None]

    def _error(self, key, first, again) -> ValueError:
        start, stop = first
        stop = again if stop is None else stop
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
