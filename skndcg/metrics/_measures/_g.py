"""G and binG, trec_eval's normalised gains (experimental measures of trec_eval
8.0 on), between MAP and NDCG: a row loses only for what is missing above it.

G: the row at rank ``i`` with gain ``g_i`` (its label) adds
``g_i / log2(2 + C_i - S_i)``, where ``S_i`` sums the gains of the top ``i``
rows and ``C_i`` sums ``max(I_j, 1)`` over the first ``i`` gains ``I_j`` of
the ideal order (0 past its end); the sum is divided by the total ideal gain
(0 when there is none).

binG, the binary G: each relevant retrieved row scores ``1 / log2(2 + m)``,
with ``m`` the rows ranked above it that are not relevant (judged or not); the
sum is divided by ``R``, the relevant rows of the query.
"""

import math

from .._catalogue._registry import declare
from .._jit import jit, n_read


@jit
def g(labels, k, ideal):
    kk = n_read(labels, k)
    total_ideal = 0.0
    for j in range(ideal.shape[0]):
        if ideal[j] > 0.0:
            total_ideal += ideal[j]
    if total_ideal <= 0.0:
        return 0.0
    cost = 0.0
    gained = 0.0
    out = 0.0
    for i in range(kk):
        gi = max(labels[i], 0.0)
        gained += gi
        best = ideal[i] if i < ideal.shape[0] and ideal[i] > 0.0 else 0.0
        cost += max(best, 1.0)
        if gi != 0.0:
            out += gi / math.log2(2.0 + cost - gained)
    return out / total_ideal


def g_tensor(r, k, opts):
    import torch

    lab, ideal, kk = r.ops.grids(r, k)
    col = r.ops.column
    total_ideal = torch.zeros(r.n_queries, dtype=torch.float64, device=lab.device)
    for j in range(ideal.shape[1]):
        total_ideal = total_ideal + ideal[:, j]
    steps = int(kk.max()) if kk.numel() else 0
    cost, gained = torch.zeros_like(total_ideal), torch.zeros_like(total_ideal)
    args = torch.ones((r.n_queries, max(steps, 1)), dtype=torch.float64,
                      device=lab.device)  # fmt: skip
    for t in range(steps):
        on = t < kk
        gained = torch.where(on, gained + col(lab, t), gained)
        cost = torch.where(on, cost + torch.clamp(col(ideal, t), min=1.0), cost)
        args[:, t] = torch.where(on, 2.0 + cost - gained, 1.0)
    logs = r.ops.log2(args)
    out = torch.zeros_like(total_ideal)
    for t in range(steps):
        gi = col(lab, t)
        out = torch.where((t < kk) & (gi != 0), out + gi / logs[:, t], out)
    value = r.ops.zero_unless(total_ideal > 0, out / r.ops.den(total_ideal))
    return r.retrieved(value.to(opts["dtype"])), None


declare(
    "g",
    "G: each row's gain over log2(2 + the ideal gain above it missed), "
    "normalised by the total ideal gain.",
    needs=("ideal",),
    empty_when="never",  # 0 without an ideal gain, as trec_eval
    per_query=g,
    depth="k",
    tensor=g_tensor,
)


@jit
def bin_g(labels, k, n_relevant, rel_threshold):
    if n_relevant == 0.0:
        return 0.0
    kk = n_read(labels, k)
    above = 0.0
    total = 0.0
    for i in range(kk):
        if labels[i] >= rel_threshold:
            total += 1.0 / math.log2(2.0 + above)
        else:
            above += 1.0
    return total / n_relevant


def bin_g_tensor(r, k, opts):
    import torch

    on = r.inside(k) & r.row_rel
    above = r.row_pos - (r.running(on) - on.to(torch.int64))
    table = r.ops.log2_table(max(r.max_retrieved, 1), r.row_pos.device)
    term = r.ops.zero_unless(on, 1.0 / table[torch.clamp(above, min=0)])
    total = r.sum(term)
    big_r = r.n_relevant.to(torch.float64)
    value = r.ops.zero_unless(big_r != 0, total / r.ops.den(big_r))
    return r.retrieved(value.to(opts["dtype"])), None


declare(
    "bin_g",
    "Binary G: 1 / log2(2 + non-relevant rows above) per relevant row, over R.",
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    per_query=bin_g,
    depth="k",
    tensor=bin_g_tensor,
)
