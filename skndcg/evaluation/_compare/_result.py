"""The result of :func:`~skndcg.evaluation.compare` and its tables."""

from __future__ import annotations

import html
import json
from collections import defaultdict

import numpy as np
import pandas as pd

from ...utils._args import check_flags
from ...utils._values import py
from . import _pairs_table as _pairs
from ._pairs_table import latex_escape

#: The numbers of a model's row and of a comparison's row, in column order.
_DIFF = ("diff", "diff_low", "diff_high", "diff_low_adjusted", "diff_high_adjusted")
_PAIR = (*_DIFF, "lift", "lift_low", "lift_high", "p_value", "p_adjusted")
_COUNTS = ("wins", "ties", "losses")


class Comparison:
    """Models compared on the same queries: means, differences, tests.

    Made by :func:`compare` and :func:`compare_scores`; read it with
    :meth:`to_frame` or print it with :meth:`to_markdown`, :meth:`to_latex`,
    :meth:`to_json` (notebooks show it as an HTML table). Draw it with
    :func:`~skndcg.plotting.plot_comparison`,
    :func:`~skndcg.plotting.plot_metric_at_k` and
    :func:`~skndcg.plotting.plot_paired`.

    Parameters
    ----------
    scores : object
        The checked per-query values.
    result : dict
        The numbers computed by :func:`compare`.
    baseline, test, correction, confidence, interval, n_resamples : object
        The settings of :func:`compare`.
    clustered, weighted : bool
        Whether ``cluster`` and ``sample_weight`` were given.

    Attributes
    ----------
    models : list
        Model names, in the order given.
    metrics : list
        Metric names.
    baseline : object or None
        The model every other one is compared with, or ``None`` when every
        pair of models is compared.
    pairs : list of tuple
        The comparisons made, ``(model, other)``: the difference is
        ``model - other``.
    test, correction : str or None
        The test behind the p-values and the multiple-comparison correction.
    confidence : float
        Coverage of the intervals.
    confidence_adjusted : float
        Coverage of the corrected intervals of the differences
        (``diff_low_adjusted``, ``diff_high_adjusted``).
    alpha : float
        Significance level, ``1 - confidence``.
    interval : str
        ``"percentile"``, ``"bca"`` or ``"expanded"``: the bootstrap interval
        asked for.
    n_resamples : int
        Bootstrap resamples drawn.
    qids : ndarray
        The queries, in the order of :attr:`values`.
    values : ndarray of shape (n_models, n_queries, n_metrics)
        Per-query values; NaN where a query does not count for a metric.
    clustered, weighted : bool
        Whether clusters and query weights were used.
    weights : ndarray of shape (n_queries,)
        Query weights (ones without ``sample_weight``).
    clusters : ndarray of shape (n_queries,) or None
        Cluster code of every query, or None without ``cluster``.

    See Also
    --------
    compare : Makes a comparison.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.evaluation import compare_scores
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(30), 8)
    >>> y = rng.integers(0, 3, qid.size)
    >>> cmp = compare_scores(y, {"random": rng.random(qid.size),
    ...                          "model": y + rng.normal(0, 1, qid.size)}, qid,
    ...                      metrics=["ndcg@5"], baseline="random",
    ...                      n_resamples=500, random_state=0)
    >>> cmp
    <Comparison of 2 models on 1 metric(s), baseline='random', ...>
    >>> cmp.to_frame(pairs=True)[["model", "other", "significant", "wins"]]
       model   other  significant  wins
    0  model  random         True    23
    >>> print(cmp.to_markdown())  # doctest: +ELLIPSIS
    | model | ndcg@5 |
    |:---|---:|
    | random | 0... [0..., 0...] |
    | model | 0... [0..., 0...]* |
    <BLANKLINE>
    Mean [95% percentile bootstrap ...]; * differs from random at p <= 0.05 ...
    <BLANKLINE>
    | comparison | metric | difference [95% CI] | p (holm) | wins/ties/losses | d_z |
    |:---|:---|---:|---:|---:|---:|
    | model vs random | ndcg@5 | +0... [+0..., +0...] | < 0.004 | 23/0/7 | 0.83 |
    <BLANKLINE>
    difference: model minus the other, ... d_z: standardised effect size ...
    <BLANKLINE>
    """

    def __init__(
        self,
        scores,
        result,
        *,
        baseline,
        test,
        correction,
        confidence,
        interval,
        n_resamples,
        clustered,
        weighted,
    ):
        self.models = list(scores.models)
        self.metrics = list(scores.metrics)
        self.baseline = baseline
        self.pairs = [(self.models[a], self.models[b]) for a, b in result["pairs"]]
        self.test = test
        self.correction = correction
        self.confidence = confidence
        self.confidence_adjusted = result["confidence_adjusted"]
        self.alpha = 1.0 - confidence
        self.interval = interval
        self.n_resamples = n_resamples
        self.qids = scores.qids
        self.values = np.where(scores.keep[None], scores.values, np.nan)
        self.clustered = clustered
        self.weighted = weighted
        self.weights, self.clusters = scores.weights, scores.clusters
        self._r = result

    # ------------------------------------------------------------------ frames
    def _model_rows(self):
        r, n_models = self._r, len(self.models)
        return pd.DataFrame(
            {
                "model": [m for m in self.models for _ in self.metrics],
                "metric": list(self.metrics) * n_models,
                "n_queries": [int(n) for n in r["n_queries"]] * n_models,
                "mean": r["means"].reshape(-1),
                "low": r["low"].reshape(-1),
                "high": r["high"].reshape(-1),
            }
        )

    def _pair_rows(self):
        r = self._r
        effect = _pairs.effect_sizes(self.values, r["pairs"])
        rows = []
        for p, (model, other) in enumerate(self.pairs):
            for k, metric in enumerate(self.metrics):
                row = {"model": model, "other": other, "metric": metric}
                row["n_queries"] = int(r["n_queries"][k])
                row.update({key: r[key][p, k] for key in _PAIR})
                row["significant"] = bool(r["p_adjusted"][p, k] <= self.alpha)
                row.update({key: int(r[key][p, k]) for key in _COUNTS})
                row["effect_size"] = effect[p, k]
                rows.append(row)
        return pd.DataFrame(rows)

    def to_frame(self, *, pairs=False):
        """The comparison as a DataFrame.

        Parameters
        ----------
        pairs : bool, default=False
            ``False``: one row per (model, metric) with ``model``, ``metric``,
            ``n_queries``, ``mean``, ``low``, ``high`` and, when there is a
            baseline, the comparison with it: ``baseline``, ``diff``,
            ``diff_low``, ``diff_high``, ``diff_low_adjusted``,
            ``diff_high_adjusted`` (interval at :attr:`confidence_adjusted`),
            ``lift`` (relative: ``diff / baseline mean``), ``lift_low``,
            ``lift_high``, ``p_value`` (raw), ``p_adjusted`` (after
            :attr:`correction`), ``significant`` (``p_adjusted <= alpha``),
            ``wins``, ``ties``, ``losses`` (queries where the model is above,
            equal to, below the baseline), ``effect_size`` (Cohen's ``d_z``:
            the mean per-query difference over the standard deviation of the
            differences); NaN on the baseline's own rows.
            ``True``: one row per (comparison, metric), with ``model``,
            ``other`` and the same comparison columns.

        Returns
        -------
        frame : pandas.DataFrame
        """
        check_flags(pairs=pairs)
        if pairs:
            return self._pair_rows()
        frame = self._model_rows()
        if self.baseline is None:
            return frame
        comp = self._pair_rows().drop(columns=["n_queries"])
        comp = comp.rename(columns={"other": "baseline"})
        out = frame.merge(comp, on=["model", "metric"], how="left")
        out["baseline"] = self.baseline
        out["significant"] = out["significant"].fillna(False).astype(bool)
        for key in _COUNTS:
            out[key] = out[key].astype("Int64")
        return out

    # ----------------------------------------------------------------- tables
    def _cells(self, digits, latex=False):
        """Formatted table: one row per model, one column per metric."""
        r = self._r
        letters = [
            chr(ord("a") + i) if i < 26 else f"m{i}" for i in range(len(self.models))
        ]
        beats = defaultdict(list)  # (model, metric): letters of the models it beats
        sig = {}
        for p, (a, b) in enumerate(r["pairs"]):
            for k in range(len(self.metrics)):
                if r["p_adjusted"][p, k] <= self.alpha:
                    sig[a, k] = True
                    winner, loser = (a, b) if r["diff"][p, k] > 0 else (b, a)
                    beats[winner, k].append(letters[loser])
        rows = []
        for i, model in enumerate(self.models):
            label = model if self.baseline is not None else f"({letters[i]}) {model}"
            row = [str(label)]
            for k in range(len(self.metrics)):
                cell = (
                    f"{r['means'][i, k]:.{digits}f} [{r['low'][i, k]:.{digits}f}, "
                    f"{r['high'][i, k]:.{digits}f}]"
                )
                if self.baseline is not None and sig.get((i, k)):
                    cell += "$^{*}$" if latex else "*"
                elif self.baseline is None and beats[i, k]:
                    mark = "".join(sorted(beats[i, k]))
                    cell += f"$^{{{mark}}}$" if latex else f" >{mark}"
                row.append(cell)
            rows.append(row)
        return ["model", *map(str, self.metrics)], rows

    def _corrected_over(self):
        """What the p-values are corrected with, and over how many comparisons."""
        # Within a segmented comparison the correction spans every segment.
        n = self._r.get("n_corrected", len(self.pairs) * len(self.metrics))
        corr = self.correction if self.correction is not None else "no"
        return f"{corr} correction over {n} comparison" + ("" if n == 1 else "s")

    def _footnote(self):
        unit = "clusters" if self.clustered else "queries"
        level = f"{100 * self.confidence:g}%"
        head = (
            f"Mean [{level} {self.interval} bootstrap interval over {unit}, "
            f"{self.n_resamples} resamples]"
        )
        nq = sorted(set(int(v) for v in self._r["n_queries"]))
        nq_text = " or ".join(map(str, nq))
        mark = (
            f"* differs from {self.baseline}"
            if self.baseline is not None
            else ">x: better than model (x)"
        )
        mark += f" at p <= {self.alpha:g} ({self.test} test, {self._corrected_over()})"
        note = ""
        if self._r["small"].any():
            note = " No interval below min_queries queries (shown as nan)"
            if self.test == "paired_bootstrap":
                note += "; p-values there from the exact randomization test"
            note += "."
        return f"{head}; {mark}; {nq_text} queries.{note}"

    def to_markdown(self, digits=3):
        """A Markdown table of the means with significance markers.

        Parameters
        ----------
        digits : int, default=3
            Decimals shown.

        Returns
        -------
        text : str
            The table, then a line that explains the markers, the test and
            the correction; then one row per comparison and metric: the
            difference with its interval, the adjusted p-value,
            wins/ties/losses and the effect size ``d_z``, and a line that
            explains them.
        """
        header, rows = self._cells(digits)
        lines = _pairs.markdown(header, rows, left=1)
        text = "\n".join(lines) + "\n\n" + self._footnote() + "\n\n"
        header, rows, floor = _pairs.pair_rows(self, digits)
        text += "\n".join(_pairs.markdown(header, rows, left=2)) + "\n\n"
        return text + _pairs.pair_footnote(self, floor) + "\n"

    def to_latex(self, digits=3):
        """A booktabs LaTeX table of the means with significance markers.

        Parameters
        ----------
        digits : int, default=3
            Decimals shown.

        Returns
        -------
        text : str
            Two ``tabular`` environments (need ``\\usepackage{booktabs}``):
            the means, then the comparisons (as in :meth:`to_markdown`).
        """
        header, rows = self._cells(digits, latex=True)
        spec = "l" + "r" * (len(header) - 1)
        rows = [[latex_escape(row[0]), *row[1:]] for row in rows]
        note = latex_escape(self._footnote()).replace(r"\$", "$")
        table = _pairs.tabular(spec, [latex_escape(h) for h in header], rows, note)
        return table + "\n\n" + _pairs.latex(self, digits)

    def to_json(self, **kwargs):
        """Every number of the comparison as a JSON document.

        Parameters
        ----------
        **kwargs : dict
            Passed to :func:`json.dumps` (for example ``indent=2``).

        Returns
        -------
        text : str
            An object with the settings (``test``, ``correction``,
            ``confidence``, ...), ``models`` and ``metrics`` (their names),
            ``model_rows`` (the rows of :meth:`to_frame`) and ``pair_rows``
            (the rows of ``to_frame(pairs=True)``, with ``effect_size``),
            what ``effect_size`` is, and ``p_floor``, the
            smallest raw p-value the resamples can give (null for the t and
            Wilcoxon tests); NaN is written as ``null``.
        """

        def records(frame):
            frame = frame.astype(object).where(frame.notna(), None)
            return [
                {k: py(v) for k, v in row.items()}
                for row in frame.to_dict(orient="records")
            ]

        doc = {
            "models": [str(m) for m in self.models],
            "metrics": [str(m) for m in self.metrics],
            "baseline": None if self.baseline is None else str(self.baseline),
            "test": self.test,
            "correction": self.correction,
            "confidence": self.confidence,
            "confidence_adjusted": self.confidence_adjusted,
            "interval": self.interval,
            "n_resamples": self.n_resamples,
            "model_rows": records(self._model_rows()),
            "pair_rows": records(self._pair_rows()),
            "effect_size": _pairs.EFFECT_SIZE,
            "p_floor": _pairs.p_floor(self.test, self.n_resamples),
        }
        return json.dumps(doc, default=str, **kwargs)

    def _repr_html_(self):
        header, rows = self._cells(3)
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in rows
        )
        note = html.escape(self._footnote())
        return (
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            f"<p><small>{note}</small></p>"
        )

    def __repr__(self):
        base = "all pairs" if self.baseline is None else f"baseline={self.baseline!r}"
        return (
            f"<Comparison of {len(self.models)} models on "
            f"{len(self.metrics)} metric(s), {base}, test={self.test!r}, "
            f"correction={self.correction!r}>"
        )
