"""What one ``skndcg score`` (or one run of ``skndcg compare``) asks for: a
frozen :class:`ScoreRequest`, what is derived later a new one (``but``)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class ScoreRequest:
    """The options of one scoring, by their command-line names."""

    input: str | None
    qrels: str | None = None
    model_qrels: str | None = None
    qid: str | None = None
    label: str | None = None
    score: str | None = None
    doc: str | None = None
    metrics: tuple = ()
    metrics_given: bool = False
    measure: tuple = ()
    convention: str | None = None
    all_judged: bool = False
    depth: int | None = None
    per_query: str | None = None
    format: str = "table"
    strict: bool = False
    ci: bool = False
    fail_under: tuple = ()
    query_eval: bool = False
    no_summary: bool = False
    rel_level: int | None = None
    num_docs: int | None = None
    judged_only: bool = False
    pipe_limit_mb: int | None = None
    pipe_timeout: float | None = None
    popularity_file: str | None = None  # the file of the items' training counts
    # Derived once the measures are known (see ``_score``).
    defaulted: tuple = ()  # the column flags given their default name
    texts: tuple = ()  # relstring lines, printed per query
    unjudged_used: bool = False  # a measure tells unjudged documents apart
    item_counts: dict | None = None  # --popularity's counts, when a measure reads them
    # The command that built the request: "trec_eval" translates its flags.
    caller: str = "score"

    @classmethod
    def from_args(cls, args, default_metrics=(), **changes):
        """The request of parsed arguments (an ``argparse.Namespace``): its
        attributes named as a field, ``changes`` over them, and the default
        metrics when none were given."""
        given = {
            f.name: getattr(args, f.name)
            for f in dataclasses.fields(cls)
            if hasattr(args, f.name)
        }
        given.update(changes)
        metrics = given.get("metrics")
        given["metrics_given"] = metrics is not None
        given["metrics"] = tuple(default_metrics if metrics is None else metrics)
        for name in ("measure", "fail_under"):
            given[name] = tuple(given.get(name) or ())
        return cls(**given)

    def means_only(self) -> bool:
        """Whether only the means are asked for (no option reads the per-query
        rows), so that a large file may be streamed."""
        rows = (self.per_query, self.ci, self.strict, self.judged_only,
                self.query_eval, self.unjudged_used)  # fmt: skip
        return not any(rows) and self.rel_level is None and self.num_docs is None

    def but(self, **changes) -> ScoreRequest:
        """A copy of the request with ``changes``."""
        return dataclasses.replace(self, **changes)
