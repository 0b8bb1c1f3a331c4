"""ndcg_rel, trec_eval's NDCG averaged over the relevant documents.

At each retrieved row with a positive gain (its label), the NDCG of the list
down to that rank (the DCG of the ranking over the DCG of the ideal order at
the same depth); each relevant row not retrieved counts the NDCG at the end of
the ranking against the whole ideal DCG; the mean is over the query's ``M``
rows with a positive gain (retrieved or not). 0 when nothing has a gain.
"""

import math

from .._catalogue._registry import declare
from .._jit import jit, n_read


@jit
def ndcg_rel(labels, k, ideal):
    m = 0
    idcg_full = 0.0
    for j in range(ideal.shape[0]):
        if ideal[j] > 0.0:
            m += 1
            idcg_full += ideal[j] / math.log2(j + 2.0)
    if m == 0:
        return 0.0
    kk = n_read(labels, k)
    dcg = 0.0
    idcg = 0.0
    total = 0.0
    found = 0
    for i in range(kk):
        gi = max(labels[i], 0.0)
        if gi != 0.0:
            dcg += gi / math.log2(i + 2.0)
        if i < m:
            idcg += ideal[i] / math.log2(i + 2.0)
        if gi > 0.0:
            total += dcg / idcg
            found += 1
    total += (m - found) * dcg / idcg_full
    return total / m


def ndcg_rel_tensor(r, k, opts):
    import torch

    lab, ideal, kk = r.ops.grids(r, k)
    dev, col = lab.device, r.ops.column
    log2 = r.ops.log2_table(ideal.shape[1] + lab.shape[1], dev)
    m = (ideal > 0).sum(1)
    idcg_full = torch.zeros(r.n_queries, dtype=torch.float64, device=dev)
    for j in range(ideal.shape[1]):
        idcg_full = torch.where(j < m, idcg_full + ideal[:, j] / log2[j], idcg_full)
    dcg, idcg = torch.zeros_like(idcg_full), torch.zeros_like(idcg_full)
    total = torch.zeros_like(idcg_full)
    found = torch.zeros(r.n_queries, dtype=torch.int64, device=dev)
    for t in range(int(kk.max()) if kk.numel() else 0):
        on = t < kk
        gi = col(lab, t)
        dcg = torch.where(on & (gi != 0), dcg + gi / log2[t], dcg)
        idcg = torch.where(on & (t < m), idcg + col(ideal, t) / log2[t], idcg)
        hit = on & (gi > 0)
        total = torch.where(hit, total + dcg / r.ops.den(idcg), total)
        found = found + hit.to(torch.int64)
    total = total + (m - found).to(torch.float64) * dcg / r.ops.den(idcg_full)
    value = r.ops.zero_unless(m > 0, total / torch.clamp(m, min=1).to(torch.float64))
    return r.retrieved(value.to(opts["dtype"])), None


declare(
    "ndcg_rel",
    "NDCG averaged over the relevant rows: at each one's rank, the rest "
    "at the end of the list.",
    needs=("ideal",),
    empty_when="never",  # 0 without a positive gain, as trec_eval
    per_query=ndcg_rel,
    depth="k",
    tensor=ndcg_rel_tensor,
)
