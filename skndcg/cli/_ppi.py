"""``skndcg score RUN --qrels HUMAN --model-qrels MODEL``: a run scored with a
model's judgments (an LLM judge's) corrected by human judgments of some
queries, beside the two single-source scores."""

import json

import numpy as np

from ._errors import EXIT_OK, UsageError
from ._language import small_sample_notes, speak
from ._output import aligned, fmt, json_number, markdown

#: Options of ``skndcg score`` that the two-source scoring does not take.
_REFUSED = (
    ("measure", "-m"),
    ("query_eval", "-q"),
    ("per_query", "--per-query"),
    ("all_judged", "-c"),
    ("judged_only", "-J"),
    ("num_docs", "-N"),
    ("rel_level", "-l"),
    ("ci", "--ci"),
    ("fail_under", "--fail-under"),
    ("strict", "--strict"),
)


def _check(args):
    if args.qrels is None:
        raise UsageError("--model-qrels needs the human judgments too: give --qrels")
    for attr, flag in _REFUSED:
        if getattr(args, attr, None):
            raise UsageError(
                f"{flag} is not available with --model-qrels (the prediction-"
                "powered scores come with their own 95% intervals)"
            )
    if args.format == "trec":
        raise UsageError(
            "--format trec has no place for intervals; with --model-qrels use "
            "table, md, json or csv"
        )


def run_two_sources(args, metrics):
    """Score with two label sources; print; return the exit code."""
    from ..evaluation import prediction_powered_report
    from ..io import open_input

    _check(args)
    # The run joined with both judgment files (the model's missing queries are
    # named there); the grade scale is the human file's, 0 included.
    coded = open_input(
        args.input, args.qrels, model_qrels=args.model_qrels, depth=args.depth
    )
    low, high = coded.grades
    scale = (min(low, 0.0), max(high, 1.0))
    options = {"nan_score": "unretrieved"} if np.isnan(coded.y_score).any() else {}
    options.update(doc_id=coded.docs[0], convention=args.convention or "trec_eval")
    # At least two judged queries, said of the files (the library would speak
    # of NaN labels).
    judged = np.unique(coded.qid[~np.isnan(coded.y_true)]).size
    if judged < 2:
        raise UsageError(
            f"--qrels {args.qrels} judges {judged} of the run's "
            f"{np.unique(coded.qid).size} queries; the prediction-powered score "
            "needs human judgments of at least two queries, drawn at random"
        )
    try:
        with small_sample_notes():
            report = prediction_powered_report(
                coded.y_true, coded.y_model, coded.y_score, coded.names[coded.qid],
                metrics=metrics, grades=scale, metric_options=options,
            )  # fmt: skip
    except ValueError as exc:  # (the library's arrays are the two files)
        human, model = f"--qrels {args.qrels}", f"--model-qrels {args.model_qrels}"
        raise UsageError(speak(str(exc), y_true=human, y_model=model)) from None
    print(_render(args.format, report))
    return EXIT_OK


_SOURCES = (("ppi++", ""), ("model only", "model_only"), ("human only", "human_only"))


def _render(fmt_name, report):
    cols = {
        name: (f"{p}_" if p else "", p or "estimate") for name, p in _SOURCES
    }  # name -> (interval prefix, estimate column)
    n_judged, n_all = int(report["n_judged"].iloc[0]), int(report["n_queries"].iloc[0])
    if fmt_name == "json":
        out = {"n_queries": n_all, "n_judged": n_judged, "metrics": {}}
        for _, row in report.iterrows():
            entry = out["metrics"][row["metric"]] = {
                name: {
                    "mean": json_number(row[est]),
                    "ci": [json_number(row[f"{pre}{end}"]) for end in ("low", "high")],
                }
                for name, (pre, est) in cols.items()
            }
            entry["variance_removed"] = json_number(row["variance_removed"])
        return json.dumps(out, indent=2)
    if fmt_name == "csv":
        lines = ["metric,source,mean,ci_low,ci_high,n_queries"]
        for _, row in report.iterrows():
            for name, (pre, est) in cols.items():
                n = n_all if name == "model only" else n_judged
                lines.append(
                    f"{row['metric']},{name},{row[est]!r},{row[f'{pre}low']!r},"
                    f"{row[f'{pre}high']!r},{n}"
                )
        return "\n".join(lines)
    header = ["metric", *[f"{name} [95% CI]" for name in cols], "var. removed"]
    body = []
    for _, row in report.iterrows():
        cells = [str(row["metric"])]
        for pre, est in cols.values():
            cells.append(
                f"{fmt(row[est])} [{fmt(row[f'{pre}low'])}, {fmt(row[f'{pre}high'])}]"
            )
        body.append([*cells, f"{100 * row['variance_removed']:.0f}%"])
    note = (
        f"{n_all} queries judged by the model, {n_judged} of them by humans "
        "(assumed a uniform random sample); ppi++: prediction-powered estimate"
    )
    if fmt_name == "md":
        return "\n".join([*markdown(header, body), "", note])
    return "\n".join([*aligned(header, body), note])
