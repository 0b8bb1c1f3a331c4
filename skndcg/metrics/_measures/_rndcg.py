"""Rndcg, trec_eval's NDCG averaged at the R levels (an experimental measure).

The ideal order's gain changes at a few depths: after the rows of the highest
grade, after those of the next one, ..., and where the positive gains end. At
each such depth (counted over the ranking's depth, then past it), Rndcg takes
the NDCG of the list down to just above it, plus the NDCG of the whole ranking
when the ideal gains end before it does; the measure is the mean of those
values. 0 for a query with nothing relevant at the relevance level.
"""

import math

from .._jit import jit
from .._registry import Measure, register


@jit
def rndcg(labels, k, ideal, n_relevant):
    if n_relevant == 0.0:
        return 0.0
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
    p = 0
    for j in range(ideal.shape[0]):
        if ideal[j] > 0.0:
            p += 1
    old = ideal[0] if p > 0 else 0.0
    current = old
    dcg = 0.0
    idcg = 0.0
    total = 0.0
    count = 0
    i = 0
    while i < kk and current > 0.0:
        cur = ideal[i] if i < p else 0.0
        if cur != old:
            if idcg > 0.0:
                total += dcg / idcg
                count += 1
            old = cur
        gi = max(labels[i], 0.0)
        if gi != 0.0:
            dcg += gi / math.log2(i + 2.0)
        if cur > 0.0:
            idcg += cur / math.log2(i + 2.0)
        current = cur
        i += 1
    if i < kk:
        while i < kk:
            gi = max(labels[i], 0.0)
            if gi != 0.0:
                dcg += gi / math.log2(i + 2.0)
            i += 1
        if idcg > 0.0:
            total += dcg / idcg
            count += 1
    while current > 0.0:
        cur = ideal[i] if i < p else 0.0
        if cur != old:
            if idcg > 0.0:
                total += dcg / idcg
                count += 1
            old = cur
        if cur > 0.0:
            idcg += cur / math.log2(i + 2.0)
        current = cur
        i += 1
    return total / count if count > 0 else 0.0


register(
    Measure(
        "rndcg",
        "NDCG averaged at the depths where the ideal order's gain changes.",
        needs=("ideal", "n_relevant"),
        per_query=rndcg,
        depth="k",
    )
)
