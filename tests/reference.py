"""Brute-force reference for the grouped ranking metrics.

Deliberately naive and independent of the package: every query is ranked by plain
Python sorting; under ``ties="average"`` every ordering of the tied rows is
enumerated and the metric averaged over them (the definition McSherry & Najork's
formulas compute in closed form). Only for small queries.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _orders(scores, ties):
    idx = list(range(len(scores)))
    if ties == "stable":
        return [sorted(idx, key=lambda i: (-scores[i], i))]
    if ties == "reverse":
        return [sorted(idx, key=lambda i: (-scores[i], -i))]
    assert ties == "average"
    levels = sorted(set(scores), reverse=True)
    blocks = [[i for i in idx if scores[i] == v] for v in levels]
    out = []
    for combo in itertools.product(*[itertools.permutations(b) for b in blocks]):
        out.append([i for block in combo for i in block])
    return out


def _gain(label, gain):
    if gain == "exponential":
        return 2.0**label - 1.0
    if callable(gain):
        return float(gain(np.array([label]))[0])
    return float(label)


def query_metric(
    labels,
    scores,
    metric,
    k,
    *,
    gain="linear",
    ties="average",
    discount=None,
    rel=None,
    ap_den="relevant",
    p_den="k",
):
    """(value, empty) of one metric for one query, by enumeration."""
    m = len(labels)
    kk = m if k is None else min(k, m)
    kfull = m if k is None else k
    disc = (
        discount if discount is not None else [1.0 / math.log2(r + 2) for r in range(m)]
    )
    gains = [_gain(x, gain) for x in labels]
    is_rel = [(x > 0) if rel is None else (x >= rel) for x in labels]
    n_rel = sum(is_rel)
    ideal = sum(g * disc[r] for r, g in enumerate(sorted(gains, reverse=True)[:kk]))
    vals = []
    for order in _orders(list(scores), ties):
        top = order[:kk]
        if metric == "idcg":
            vals.append(ideal)
            continue
        if metric in ("ndcg", "dcg"):
            dcg = sum(gains[i] * disc[r] for r, i in enumerate(top))
            if metric == "dcg":
                vals.append(dcg)
            else:
                vals.append(dcg / ideal if ideal > 0 else 0.0)
            continue
        hits = sum(is_rel[i] for i in top)
        if metric == "p":
            vals.append(hits / (kfull if p_den == "k" else min(kfull, m)))
        elif metric == "r":
            vals.append(hits / n_rel if n_rel else 0.0)
        elif metric == "hit":
            vals.append(1.0 if hits else 0.0)
        elif metric == "mrr":
            rr = 0.0
            for r, i in enumerate(top):
                if is_rel[i]:
                    rr = 1.0 / (r + 1)
                    break
            vals.append(rr)
        elif metric == "map":
            found, acc = 0, 0.0
            for r, i in enumerate(top):
                if is_rel[i]:
                    found += 1
                    acc += found / (r + 1)
            den = {
                "relevant": n_rel,
                "min_k_relevant": min(kfull, n_rel),
                "hits": hits,
            }[ap_den]
            vals.append(acc / den if den else 0.0)
        else:
            raise ValueError(metric)
    value = sum(vals) / len(vals)
    empty = ideal <= 0 if metric in ("ndcg", "dcg", "idcg") else n_rel == 0
    return value, empty


def grouped_metric(
    y_true, y_score, qid, metric, k, *, empty="skip", weights=None, **options
):
    """Mean of ``query_metric`` over the queries of flat arrays."""
    y_true = list(y_true)
    y_score = list(y_score)
    qid = list(qid)
    keys = sorted(set(qid))
    num = den = 0.0
    for key in keys:
        rows = [i for i, q in enumerate(qid) if q == key]
        value, is_empty = query_metric(
            [y_true[i] for i in rows],
            [y_score[i] for i in rows],
            metric,
            k,
            **options,
        )
        w = 1.0 if weights is None else weights[key]
        if is_empty:
            if empty == "skip":
                continue
            value = {"zero": 0.0, "one": 1.0}[empty]
        num += w * value
        den += w
    return num / den if den else float("nan")


# ----------------------------------------------------------- per-query measures
def ranked_labels(labels, scores):
    """Labels best score first, tied rows in input order."""
    order = sorted(range(len(labels)), key=lambda i: (-scores[i], i))
    return [labels[i] for i in order]


def per_query_measure(labels, scores, metric, k, *, p=None, g_max=None, rel=None,
                      label_max=None, ties="average", recall=0.0):  # fmt: skip
    """(value, empty) of a measure without a block kernel, by its definition;
    under "average", its mean over every order of the tied rows."""
    if ties == "average":
        runs = [
            per_query_measure(
                [labels[i] for i in order], [scores[i] for i in order], metric, k,
                p=p, g_max=g_max, rel=rel, label_max=label_max, ties="stable",
                recall=recall,
            )
            for order in _orders(scores, "average")
        ]  # fmt: skip
        return sum(v for v, _ in runs) / len(runs), runs[0][1]
    is_rel = (lambda x: x == x and x > 0) if rel is None else (lambda x: x >= rel)
    ranked = ranked_labels(labels, scores)
    top = ranked if k is None else ranked[:k]
    judged = [x for x in labels if x == x]
    n_rel = sum(is_rel(x) for x in judged)
    n_non = len(judged) - n_rel
    if metric in ("err", "nerr"):
        gm = label_max if g_max is None else g_max

        def err(seq):
            out, go_on = 0.0, 1.0
            for r, x in enumerate(seq, start=1):
                g = min(max(0.0 if x != x else x, 0.0), gm)
                stop = (2**g - 1) / 2**gm
                out += go_on * stop / r
                go_on *= 1 - stop
            return out

        value = err(top)
        if metric == "nerr":
            ideal = sorted((0.0 if x != x else x for x in labels), reverse=True)
            best = err(ideal if k is None else ideal[:k])
            value = value / best if best > 0 else 0.0
        return value, n_rel == 0
    if p is None:  # each RBP's default persistence: trec_eval's is 0.9
        p = 0.9 if metric.startswith("trec_") else 0.8
    if metric == "rbp":
        value = (1 - p) * sum(
            x * p**i for i, x in enumerate(top) if x == x and is_rel(x)
        )
        return value, False
    if metric == "rbp_resid":
        unjudged = sum(p**i for i, x in enumerate(top) if x != x)
        depth = len(top) if k is None else k
        return (1 - p) * unjudged + p**depth, False
    if metric == "trec_rbp":  # trec_eval's m_rbp.c, as its default build runs it
        highest = max((x for x in labels if x == x), default=0.0)
        scale = highest if highest > 1 else 1.0
        gains = [x / scale if x == x and x > 0 else 0.0 for x in top]
        return (1 - p) * sum(g * p**i for i, g in enumerate(gains)), False
    if metric == "trec_rbp_resid":  # m_rbp_resid.c: 0 without unjudged rows
        unjudged = [i for i, x in enumerate(ranked) if x != x]
        if not unjudged:
            return 0.0, False
        return p ** len(ranked) + (1 - p) * sum(p**i for i in unjudged), False
    if metric == "yaap":  # trec_eval's m_yaap.c
        hits = [i for i, x in enumerate(top) if x == x and is_rel(x)]
        s = sum((j + 1) / (i + 1) for j, i in enumerate(hits))
        return math.log((1 + s) / (1 + n_rel - s)), n_rel == 0
    if metric == "rprec":
        hits = sum(1 for x in ranked[:n_rel] if x == x and is_rel(x))
        return (hits / n_rel if n_rel else 0.0), n_rel == 0
    if metric == "bpref":
        m = min(n_rel, n_non)
        total, above = 0.0, 0
        for x in top:
            if x != x:
                continue
            if is_rel(x):
                total += 1 - min(above, m) / m if above and m else 1.0
            else:
                above += 1
        return (total / n_rel if n_rel else 0.0), n_rel == 0
    if metric == "infap":
        # Yilmaz & Aslam's estimate, from each relevant row's rows above it:
        # NaN is outside the pool, a negative label pooled but not judged.
        total = 0.0
        for j, x in enumerate(top):
            if x != x or x < 0 or not is_rel(x):
                continue
            above = top[:j]
            if j == 0:
                total += 1.0
                continue
            pooled = [a for a in above if a == a]
            rel_above = sum(1 for a in pooled if a >= 0 and is_rel(a))
            non_above = sum(1 for a in pooled if a >= 0 and not is_rel(a))
            eps = 0.00001
            share = (rel_above + eps) / (rel_above + non_above + 2 * eps)
            total += 1 / (j + 1) + (j / (j + 1)) * (len(pooled) / j) * share
        return (total / n_rel if n_rel else total), n_rel == 0
    if metric == "judged":
        return sum(1 for x in top if x == x) / len(top), False
    if metric == "ndcg_rel":  # trec_eval's NDCG over the relevant documents
        gains = [max(0.0 if x != x else x, 0.0) for x in ranked]
        ideal = sorted((g for g in gains if g > 0), reverse=True)
        if not ideal:
            return 0.0, False

        def dcg(seq):
            return sum(g / math.log2(i + 2) for i, g in enumerate(seq))

        shown = gains if k is None else gains[:k]
        points = [dcg(shown[: i + 1]) / dcg(ideal[: i + 1])
                  for i, g in enumerate(shown) if g > 0]  # fmt: skip
        missed = len(ideal) - len(points)
        total = sum(points) + missed * dcg(shown) / dcg(ideal)
        return total / len(ideal), False
    if metric == "rndcg":  # trec_eval's Rndcg
        if n_rel == 0:
            return 0.0, True
        gains = [max(0.0 if x != x else x, 0.0) for x in ranked]
        shown = gains if k is None else gains[:k]
        ideal = sorted((g for g in gains if g > 0), reverse=True)
        p, n = len(ideal), len(shown)

        def dcg(seq):
            return sum(g / math.log2(i + 2) for i, g in enumerate(seq))

        padded = [*ideal, 0.0]
        # Depths where the ideal gain changes, the end of the positive gains
        # included; and the whole ranking when the ideal gains end more than
        # one rank before it (as trec_eval's loops do).
        depths = [b for b in range(1, p + 1) if padded[b] != padded[b - 1]]
        values = [dcg(shown[: min(b, n)]) / dcg(ideal[:b]) for b in depths]
        if p + 1 < n:
            values.append(dcg(shown) / dcg(ideal))
        return sum(values) / len(values), False
    if metric == "g":  # trec_eval's G
        gains = [max(0.0 if x != x else x, 0.0) for x in ranked]
        ideal = sorted((g for g in gains if g > 0), reverse=True)
        if not ideal:
            return 0.0, False
        total, cost, got = 0.0, 0.0, 0.0
        for i, gi in enumerate(gains if k is None else gains[:k]):
            got += gi
            cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
            if gi:
                total += gi / math.log2(2 + cost - got)
        return total / sum(ideal), False
    if metric == "utility":  # 1, -1, 0, 0: relevant retrieved minus the others
        h = sum(1 for x in top if x == x and is_rel(x))
        return float(h - (len(top) - h)), False
    if metric == "bin_g":
        total, above = 0.0, 0
        for x in top:
            if x == x and is_rel(x):
                total += 1 / math.log2(2 + above)
            else:
                above += 1
        return (total / n_rel if n_rel else 0.0), n_rel == 0
    if metric == "unj":
        den = len(top) if k is None else k
        return sum(1 for x in top if x != x) / den, False
    if metric == "nonrel_judged":
        return float(sum(1 for x in top if x == x and not is_rel(x))), False
    if metric == "relative_p":
        hits = sum(1 for x in top if x == x and is_rel(x))
        best = n_rel if k is None else min(n_rel, k)
        return (hits / best if n_rel else 0.0), n_rel == 0
    if metric == "rprec_mult":  # mult=1: the precision at int(R + 0.9) = R
        hits = sum(1 for x in ranked[:n_rel] if x == x and is_rel(x))
        return (hits / n_rel if n_rel else 0.0), n_rel == 0
    if metric == "iprec_11pt":
        values = [
            per_query_measure(labels, scores, "iprec", None, rel=rel, ties=ties,
                              recall=j / 10)[0]
            for j in range(11)
        ]  # fmt: skip
        return sum(values) / 11, n_rel == 0
    if metric == "gm_bpref":  # per query: bpref
        return per_query_measure(labels, scores, "bpref", None, rel=rel, ties=ties)
    if metric.startswith("set_"):
        n = len(top)
        h = sum(1 for x in top if x == x and is_rel(x))
        value = {
            "set_p": h / n if n else 0.0,
            "set_recall": h / n_rel if n_rel else 0.0,
            "set_map": h * h / (n * n_rel) if n and n_rel else 0.0,
            "set_relative_p": h / min(n, n_rel) if n and n_rel else 0.0,
            "set_f": 2 * (h / n) * (h / n_rel) / (h / n + h / n_rel) if h else 0.0,
        }[metric]
        return value, n_rel == 0
    if metric == "gm_map":  # per query: average precision
        hits = [i for i, x in enumerate(ranked, start=1) if x == x and is_rel(x)]
        total = sum(j / i for j, i in enumerate(hits, start=1))
        return (total / n_rel if n_rel else 0.0), n_rel == 0
    if metric == "iprec":  # trec_eval 10.0: the lround(recall * R)-th relevant row
        hits = [i for i, x in enumerate(ranked, start=1) if x == x and is_rel(x)]
        cut = math.floor(recall * n_rel + 0.5)
        if not hits or cut > len(hits):
            return 0.0, n_rel == 0
        start = hits[max(cut, 1) - 1]
        best = max(
            sum(1 for x in ranked[:i] if x == x and is_rel(x)) / i
            for i in range(start, len(ranked) + 1)
        )
        return best, n_rel == 0
    raise ValueError(metric)
