"""The demo's figures: the folds in monthly bins, NDCG@k with bands."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..utils._atomic import atomic_write
from ._models import RANKER

ROLE_COLORS = {
    "train": "#4c72b0",
    "test": "#dd8452",
    "unused": "#c8c8c8",
    "hold-out": "#c44e52",
}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fold_roles(cv, X_dev, X_hold):
    """Role of every query in every row of the diagram (long DataFrame).

    One row per CV fold (train, test, unused), then the final fit: every
    tuning query trains the refit model, the later queries are the hold-out.
    """
    q_dev = X_dev.groupby("qid", sort=True)["window_start"].first()
    q_hold = X_hold.groupby("qid", sort=True)["window_start"].first()
    qid = X_dev["qid"].to_numpy()
    parts = []
    for k, (train, test) in enumerate(cv.split(X_dev)):
        role = pd.Series("unused", index=q_dev.index, dtype=object)
        role[np.unique(qid[train])] = "train"
        role[np.unique(qid[test])] = "test"
        parts.append(pd.DataFrame({"row": f"fold {k}", "month": q_dev, "role": role}))
    for month, role in ((q_dev, "train"), (q_hold, "hold-out")):
        parts.append(pd.DataFrame({"row": "final fit", "month": month, "role": role}))
    return pd.concat(parts, ignore_index=True)


def plot_folds(roles, path, title):
    """Queries per month and role, one band per row; legend for used roles."""
    plt = _pyplot()
    counts = roles.groupby(["row", "month", "role"], sort=False).size()
    rows = list(dict.fromkeys(roles["row"]))
    top = counts.groupby(["row", "month"]).sum().max()
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.6 * len(rows)))
    used = set()
    width = pd.Timedelta(days=26)
    for r, row in enumerate(rows):
        sub = counts.loc[row].unstack("role", fill_value=0)
        bottom = np.zeros(len(sub))
        for role, color in ROLE_COLORS.items():
            if role not in sub.columns or not sub[role].any():
                continue
            height = 0.8 * sub[role].to_numpy() / top
            ax.bar(
                sub.index,
                height,
                width=width,
                bottom=r + 0.4 - bottom - height,
                color=color,
                align="edge",
                linewidth=0,
            )
            bottom += height
            used.add(role)
    ax.set_yticks(np.arange(len(rows)))
    ax.set_yticklabels(rows)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("query month (bar height: number of queries)")
    handles = [
        plt.Rectangle((0, 0), 1, 1, color=c, label=role)
        for role, c in ROLE_COLORS.items()
        if role in used
    ]
    ax.legend(
        handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False
    )
    ax.set_title(title)
    fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)
    return sorted(used)


def ndcg_title(source, mode, n_negatives, n_queries):
    """Title of an NDCG@k plot: what was measured on which data."""
    what = f"{mode} negatives, N = {n_negatives}"
    if mode == "full":
        what = "full catalogue"
    return (
        f"NDCG@k on the hold-out, 95% query-bootstrap bands\n{source}; "
        f"{what}; {n_queries:,} queries"
    )


def plot_ndcg_at_k(comparison, path, title):
    """NDCG@k against k for every model on the hold-out, with bands."""
    from ..plotting import plot_metric_at_k

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    plot_metric_at_k(comparison, "ndcg", ax=ax)
    for line in ax.get_lines():
        line.set_linewidth(2.2 if line.get_label() == RANKER else 1.2)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)
    return ax
