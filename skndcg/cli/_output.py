"""How ``skndcg score`` prints its results: table, Markdown, JSON, CSV or trec_eval's
three columns."""

from __future__ import annotations

import json
import math


def fmt(value):
    """A mean as trec_eval prints it: four decimals, or nan."""
    return "nan" if value is None or math.isnan(value) else f"{value:.4f}"


def render(fmt_name, metrics, means, cis, n_queries, per_query, tag):
    """The means (and intervals, and trec_eval's per-query lines) as text."""
    lines = []
    if fmt_name == "json":
        out = {"mean": {m: _json_number(means[m]) for m in metrics}}
        out["n_queries"] = n_queries
        if cis:
            out["ci"] = {m: [_json_number(v) for v in cis[m]] for m in metrics}
        return json.dumps(out, indent=2)
    if fmt_name == "csv":
        head = "metric,mean,n_queries" + (",ci_low,ci_high" if cis else "")
        lines.append(head)
        for m in metrics:
            row = f"{_csv(m)},{means[m]!r},{n_queries}"
            if cis:
                row += f",{cis[m][0]!r},{cis[m][1]!r}"
            lines.append(row)
        return "\n".join(lines)
    if fmt_name == "trec":
        if per_query is not None:
            for _, row in per_query.iterrows():
                for m in metrics:
                    lines.append(f"{m:<22}\t{row['qid']}\t{fmt(row[m])}")
        if tag is not None:
            lines.append(f"{'runid':<22}\tall\t{tag}")
        lines.append(f"{'num_q':<22}\tall\t{n_queries}")
        lines.extend(f"{m:<22}\tall\t{fmt(means[m])}" for m in metrics)
        return "\n".join(lines)
    header = ["metric", "mean"] + (["95% CI"] if cis else [])
    rows = [
        [m, fmt(means[m])] + ([f"[{fmt(cis[m][0])}, {fmt(cis[m][1])}]"] if cis else [])
        for m in metrics
    ]
    if fmt_name == "md":
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
        lines.extend("| " + " | ".join(r) + " |" for r in rows)
        lines.append("")
        lines.append(f"{n_queries} queries")
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    lines.append(f"n_queries  {n_queries}")
    return "\n".join(lines)


def _json_number(value):
    return None if math.isnan(value) else float(value)


def _csv(text):
    return f'"{text}"' if any(c in text for c in ',"\n') else text
