"""How the command line prints its means (table, Markdown, JSON or CSV), and the
table layouts and number formats ``score`` and ``--model-qrels`` share."""

import json
import math


def fmt(value):
    """A mean as trec_eval prints it: four decimals, or nan."""
    return "nan" if value is None or math.isnan(value) else f"{value:.4f}"


def json_number(value):
    """A number for JSON: None (``null``) for a missing or NaN one."""
    return None if value is None or math.isnan(value) else float(value)


def markdown(header, rows):
    """The lines of a Markdown table: the first column left-aligned, the
    others right-aligned."""
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
    lines.extend("| " + " | ".join(r) + " |" for r in rows)
    return lines


def aligned(header, rows):
    """The lines of a plain-text table: columns two spaces apart, the first
    left-aligned, the others right-aligned."""
    table = [header, *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    return [
        "  ".join(
            [r[0].ljust(widths[0])]
            + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
        ).rstrip()
        for r in table
    ]


def render(fmt_name, metrics, means, cis, n_queries):
    """The means (and intervals) in ``fmt_name``: table, md, json or csv."""
    if fmt_name == "json":
        out = {"mean": {m: json_number(means[m]) for m in metrics}}
        out["n_queries"] = n_queries
        if cis:
            out["ci"] = {m: [json_number(v) for v in cis[m]] for m in metrics}
        return json.dumps(out, indent=2)
    if fmt_name == "csv":
        lines = ["metric,mean,n_queries" + (",ci_low,ci_high" if cis else "")]
        for m in metrics:
            row = f"{_csv(m)},{means[m]!r},{n_queries}"
            if cis:
                row += f",{cis[m][0]!r},{cis[m][1]!r}"
            lines.append(row)
        return "\n".join(lines)
    header = ["metric", "mean"] + (["95% CI"] if cis else [])
    rows = [
        [m, fmt(means[m])] + ([f"[{fmt(cis[m][0])}, {fmt(cis[m][1])}]"] if cis else [])
        for m in metrics
    ]
    if fmt_name == "md":
        return "\n".join([*markdown(header, rows), "", f"{n_queries} queries"])
    return "\n".join([*aligned(header, rows), f"n_queries  {n_queries}"])


def _csv(text):
    return f'"{text}"' if any(c in text for c in ',"\n') else text
