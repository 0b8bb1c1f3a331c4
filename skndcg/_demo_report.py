"""Tables, comparisons, plots and files written by the demo."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ._demo_models import METRICS, RANKER, REFIT
from .evaluation import bootstrap_ci, paired_bootstrap


def holdout_table(reports, *, n_resamples, random_state):
    """Mean and bootstrap interval of each metric on the hold-out (long format)."""
    rows = []
    for name, report in reports.items():
        for m in METRICS:
            ci = bootstrap_ci(
                report[m], n_resamples=n_resamples, random_state=random_state
            )
            rows.append((name, m, ci.estimate, ci.low, ci.high))
    return pd.DataFrame(rows, columns=["model", "metric", "value", "low", "high"])


def comparisons(reports, *, n_resamples, random_state):
    """Paired bootstrap of the tuned ranker against every baseline on REFIT."""
    ours = reports[RANKER][REFIT].to_numpy()
    rows = []
    for name, report in reports.items():
        if name == RANKER:
            continue
        res = paired_bootstrap(
            ours,
            report[REFIT].to_numpy(),
            n_resamples=n_resamples,
            random_state=random_state,
        )
        rows.append((name, *res))
    return pd.DataFrame(
        rows, columns=["baseline", "difference", "low", "high", "p_value"]
    )


def _render(header, rows, *, markdown=False):
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
        out.append(
            "|"
            + "|".join(
                "-" * (w + 1) + ("-" if j == 0 else ":") for j, w in enumerate(widths)
            )
            + "|"
        )
    else:
        out.append("  ".join("-" * w for w in widths))
    return "\n".join([*out, *(line(r) for r in rows)])


def results_table(folds, holdout, models, *, markdown=False):
    """One row per model: REFIT per CV fold and its mean, then the hold-out."""
    n_folds = int(folds["fold"].max()) + 1
    header = [
        "model",
        *(f"fold {f}" for f in range(n_folds)),
        "CV mean",
        f"hold-out {REFIT} [95% CI]",
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
                f"{main['value']:.3f} [{main['low']:.3f}, {main['high']:.3f}]",
                *(f"{h.loc[m, 'value']:.3f}" for m in METRICS if m != REFIT),
            ]
        )
    return _render(header, rows, markdown=markdown)


def comparison_lines(comp):
    """One sentence per baseline: the ranker's gain with its interval."""
    lines = []
    for r in comp.itertuples():
        p = "p < 0.001" if r.p_value < 0.001 else f"p = {r.p_value:.3f}"
        lines.append(
            f"{RANKER} - {r.baseline}: {REFIT} {r.difference:+.3f} "
            f"[{r.low:+.3f}, {r.high:+.3f}], {p}"
        )
    return lines


def long_results(folds, holdout):
    """Every number of the run in one long table (results.csv)."""
    cv = folds.assign(split=[f"fold {f}" for f in folds["fold"]], low=np.nan)
    cv["high"] = np.nan
    means = folds.groupby(["model", "metric"], sort=False)["value"].mean().reset_index()
    means["split"], means["low"], means["high"] = "CV mean", np.nan, np.nan
    hold = holdout.assign(split="hold-out")
    cols = ["model", "split", "metric", "value", "low", "high"]
    return pd.concat([cv[cols], means[cols], hold[cols]], ignore_index=True)


def plot_ndcg_at_k(reports, path, ks=range(1, 21)):
    """NDCG@k against k for every model on the hold-out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ks = list(ks)
    for name, report in reports.items():
        values = [np.nanmean(report[f"ndcg@{k}"]) for k in ks]
        ax.plot(ks, values, marker="o", ms=3, label=name, lw=2 if name == RANKER else 1)
    ax.set_xlabel("k (cut-off)")
    ax.set_ylabel("mean NDCG@k over hold-out queries")
    ax.set_xticks(ks[::2] if len(ks) > 10 else ks)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("NDCG@k on the hold-out")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_folds(cv, X, path):
    """The CV folds on a time axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import plot_group_time_splits

    fig, ax = plt.subplots(figsize=(8, 3))
    plot_group_time_splits(cv, X, ax=ax)
    ax.set_title("Cross-validation folds (one segment per query)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_markdown(path: Path, *, summary, table, comp_lines, params):
    text = [
        "# skndcg demo results",
        "",
        *summary,
        "",
        table,
        "",
        "Paired bootstrap over hold-out queries:",
        "",
        *(f"- {line}" for line in comp_lines),
        "",
        "Chosen parameters: "
        + ", ".join(f"`{k}={v!r}`" for k, v in sorted(params.items())),
        "",
    ]
    path.write_text("\n".join(text), encoding="utf-8")
