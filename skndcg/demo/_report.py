"""Tables, sentences and files of the demo (formatting only)."""

from __future__ import annotations

import pandas as pd

from ..utils._atomic import atomic_write
from ._models import METRICS, RANKER, REFIT

COLUMNS = [
    "model",
    "split",
    "metric",
    "value",
    "low",
    "high",
    "user_low",
    "user_high",
    "p_value",
    "p_adjusted",
    "negatives",
    "n_negatives",
    "estimate",
    "protocol",
]


def render(header, rows, *, markdown=False):
    """Aligned text (or a markdown table): first column left, others right."""
    cells = [header, *rows]
    widths = [max(len(r[j]) for r in cells) for j in range(len(header))]

    def line(r):
        parts = [
            r[j].ljust(widths[j]) if j == 0 else r[j].rjust(widths[j])
            for j in range(len(r))
        ]
        return "| " + " | ".join(parts) + " |" if markdown else "  ".join(parts)

    out = [line(header)]
    if markdown:
        rule = ("-" * (w + 1) + ("-" if j == 0 else ":") for j, w in enumerate(widths))
        out.append("|" + "|".join(rule) + "|")
    else:
        out.append("  ".join("-" * w for w in widths))
    return "\n".join([*out, *(line(r) for r in rows)])


def _ci(low, high):
    return f"[{low:.3f}, {high:.3f}]"


def results_table(folds, holdout, models, *, markdown=False):
    """One row per model: REFIT per CV fold and its mean, then the hold-out."""
    n_folds = int(folds["fold"].max()) + 1
    header = [
        "model",
        *(f"fold {f}" for f in range(n_folds)),
        "CV mean",
        f"hold-out {REFIT}",
        "95% CI (queries)",
        "95% CI (users)",
        *(f"hold-out {m}" for m in METRICS if m != REFIT),
    ]
    rows = []
    for name in models:
        f = folds[(folds["model"] == name) & (folds["metric"] == REFIT)]
        per_fold = f.sort_values("fold")["value"].to_numpy()
        h = holdout[holdout["model"] == name].set_index("metric")
        main = h.loc[REFIT]
        rows.append(
            [
                name,
                *(f"{v:.3f}" for v in per_fold),
                f"{per_fold.mean():.3f}",
                f"{main['value']:.3f}",
                _ci(main["low"], main["high"]),
                _ci(main["user_low"], main["user_high"]),
                *(f"{h.loc[m, 'value']:.3f}" for m in METRICS if m != REFIT),
            ]
        )
    return render(header, rows, markdown=markdown)


def p_text(p_value, p_adjusted, n_resamples):
    """A Holm-adjusted p-value, honest at the resampling floor.

    A paired bootstrap of ``B`` resamples cannot give a two-sided p-value
    below ``2 / (B + 1)``; at that floor the measured value is only a bound.
    """
    if p_value <= 2.0 / (n_resamples + 1) + 1e-12:
        return (
            f"Holm-adjusted p < {p_adjusted:.3f} (no paired resample of "
            f"{n_resamples:,} reached zero: the floor)"
        )
    return f"Holm-adjusted p = {p_adjusted:.3f} ({n_resamples:,} paired resamples)"


def comparison_lines(holdout, strongest, n_resamples):
    """One sentence per baseline: the ranker's gain on REFIT with intervals."""
    diffs = holdout[holdout["model"].str.startswith(f"{RANKER} - ")]
    lines = []
    for r in diffs[diffs["metric"] == REFIT].itertuples():
        mark = "  <- headline" if r.model == f"{RANKER} - {strongest}" else ""
        lines.append(
            f"{r.model}: {REFIT} {r.value:+.3f}, queries [{r.low:+.3f}, "
            f"{r.high:+.3f}], users [{r.user_low:+.3f}, {r.user_high:+.3f}], "
            f"{p_text(r.p_value, r.p_adjusted, n_resamples)}{mark}"
        )
    return lines


def headline(holdout, strongest, strongest_cv):
    """The one sentence to quote."""
    r = holdout[
        (holdout["model"] == f"{RANKER} - {strongest}") & (holdout["metric"] == REFIT)
    ].iloc[0]
    return (
        f"headline: {RANKER} against {strongest}, the strongest baseline on the "
        f"tuning folds (CV {REFIT} {strongest_cv:.3f}): {REFIT} {r['value']:+.3f}, "
        f"95% CI over users [{r['user_low']:+.3f}, {r['user_high']:+.3f}]"
    )


def long_results(folds, holdout, *, negatives, n_negatives):
    """Every number of one run in one long table (rows of results.csv)."""
    cv = folds.assign(split=[f"fold {f}" for f in folds["fold"]])
    means = folds.groupby(["model", "metric"], sort=False)["value"].mean()
    means = means.reset_index().assign(split="CV mean")
    out = pd.concat([cv, means, holdout.assign(split="hold-out")], ignore_index=True)
    out = out.reindex(columns=COLUMNS)
    out["negatives"] = negatives
    out["n_negatives"] = n_negatives
    if out["estimate"].isna().all():
        out["estimate"] = "raw"
    return out


def write_markdown(path, *, summary, sections):
    """results.md: the summary, then per sampling mode its table and lines."""
    text = ["# skndcg demo results", "", *summary, ""]
    for title, table, lines in sections:
        text += [f"## {title}", "", table, "", *(f"- {ln}" for ln in lines), ""]
    with atomic_write(path) as fh:
        fh.write("\n".join(text))
