"""G, trec_eval's normalised gain (an experimental measure of trec_eval 8.0 on).

Between MAP and NDCG: the row at rank ``i`` with gain ``g_i`` (its label)
adds ``g_i / log2(2 + C_i - S_i)``, where ``S_i`` sums the gains of the top
``i`` rows and ``C_i`` sums ``max(I_j, 1)`` over the first ``i`` gains ``I_j``
of the ideal order (0 past its end); the sum is divided by the total ideal
gain (0 when there is none). A row loses only for the gain missing above it.
"""

import math

from .._catalogue._registry import Measure, register
from .._jit import jit


@jit
def g(labels, k, ideal):
    n = labels.shape[0]
    kk = n if k is None else min(k, n)
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
    safe = torch.where(total_ideal > 0, total_ideal, torch.ones_like(total_ideal))
    value = torch.where(total_ideal > 0, out / safe, torch.zeros_like(out))
    return r.retrieved(value.to(opts["dtype"])), None


register(
    Measure(
        "g",
        "G: each row's gain over log2(2 + the ideal gain above it missed), "
        "normalised by the total ideal gain.",
        needs=("ideal",),
        empty_when="never",  # 0 without an ideal gain, as trec_eval
        per_query=g,
        depth="k",
        tensor=g_tensor,
    )
)
