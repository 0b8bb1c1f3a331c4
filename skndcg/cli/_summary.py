"""What ``skndcg score`` assumed: the queries it scored, skipped and never saw.

One line on stderr when a query was skipped or not scored or a score cell was
empty (the unretrieved documents alone print nothing), the ``"summary"`` of
``--format json`` always; each but the unretrieved documents is an error under
``--strict``. A streamed file is counted only with ``--strict``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field

import numpy as np

from ._errors import UsageError


@dataclass
class Summary:
    """Counts of what a ``skndcg score`` run assumed (see the module)."""

    queries_scored: int
    queries_skipped: dict = field(default_factory=dict)
    run_queries_unjudged: int = 0
    judged_queries_without_results: int = 0
    unretrieved_judged_rows: int = 0
    empty_score_cells: int = 0
    all_judged: bool = False
    # -J: a query the run answers is scored even when -J leaves it no
    # retrieved document (trec_eval: num_ret 0).
    judged_only: bool = False
    # The first judged query without results of a TREC run, where trec_eval
    # 10.0 stops with an error (not in the JSON summary).
    trec_eval_stops_at: str = ""

    def parts(self, strict_only=False):
        parts = [
            f"{_n(n, 'query', 'queries')} skipped ({why})"
            for why, n in self.queries_skipped.items()
        ]
        unjudged = self.run_queries_unjudged
        if unjudged:
            parts.append(
                f"{_n(unjudged, 'run query', 'run queries')} without judgments "
                "(not scored)"
            )
        no_results = _n(
            self.judged_queries_without_results, "judged query", "judged queries"
        )
        scored_anyway = self.all_judged or self.judged_only
        if self.judged_queries_without_results and not scored_anyway:
            stops = (
                f", first {self.trec_eval_stops_at!r}, where trec_eval 10.0 stops "
                "with an error"
                if self.trec_eval_stops_at
                else ""
            )
            parts.append(
                f"{no_results} without results (not scored{stops}; -c/--all-judged "
                "scores them 0)"
            )
        if self.empty_score_cells:
            empty = _n(self.empty_score_cells, "empty score cell", "empty score cells")
            parts.append(f"{empty} (read as judged, not retrieved)")
        if strict_only:
            return parts
        if self.judged_queries_without_results and scored_anyway:
            why = "--all-judged" if self.all_judged else "-J left them no document"
            parts.append(f"{no_results} without results (scored 0: {why})")
        if self.unretrieved_judged_rows:
            missed = _n(
                self.unretrieved_judged_rows, "judged document", "judged documents"
            )
            parts.append(f"{missed} not retrieved (counted as missed)")
        return parts


def _n(n, one, many):
    return f"{n} {one if n == 1 else many}"


def build(report, coded, *, trec, all_judged, judged_only=False):
    """The summary of one evaluation of the rows ``coded`` (NaN scores for
    judged rows not retrieved; ``placeholders``, the rows ``-J`` added to keep
    a query it left empty) from the ``report``'s ``skipped`` column; ``trec``
    for a TREC run and its qrels."""
    skipped = np.asarray(report["skipped"], dtype=object)
    reasons = Counter(skipped[skipped != ""].tolist())
    # Queries with nothing retrieved are counted on their own, below.
    reasons.pop("nothing retrieved", None)
    qid, y_score, names = coded.qid, coded.y_score, coded.names
    n_names = len(names)
    present = np.bincount(qid, minlength=n_names) > 0
    found = np.bincount(qid[~np.isnan(y_score)], minlength=n_names) > 0
    no_results = int((present & ~found).sum())
    stops = ""
    if trec and no_results and not judged_only:
        stops = str(names[np.flatnonzero(present & ~found)[0]])
    return Summary(
        queries_scored=int((skipped == "").sum()),
        queries_skipped={str(k): int(v) for k, v in reasons.items()},
        run_queries_unjudged=int((~present).sum()) if trec else 0,
        judged_queries_without_results=no_results,
        unretrieved_judged_rows=int(np.isnan(y_score).sum()) - coded.placeholders
        if trec
        else 0,
        empty_score_cells=coded.empty_cells,
        all_judged=all_judged,
        judged_only=judged_only,
        trec_eval_stops_at=stops,
    )


def report(summary, *, strict):
    """Raise the ``--strict`` error, else print the summary line if any: none
    when every query was scored as given (misses are normal)."""
    parts = summary.parts(strict_only=True)
    if parts and strict:
        raise UsageError("--strict: " + "; ".join(parts))
    if parts:
        from ._language import prog

        scored = _n(summary.queries_scored, "query", "queries")
        print(
            f"{prog()}: {scored} scored; " + "; ".join(summary.parts()),
            file=sys.stderr,
        )


def in_json(text, summary):
    """The ``--format json`` output with the summary added."""
    out = json.loads(text)
    out["summary"] = shown = asdict(summary)
    del shown["all_judged"], shown["judged_only"], shown["trec_eval_stops_at"]
    return json.dumps(out, indent=2)
