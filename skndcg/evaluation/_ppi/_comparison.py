"""Systems compared under two label sources: :func:`compare` with ``y_model=``,
each mean, paired difference and lift a prediction-powered estimate."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from .._compare._inputs import gather
from .._compare._numbers import pairs_of
from .._compare._result import Comparison
from .._stats._resampling import as_generator, percentile_interval
from .._stats._significance import (
    adjust_p_values,
    bootstrap_p_value,
    corrected_confidence,
)
from ._estimator import estimate, model_only
from ._inputs import check_labels, ratio_parts, scores_per_row, two_reports


def two_sources(scores, y_model, metrics, nan_policy, settings, rng, **unsupported):
    """The :class:`PredictionPoweredComparison` of :func:`compare`."""
    for name, value in unsupported.items():
        if value is not None:
            raise ValueError(
                f"{name} is not supported with y_model: a prediction-powered "
                "comparison weighs every query alike, on one segment."
            )
    if settings["test"] not in ("paired_bootstrap", "t"):
        raise ValueError(
            f"test={settings['test']!r} has no prediction-powered form; with "
            "y_model use test='paired_bootstrap' or test='t'."
        )
    if settings["interval"] != "percentile":
        raise ValueError(
            f"interval={settings['interval']!r} is not supported with y_model; "
            "use interval='percentile' (or test='t' for t intervals)."
        )
    human = gather(scores, metrics, None, None, nan_policy)
    model = gather(y_model, human.metrics, None, None, "omit")
    if set(human.models) != set(model.models):
        raise ValueError(
            f"y_model holds the models {model.models}, the scores {human.models}; "
            "give both label sources' values for the same models."
        )
    pos = pd.Index(model.qids).get_indexer(human.qids)
    if (pos < 0).any():
        bad = human.qids[pos < 0][:5].tolist()
        raise ValueError(
            f"the human-judged queries {bad} have no values under the model's "
            "labels (y_model); the model's labels must cover every query."
        )
    n = pos.size
    if n < 2:
        raise ValueError(
            f"the scores cover {n} human-judged query; a prediction-powered "
            "comparison needs at least two."
        )
    order = [model.models.index(m) for m in human.models]
    F = model.values[order]  # (M, N, K) model labels, every query
    H = np.full_like(F, np.nan)
    H[:, pos] = np.where(human.keep[None], human.values, np.nan)
    judged = np.zeros(model.qids.size, bool)
    judged[pos] = True
    M, N, K = F.shape
    pi = np.full(N, n / N)
    boot = settings["test"] == "paired_bootstrap"
    conf = settings["confidence"]
    opts = dict(confidence=conf, bootstrap=settings["n_resamples"] if boot else None)
    opts["rng"] = as_generator(rng)
    ppi = dict(method="ppi++", **opts)
    r = {k: np.empty((M, K)) for k in ("means", "low", "high", "only")}
    for i in range(M):
        for k in range(K):
            parts = ratio_parts(F[i, :, k], H[i, :, k])
            e = estimate(*parts, judged, pi, **ppi)
            r["means"][i, k] = e["estimate"]
            r["low"][i, k], r["high"][i, k] = e["low"], e["high"]
            r["only"][i, k] = model_only(*parts[2:], **opts)[0]
    pairs = pairs_of(human.models, settings["baseline"])
    P = len(pairs)
    keys = ("diff", "diff_low", "diff_high", "lift", "lift_low", "lift_high")
    out = {k: np.empty((P, K)) for k in (*keys, "p_value", "se")}
    dists = {}
    for p, (a, b) in enumerate(pairs):
        for k in range(K):
            ha, hb, fa, fb = H[a, :, k], H[b, :, k], F[a, :, k], F[b, :, k]
            dh = (~np.isnan(ha) & ~np.isnan(hb)) * 1.0
            df = (~np.isnan(fa) & ~np.isnan(fb)) * 1.0
            diff = (np.nan_to_num(ha - hb) * dh, dh, np.nan_to_num(fa - fb) * df, df)
            lift = (np.nan_to_num(ha) * dh, np.nan_to_num(hb) * dh)
            lift += (np.nan_to_num(fa) * df, np.nan_to_num(fb) * df)
            d = estimate(*diff, judged, pi, **ppi)
            li = estimate(*lift, judged, pi, **ppi)
            out["se"][p, k] = d["se"]
            for key, e, shift in (("diff", d, 0.0), ("lift", li, 1.0)):
                for end, src in (("", "estimate"), ("_low", "low"), ("_high", "high")):
                    out[key + end][p, k] = e[src] - shift
            if boot:
                dists[p, k] = d["dist"]
                obs = np.array([d["estimate"]])
                out["p_value"][p, k] = bootstrap_p_value(d["dist"][:, None], obs)[0]
            else:
                tstat = d["estimate"] / d["se"] if d["se"] > 0 else np.inf
                out["p_value"][p, k] = 2 * stats.t.sf(abs(tstat), max(n - 1, 1))
    p_adj = adjust_p_values(out["p_value"].reshape(-1), settings["correction"])
    conf_adj = corrected_confidence(
        p_adj, settings["correction"], conf, opts["bootstrap"]
    )
    # t intervals at the corrected level; with the bootstrap, percentile ones.
    half = stats.t.ppf(0.5 + conf_adj / 2, max(n - 1, 1)) * out["se"]
    low_adj, high_adj = out["diff"] - half, out["diff"] + half
    for (p, k), dist in dists.items():
        lo, hi = percentile_interval(dist[:, None], conf_adj)
        low_adj[p, k], high_adj[p, k] = lo[0], hi[0]
    # H holds the human values of the judged queries, NaN elsewhere.
    dv = H[[a for a, _ in pairs]] - H[[b for _, b in pairs]]
    ok = ~np.isnan(dv)
    result = {
        "pairs": pairs,
        **{k: r[k] for k in ("means", "low", "high")},
        "n_queries": np.full(K, n),
        "n_units": np.full(K, n),
        "small": np.zeros(K, bool),
        **{k: out[k] for k in keys},
        "diff_low_adjusted": low_adj,
        "diff_high_adjusted": high_adj,
        "p_value": out["p_value"],
        "p_adjusted": p_adj.reshape(P, K),
        "confidence_adjusted": conf_adj,
        "wins": ((dv > 0) & ok).sum(1),
        "ties": ((dv == 0) & ok).sum(1),
        "losses": ((dv < 0) & ok).sum(1),
    }
    flips = []
    for k, metric in enumerate(human.metrics):
        a = list(np.argsort(-r["means"][:, k], kind="stable"))
        b = list(np.argsort(-r["only"][:, k], kind="stable"))
        if a != b:
            flips.append(metric)
            warnings.warn(
                f"{metric}: the model's labels alone rank the systems "
                f"{' > '.join(str(human.models[i]) for i in b)}; corrected by the "
                "human sample (prediction-powered) they rank "
                f"{' > '.join(str(human.models[i]) for i in a)}.",
                UserWarning,
                stacklevel=2,
            )
    options = {k: v for k, v in settings.items() if k != "min_queries"}
    options["interval"] = "percentile" if boot else "clt"
    return PredictionPoweredComparison(
        human,
        result,
        model_only=r["only"],
        order_flips=flips,
        n_all=N,
        clustered=False,
        weighted=False,
        **options,
    )


class PredictionPoweredComparison(Comparison):
    """Systems compared with a model's labels corrected by a human sample.

    Made by :func:`compare` (and :func:`compare_scores`) with ``y_model=``:
    every mean, difference and lift is a prediction-powered (PPI++)
    estimate. Reads and prints like a :class:`Comparison`; :meth:`to_frame`
    adds, per model and metric, ``model_only`` (the mean under the model's
    labels alone over every query), ``rank_model_only`` and ``rank`` (1 is
    the best, by the model's labels alone and by the corrected estimate).

    Parameters
    ----------
    scores, result : object
        As in :class:`Comparison`.
    model_only, order_flips, n_all : object
        As in the Attributes.
    **settings : dict
        As in :class:`Comparison`.

    Attributes
    ----------
    order_flips : list
        Metrics on which the model's labels alone order the systems
        differently from the corrected estimates (a warning says so).
    model_only : ndarray of shape (n_models, n_metrics)
        Means under the model's labels alone.
    n_judged, n_all : int
        Human-judged queries, and all queries.

    See Also
    --------
    prediction_powered_report : One ranking, with the model-only and
        human-only estimates beside the corrected one.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.evaluation import compare_scores
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(300), 10)
    >>> y = rng.integers(0, 3, qid.size).astype(float)
    >>> y_llm = np.clip(y + rng.integers(-1, 2, qid.size), 0, 2)
    >>> runs = {"bm25": y + rng.normal(0, 2, qid.size),
    ...         "ltr": y + rng.normal(0, 1, qid.size)}
    >>> y_human = np.where(qid < 60, y, np.nan)
    >>> cmp = compare_scores(y_human, runs, qid, y_model=y_llm, baseline="bm25",
    ...                      test="t")
    >>> frame = cmp.to_frame()
    >>> frame[["model", "rank", "rank_model_only"]]
      model  rank  rank_model_only
    0  bm25     2                2
    1   ltr     1                1
    >>> bool(frame.loc[1, "significant"]), cmp.order_flips
    (True, [])
    """

    def __init__(self, scores, result, *, model_only, order_flips, n_all, **settings):
        super().__init__(scores, result, **settings)
        self.model_only = model_only
        self.order_flips = list(order_flips)
        self.n_all = int(n_all)
        self.n_judged = int(np.asarray(result["n_queries"])[0])

    def _model_rows(self):
        frame = super()._model_rows()
        rank = np.argsort(np.argsort(-self._r["means"], 0, kind="stable"), 0) + 1
        only = np.argsort(np.argsort(-self.model_only, 0, kind="stable"), 0) + 1
        frame["model_only"] = self.model_only.reshape(-1)
        frame["rank"] = rank.reshape(-1)
        frame["rank_model_only"] = only.reshape(-1)
        return frame

    def _footnote(self):
        how = (
            f"{self.interval} bootstrap, {self.n_resamples} resamples"
            if self.interval != "clt"
            else "t interval"
        )
        head = (
            f"Prediction-powered (PPI++) mean [{100 * self.confidence:g}% {how}] "
            f"from the model's labels on {self.n_all} queries and human labels "
            f"on {self.n_judged}"
        )
        who = self.baseline if self.baseline is not None else "model (x)"
        mark = "*" if self.baseline is not None else ">x"
        flips = ""
        if self.order_flips:
            flips = (
                " The model's labels alone order the systems differently on "
                + ", ".join(map(str, self.order_flips))
                + "."
            )
        return (
            f"{head}; {mark}: differs from {who} at p <= {self.alpha:g} "
            f"({self._corrected_over()})." + flips
        )

    def __repr__(self):
        return super().__repr__().replace("<Comparison", "<PredictionPoweredComparison")


def reports_two_sources(y_true, y_scores, qid, y_model, metrics, options, expected):
    """Per-query frames of every system under the humans' labels (judged
    queries) and the model's (every query), for :func:`compare_scores`."""
    y_true, y_model, qid, judged = check_labels(
        y_true, y_model, qid, expected_labels=expected
    )
    options = dict(options or {})
    human, model = {}, {}
    for name, score in y_scores.items():
        score = scores_per_row(score, qid, f"the scores of {name!r}")
        model[name], human[name] = two_reports(
            y_true, y_model, score, qid, judged, metrics, options
        )
    return human, model
