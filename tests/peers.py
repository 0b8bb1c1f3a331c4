"""Adapters that make each peer library score given flat (y, s, qid) arrays.

Each function returns the peer's own number for the whole set of queries, computed
by the peer itself. Rows are grouped by qid with a stable sort, so the input order
within a query is kept; document ids (for ranx and trec_eval) are zero-padded row
positions within the query.
"""

from __future__ import annotations

import itertools
import re

import numpy as np


def _grouped(y, s, q, w=None):
    codes, uniques = np.unique(q, return_inverse=True)[1], None
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    sizes = sizes[sizes > 0]
    out = [np.asarray(y)[order], np.asarray(s)[order], codes[order], sizes]
    if w is not None:
        out.append(np.asarray(w)[order])
    del uniques
    return out


def _per_query(y, s, q):
    yg, sg, cg, sizes = _grouped(y, s, q)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    for a, b in itertools.pairwise(bounds):
        yield cg[a], yg[a:b], sg[a:b]


def sklearn_ndcg(y, s, q, k, sample_weight=None):
    from sklearn.metrics import ndcg_score

    groups = list(_per_query(y, s, q))
    width = max(len(g[1]) for g in groups)
    Y = np.zeros((len(groups), width))
    S = np.zeros((len(groups), width))
    for i, (_, yy, ss) in enumerate(groups):
        Y[i, : len(yy)] = yy
        S[i, :] = ss.min() - 1.0
        S[i, : len(ss)] = ss
    if width == 1:
        # sklearn refuses one-column input: pad one more neutral column.
        Y = np.hstack([Y, np.zeros((len(groups), 1))])
        S = np.hstack([S, S - 1.0])
    return ndcg_score(Y, S, k=k, sample_weight=sample_weight)


def _lgb_booster(y, s, q, params, w=None):
    import lightgbm as lgb

    parts = _grouped(y, s, q, w)
    yg, sg, _, sizes = parts[:4]
    ds = lgb.Dataset(
        np.zeros((len(yg), 1)),
        label=yg,
        group=sizes,
        init_score=sg,
        weight=parts[4] if w is not None else None,
        params={"verbose": -1},
    )
    booster = lgb.Booster(params={**params, "verbose": -1}, train_set=ds)
    return booster, int(sizes.max())


def lightgbm_metric(y, s, q, metric, k, *, linear=False, sample_weight=None):
    """LightGBM's ``ndcg`` or ``map`` eval metric at ``k`` (None: whole list)."""
    params = {"objective": "lambdarank", "metric": metric}
    if linear:
        params["label_gain"] = list(range(31))
    booster, largest = _lgb_booster(y, s, q, dict(params), sample_weight)
    params["eval_at"] = [largest if k is None else k]
    booster, _ = _lgb_booster(y, s, q, params, sample_weight)
    ((_, _, value, _),) = booster.eval_train()
    return value


def xgboost_metric(y, s, q, metric, *, linear=False, group_weight=None):
    """XGBoost's eval metric string (``"ndcg@3"``, ``"ndcg@3-"``, ``"map@5"``)."""
    import xgboost as xgb

    yg, sg, cg, _ = _grouped(y, s, q)
    dm = xgb.DMatrix(np.zeros((len(yg), 1)), label=yg, qid=cg, base_margin=sg)
    if group_weight is not None:
        dm.set_weight(np.asarray(group_weight, dtype=np.float32))
    params = {
        "objective": "rank:ndcg",
        "eval_metric": metric,
        "ndcg_exp_gain": not linear,
        "nthread": 1,
    }
    booster = xgb.train(params, dm, num_boost_round=0)
    text = booster.eval(dm)
    match = re.search(r":(-?[0-9.eE+-]+)\s*$", text)
    return float(match.group(1))


def _trec_inputs(y, s, q):
    qrels, run = {}, {}
    for key, yy, ss in _per_query(y, s, q):
        name = f"q{key}"
        qrels[name] = {f"d{i:06d}": int(v) for i, v in enumerate(yy)}
        run[name] = {f"d{i:06d}": float(v) for i, v in enumerate(ss)}
    return qrels, run


def trec_eval_metric(y, s, q, measure):
    """pytrec_eval's mean of ``measure`` (e.g. ``"ndcg_cut_3"``, ``"map"``)."""
    import pytrec_eval

    for key, yy, _ in _per_query(y, s, q):
        if (yy < 0).all():
            # trec_eval sizes a buffer by the largest label: all-negative queries
            # crash or hang it, so the adapter refuses them.
            raise ValueError(f"query {key} has only negative labels")
    qrels, run = _trec_inputs(y, s, q)
    family = measure.rsplit("_", 1)[0] if measure[-1].isdigit() else measure
    if family in ("ndcg_cut", "map_cut", "P", "recall"):
        request = {f"{family}.{measure.rsplit('_', 1)[1]}"}
    else:
        request = {measure}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, request).evaluate(run)
    return float(np.mean([v[measure] for v in per_query.values()]))


def ranx_metric(y, s, q, metric):
    from ranx import Qrels, Run, evaluate

    qrels, run = _trec_inputs(y, s, q)
    return float(evaluate(Qrels(qrels), Run(run), metric))


def torchmetrics_metric(y, s, q, name, k, **kwargs):
    import torch
    import torchmetrics.retrieval as R

    cls = {
        "ndcg": R.RetrievalNormalizedDCG,
        "map": R.RetrievalMAP,
        "mrr": R.RetrievalMRR,
        "p": R.RetrievalPrecision,
        "r": R.RetrievalRecall,
        "hit": R.RetrievalHitRate,
    }[name]
    codes = np.unique(q, return_inverse=True)[1]
    metric = cls(top_k=k, **kwargs)
    metric.update(
        torch.tensor(np.asarray(s, dtype=np.float64)),
        torch.tensor(np.asarray(y)),
        indexes=torch.tensor(codes, dtype=torch.long),
    )
    return float(metric.compute())


def catboost_metric(y, s, q, metric):
    """CatBoost's own eval metric (e.g. ``"NDCG:top=5"``) on given scores."""
    from catboost.utils import eval_metric

    yg, sg, cg, _ = _grouped(y, s, q)
    values = eval_metric(
        np.asarray(yg, dtype=float), np.asarray(sg, dtype=float), metric, group_id=cg
    )
    return float(values[0])
