"""How far a model's labels can be trusted, and how many human labels to buy:
:func:`judge_agreement`, :func:`prediction_powered_queries`,
:func:`choose_queries_to_judge`."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.utils import Bunch

from ...metrics import ranking_report
from ...utils._counts import check_integer
from .._compare._inputs import metric_names
from .._stats._resampling import as_generator, check_choice, check_share
from ._inputs import check_labels, scores_per_row


def judge_agreement(
    y_true,
    y_model,
    qid,
    *,
    y_score=None,
    metrics=("ndcg@10",),
    weights="quadratic",
    expected_labels=False,
    grades=None,
):
    """Agreement between a model's labels and the humans' on the judged rows.

    Parameters
    ----------
    y_true, y_model, qid : array-like of shape (n_samples,)
        As in :func:`prediction_powered_report`: human labels (NaN where
        nobody judged), the model's labels, query ids.
    y_score : array-like of shape (n_samples,), default=None
        A ranking's scores; given, the per-query metrics under the two label
        sources are correlated over the human-judged queries.
    metrics : str or sequence of str, default=("ndcg@10",)
        Metrics to correlate (with ``y_score``).
    weights : {"quadratic", "linear"} or None, default="quadratic"
        Disagreement weights of Cohen's kappa (``None``: unweighted).
    expected_labels : bool, default=False
        ``y_model`` holds expected grades; they are rounded to the nearest
        grade for the confusion matrix and kappa (not for the bias).
    grades : tuple of (float, float), default=None
        The lowest and highest grade; ``None`` takes the human labels' range.

    Returns
    -------
    agreement : sklearn.utils.Bunch
        ``confusion`` (DataFrame: rows the human grade, columns the model's),
        ``kappa`` (float), ``bias`` (DataFrame per human grade: ``n_rows``,
        ``mean_model``, ``bias`` = mean model label minus the grade),
        ``n_rows``, ``n_queries`` (human-judged) and, with ``y_score``,
        ``correlation`` (dict of metric to the Pearson correlation of the
        per-query values, NaN queries left out).

    Examples
    --------
    >>> from skndcg.evaluation import judge_agreement
    >>> human = [3, 2, 0, 1, float("nan"), 0]
    >>> model = [3, 1, 0, 1, 2, 1]
    >>> a = judge_agreement(human, model, [1, 1, 1, 2, 3, 2])
    >>> a.confusion
    model  0  1  2  3
    human
    0      1  1  0  0
    1      0  1  0  0
    2      0  1  0  0
    3      0  0  0  1
    >>> round(a.kappa, 3)
    0.8
    >>> a.bias["bias"].tolist()
    [0.5, 0.0, -1.0, 0.0]
    """
    check_choice("weights", weights, ("quadratic", "linear", None))
    y_true, y_model, qid, judged = check_labels(
        y_true, y_model, qid, expected_labels=expected_labels, grades=grades
    )
    rows = ~np.isnan(y_true)
    h, m = y_true[rows], y_model[rows]
    lo, hi = grades if grades is not None else (h.min(), h.max())
    levels = np.arange(np.floor(lo), np.ceil(hi) + 1)
    hi_idx = np.clip(np.round(h - levels[0]).astype(int), 0, levels.size - 1)
    mo_idx = np.clip(np.round(m - levels[0]).astype(int), 0, levels.size - 1)
    conf = np.zeros((levels.size, levels.size), dtype=np.int64)
    np.add.at(conf, (hi_idx, mo_idx), 1)
    # Cohen's weighted kappa of the confusion matrix (Cohen, 1968).
    i, j = np.indices(conf.shape)
    if weights is None:
        w = (i != j).astype(float)
    elif weights == "linear":
        w = np.abs(i - j).astype(float)
    else:
        w = ((i - j) ** 2).astype(float)
    expected = np.outer(conf.sum(1), conf.sum(0)) / conf.sum()
    den = (w * expected).sum()
    kappa = float(1.0 - (w * conf).sum() / den) if den > 0 else float("nan")
    names = [int(v) if float(v).is_integer() else v for v in levels]
    confusion = pd.DataFrame(
        conf,
        index=pd.Index(names, name="human"),
        columns=pd.Index(names, name="model"),
    )
    frame = pd.DataFrame({"grade": h, "model": m})
    bias = frame.groupby("grade").agg(
        n_rows=("model", "size"), mean_model=("model", "mean")
    )
    bias["bias"] = bias["mean_model"] - bias.index.to_numpy()
    out = Bunch(
        confusion=confusion,
        kappa=kappa,
        bias=bias,
        n_rows=int(rows.sum()),
        n_queries=int(pd.unique(qid[judged]).size),
    )
    if y_score is not None:
        names = metric_names(metrics)
        score = scores_per_row(y_score, qid)
        opts = {"nan_label": "unjudged"} if np.isnan(y_true[judged]).any() else {}
        hum = ranking_report(
            y_true[judged], score[judged], qid[judged], metrics=names, **opts
        )
        mod = ranking_report(y_model[judged], score[judged], qid[judged], metrics=names)
        corr = {}
        for name in names:
            a, b = hum[name].to_numpy(), mod[name].to_numpy()
            ok = ~np.isnan(a) & ~np.isnan(b)
            with np.errstate(invalid="ignore", divide="ignore"):
                corr[name] = (
                    float(np.corrcoef(a[ok], b[ok])[0, 1]) if ok.sum() > 1 else np.nan
                )
        out["correlation"] = corr
    return out


def prediction_powered_queries(report, width, *, n_queries=None, confidence=None):
    """Human-judged queries needed for an interval of a given width.

    Parameters
    ----------
    report : pandas.DataFrame
        A pilot's :func:`prediction_powered_report` (its ``sd_human``,
        ``sd_residual`` and ``n_queries`` columns).
    width : float > 0
        The wanted width of the interval (``high - low``).
    n_queries : int, default=None
        Queries with the model's labels in the planned study; ``None``: the
        pilot's.
    confidence : float in (0, 1), default=None
        Coverage; ``None``: 0.95.

    Returns
    -------
    plan : pandas.DataFrame
        Per metric: ``n_judged`` (human-judged queries for the
        prediction-powered interval, ``inf`` when even judging every query
        is not enough) and ``n_judged_human_only`` (for the human-only one).

    Notes
    -----
    With ``N`` queries, ``n`` judged, per-query standard deviations
    ``s_h`` (human values) and ``s_e`` (left after the model's labels), the
    half-width is ``z * sqrt(s_h**2 / N + (1 - n / N) * s_e**2 / n)``;
    solved for ``n``, rounded up. The standard deviations are the pilot's
    estimates: plan with some margin.

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.evaluation import prediction_powered_queries
    >>> pilot = pd.DataFrame({"metric": ["ndcg@10"], "sd_human": [0.2],
    ...                       "sd_residual": [0.1], "n_queries": [2000]})
    >>> prediction_powered_queries(pilot, 0.04)
        metric  n_judged  n_judged_human_only
    0  ndcg@10       113                  385
    """
    if isinstance(width, bool) or not isinstance(width, Real) or not width > 0:
        raise ValueError(f"width must be a positive number, got {width!r}.")
    confidence = 0.95 if confidence is None else confidence
    check_share("confidence", confidence)
    if n_queries is not None:
        check_integer("n_queries", n_queries, 1)
    need = {"metric", "sd_human", "sd_residual", "n_queries"}
    if not isinstance(report, pd.DataFrame) or not need <= set(report.columns):
        raise ValueError(
            "report must be a prediction_powered_report frame with the columns "
            f"{sorted(need)}."
        )
    for col, least in (("sd_human", 0), ("sd_residual", 0), ("n_queries", 1)):
        v = pd.to_numeric(report[col], errors="coerce").to_numpy(dtype=np.float64)
        if not (np.isfinite(v) & (v >= least)).all():
            raise ValueError(
                f"report's {col} column must hold finite numbers >= {least}, got "
                f"{report[col].tolist()}."
            )
    z = stats.norm.ppf(0.5 + confidence / 2)
    target = (width / (2 * z)) ** 2
    rows = []
    for _, row in report.iterrows():
        N = int(row["n_queries"] if n_queries is None else n_queries)
        s_h2, s_e2 = row["sd_human"] ** 2, row["sd_residual"] ** 2
        room = target - s_h2 / N
        n = np.inf if room <= 0 else min(N, int(np.ceil(s_e2 / (room + s_e2 / N))))
        rows.append((row["metric"], n, int(np.ceil(s_h2 / target))))
    return pd.DataFrame(rows, columns=["metric", "n_judged", "n_judged_human_only"])


def choose_queries_to_judge(qids, n, *, strata=None, priority=None, random_state=None):
    """Which queries to send to human judges, with their inclusion probabilities.

    Parameters
    ----------
    qids : array-like
        The candidate query ids (each once).
    n : int
        Queries to judge (expected number with ``priority``).
    strata : array-like of the same length, default=None
        A stratum per query (for example a bin of the model-label metric):
        a uniform sample within each stratum, of sizes proportional to the
        strata.
    priority : array-like of the same length, default=None
        A positive priority per query (for example the judge's uncertainty):
        each query is drawn independently with probability proportional to
        it (capped at 1).
    random_state : int, RandomState instance, Generator or None, default=None
        Seed.

    Returns
    -------
    plan : pandas.DataFrame
        ``qid``, ``inclusion_probability`` and ``selected``. Pass the
        probabilities as ``inclusion_probability`` to
        :func:`prediction_powered_report`: a non-uniform sample is unbiased
        only with them.

    Examples
    --------
    >>> from skndcg.evaluation import choose_queries_to_judge
    >>> plan = choose_queries_to_judge(range(100), 10, random_state=0)
    >>> int(plan["selected"].sum()), float(plan["inclusion_probability"][0])
    (10, 0.1)
    """
    qids = np.asarray(list(qids))
    N = qids.size
    missing = np.asarray(pd.isna(qids)).reshape(-1)
    if missing.any():
        raise ValueError(
            f"qids has {int(missing.sum())} missing value(s) (first at position "
            f"{int(np.flatnonzero(missing)[0])}); every query needs an id."
        )
    if pd.Index(qids).has_duplicates:
        raise ValueError("qids must name each query once.")
    if isinstance(n, bool) or not isinstance(n, Integral) or not 2 <= n <= N:
        raise ValueError(f"n must be an integer between 2 and {N}, got {n!r}.")
    if strata is not None and priority is not None:
        raise ValueError("give strata or priority, not both.")
    rng = as_generator(random_state)
    selected = np.zeros(N, bool)
    if priority is not None:
        pr = np.asarray(priority, dtype=float)
        if pr.shape != (N,) or not np.all(np.isfinite(pr)) or (pr <= 0).any():
            raise ValueError(
                f"priority must hold {N} finite positive numbers: every query "
                "needs a chance to be judged, or the estimate is biased."
            )
        pi = np.minimum(1.0, n * pr / pr.sum())
        for _ in range(N):  # cap at 1 and share the rest again
            capped = pi >= 1.0
            rest = n - capped.sum()
            with np.errstate(invalid="ignore", divide="ignore"):  # all capped
                share = rest * pr / pr[~capped].sum()
            new = np.where(capped, 1.0, np.minimum(1.0, share))
            if np.allclose(new, pi):
                break
            pi = new
        selected = rng.random(N) < pi
    elif strata is not None:
        codes, _ = pd.factorize(np.asarray(strata))
        if codes.shape != (N,) or (codes < 0).any():
            raise ValueError(f"strata must hold one non-missing label per query ({N}).")
        sizes = np.bincount(codes)
        alloc = np.maximum(1, np.round(n * sizes / N)).astype(int)
        alloc = np.minimum(alloc, sizes)
        pi = (alloc / sizes)[codes]
        for h, take in enumerate(alloc):
            selected[rng.choice(np.flatnonzero(codes == h), take, replace=False)] = True
    else:
        pi = np.full(N, n / N)
        selected[rng.choice(N, n, replace=False)] = True
    return pd.DataFrame(
        {"qid": qids, "inclusion_probability": pi, "selected": selected}
    )
