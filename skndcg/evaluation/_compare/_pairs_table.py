"""The per-pair table of a :class:`~skndcg.evaluation.Comparison`."""

from __future__ import annotations

import numpy as np

_RESAMPLED = ("paired_bootstrap", "randomization")

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text):
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in str(text))


#: What the ``effect_size`` column is, for the footnotes.
EFFECT_SIZE = (
    "d_z: standardised effect size (Cohen's d_z), the mean per-query "
    "difference over the standard deviation of the differences"
)


def effect_sizes(values, pairs):
    """Cohen's ``d_z`` (``ddof=1``, unweighted) of each pair ``(a, b)`` and
    metric, shape ``(n_pairs, n_metrics)``; ``values`` is (models, queries,
    metrics) with NaN where a query does not count."""
    out = np.full((len(pairs), values.shape[2]), np.nan)
    for p, (a, b) in enumerate(pairs):
        for k in range(values.shape[2]):
            d = values[a, :, k] - values[b, :, k]
            d = d[~np.isnan(d)]
            if d.size < 2:
                continue
            # Equal differences have no spread: their std is a rounding residue
            # (the mean of equal floats need not equal them), not a scale.
            if np.ptp(d) > 0:
                out[p, k] = d.mean() / d.std(ddof=1)
    return out


def p_floor(test, n_resamples):
    """The smallest p-value ``test`` can give from ``n_resamples`` resamples
    (before correction; an exact randomization test never reaches it), or None
    for a test that does not resample; the table prints ``< p`` there."""
    return 2.0 / (n_resamples + 1) if test in _RESAMPLED else None


def _signed(v, digits):
    return "nan" if np.isnan(v) else f"{v:+.{digits}f}"


def pair_rows(cmp, digits):
    """Header and rows of the pair table of ``cmp`` (a ``Comparison``)."""
    frame = cmp.to_frame(pairs=True)
    # Whether each raw p-value sits at the floor (none without resampling).
    p_min = p_floor(cmp.test, cmp.n_resamples) or -np.inf
    with np.errstate(invalid="ignore"):
        floor = frame["p_value"].to_numpy(dtype=float) <= p_min * (1 + 1e-9)
    level = f"{100 * cmp.confidence:g}%"
    corr = cmp.correction if cmp.correction is not None else "raw"
    header = ["comparison", "metric", f"difference [{level} CI]",
              f"p ({corr})", "wins/ties/losses", "d_z"]  # fmt: skip
    rows = []
    for i, row in enumerate(frame.itertuples(index=False)):
        diff = (
            f"{_signed(row.diff, digits)} [{_signed(row.diff_low, digits)}, "
            f"{_signed(row.diff_high, digits)}]"
        )
        # NaN prints "nan"; a NaN p-value (adjusted or not) is never at the floor.
        p = row.p_adjusted
        p = f"{p:.2g}" if p < 0.001 else f"{p:.3f}"
        p = f"< {p}" if floor[i] else p
        rows.append([
            f"{row.model} vs {row.other}",
            str(row.metric), diff, p,
            f"{row.wins}/{row.ties}/{row.losses}",
            "nan" if np.isnan(row.effect_size) else f"{row.effect_size:.2f}",
        ])  # fmt: skip
    return header, rows, bool(floor.any())


def pair_footnote(cmp, any_floor):
    """The line under the pair table: what each column is."""
    unit = "clusters" if cmp.clustered else "queries"
    corr = f"adjusted ({cmp.correction})" if cmp.correction is not None else "raw"
    text = (
        f"difference: model minus the other, mean over {unit} with its "
        f"{100 * cmp.confidence:g}% {cmp.interval} bootstrap interval; p: "
        f"{corr} p-value of the {cmp.test} test; wins/ties/losses: queries "
        f"where the model is above, equal to, below the other; {EFFECT_SIZE}."
    )
    if any_floor:
        text += (
            f" p < x: no resample as extreme as the observed difference; x is "
            f"the floor 2/(B+1) of B = {cmp.n_resamples} resamples (after "
            "correction): the p-value is below what they can tell."
        )
    return text


def markdown(header, rows, left):
    """Markdown lines of a table whose first ``left`` columns align left."""
    rule = [":---"] * left + ["---:"] * (len(header) - left)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def latex(cmp, digits):
    """The pair table of ``cmp`` as a booktabs ``tabular``."""
    header, rows, floor = pair_rows(cmp, digits)
    rows = [[*map(latex_escape, row[:2]), *row[2:]] for row in rows]
    for row in rows:
        row[3] = row[3].replace("<", "$<$")
    note = latex_escape(pair_footnote(cmp, floor)).replace("p < x", "p $<$ x")
    return tabular("llrrrr", [latex_escape(h) for h in header], rows, note) + "\n"


def tabular(spec, header, rows, note):
    """A booktabs ``tabular`` of LaTeX cells with ``note`` in small type under it."""
    out = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(header) + r" \\"]
    out.append("\\midrule")
    out += [" & ".join(row) + r" \\" for row in rows]
    out.append("\\bottomrule")
    out.append(f"\\multicolumn{{{len(header)}}}{{l}}{{\\footnotesize {note}}} \\\\")
    out.append("\\end{tabular}")
    return "\n".join(out)
