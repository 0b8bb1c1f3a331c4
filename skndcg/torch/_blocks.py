"""The tensor kernels of the block families (``skndcg/metrics/_core/_blocks.py``):
``(values, empty)`` per query, the exact expectations over the orders of tied rows
(McSherry & Najork, 2008) by the same operations in the same order."""

import torch

from ..metrics._shared import discount_weights
from ._ops import den, lgamma_table, running_sum, segment_sum
from ._ranked import ideal_dcg


def _dcg_parts(r, k, opts):
    dtype, device = opts["dtype"], r.block_gain.device
    length = max(r.max_rows if k is None else min(k, r.max_rows), 1)
    # The engine's own weights (its checks and messages), as a tensor.
    d = discount_weights(opts["discount"], length, opts["label"])
    disc = torch.as_tensor(d, device=device).to(dtype)
    kk = r.kk(k)
    row_q = r.block_query[r.row_block]
    inside = r.row_pos < kk[row_q]
    pos = torch.clamp(r.row_pos, max=length - 1)
    d = torch.where(inside, disc[pos], torch.zeros((), dtype=dtype, device=device))
    dsum = segment_sum(d, r.row_block, r.block_size.numel())
    block = r.block_gain / r.block_size.to(dtype) * dsum
    dcg = segment_sum(block, r.block_query, r.n_queries)
    return dcg, ideal_dcg(r, k, disc)


def dcg(r, k, opts):
    value, ideal = _dcg_parts(r, k, opts)
    return value, ideal <= 0


def idcg(r, k, opts):
    _, ideal = _dcg_parts(r, k, opts)
    return ideal, ideal <= 0


def ndcg(r, k, opts):
    value, ideal = _dcg_parts(r, k, opts)
    positive = ideal > 0
    return torch.where(positive, value / den(ideal), torch.zeros_like(value)), ~positive


def _taken(r, k):
    """Rows of each block above the cut-off."""
    kk = r.kk(k)[r.block_query]
    return torch.clamp(torch.minimum(kk - r.block_start, r.block_size), min=0)


def _hits(r, k, dtype):
    taken = _taken(r, k)
    rel = r.block_rel.to(dtype)
    part = torch.where(
        taken == r.block_size, rel, rel * taken.to(dtype) / r.block_size.to(dtype)
    )
    return segment_sum(part, r.block_query, r.n_queries)


def _binary(r, value):
    """Nothing retrieved scores 0; no relevant row is the empty case."""
    return r.retrieved(value), r.n_relevant == 0


def precision(r, k, opts):
    dtype = opts["dtype"]
    mr = r.n_retrieved.to(dtype)
    kf = mr if k is None else torch.full_like(mr, float(k))
    d = kf if opts["p_denominator"] == "k" else torch.minimum(kf, mr)
    return _binary(r, _hits(r, k, dtype) / den(d))


def recall(r, k, opts):
    dtype = opts["dtype"]
    n_rel = r.n_relevant.to(dtype)
    hits = _hits(r, k, dtype)
    value = torch.where(n_rel > 0, hits / torch.clamp(n_rel, min=1), 0 * hits)
    return _binary(r, value)


def _first_relevant(r, k, dtype):
    """The first block of each query with a relevant row above k (a mask over
    the blocks), and its size and relevant rows as ``dtype``."""
    n_blocks = r.block_size.numel()
    eligible = (r.block_rel > 0) & (_taken(r, k) > 0)
    ids = torch.arange(n_blocks, device=r.block_size.device)
    big = torch.full((r.n_queries,), n_blocks, device=ids.device, dtype=ids.dtype)
    lowest = big.scatter_reduce(
        0, r.block_query[eligible], ids[eligible], reduce="amin", include_self=True
    )
    first = eligible & (lowest[r.block_query] == ids)
    return first, r.block_size[first].to(dtype), r.block_rel[first].to(dtype)


def _log_falling(a, j):
    """log(a! / (a - j)!) for tensors."""
    return torch.lgamma(a + 1.0) - torch.lgamma(a - j + 1.0)


# Tie blocks up to this many slots are walked slot by slot (one vector step per
# slot, over the first relevant block of every query at once), with the
# engine's own products, so the values agree to the last bit; longer ones use
# log-gamma (within a few units in the last place).
_EXACT_SLOTS = 256


def _p_none(c, rel, j):
    """P(j draws from c rows holding rel relevant miss them all), per block."""
    steps = int(j.max()) if j.numel() else 0
    if steps > _EXACT_SLOTS:
        miss = torch.exp(_log_falling(c - rel, j) - _log_falling(c, j))
    else:
        miss = torch.ones_like(c)
        for i in range(steps):
            step = torch.where(i < j, (c - rel - i) / (c - i), torch.ones_like(c))
            miss = miss * step
    return torch.where(j > c - rel, torch.zeros_like(miss), miss)


def hit_rate(r, k, opts):
    dtype = opts["dtype"]
    first, c, rel = _first_relevant(r, k, dtype)
    j = _taken(r, k)[first].to(dtype)
    value = segment_sum(1.0 - _p_none(c, rel, j), r.block_query[first], r.n_queries)
    return _binary(r, value)


def reciprocal_rank(r, k, opts):
    dtype = opts["dtype"]
    first, c, rel = _first_relevant(r, k, dtype)
    p = r.block_start[first].to(dtype)
    kk = r.kk(k)[r.block_query[first]].to(dtype)
    last = torch.minimum(c - rel + 1.0, kk - p)
    steps = int(last.max()) if last.numel() else 0
    if steps > _EXACT_SLOTS:
        i = torch.arange(1, steps + 1, device=c.device, dtype=dtype)[None, :]
        miss = torch.exp(
            _log_falling((c - rel)[:, None], i - 1.0)
            - _log_falling(c[:, None], i - 1.0)
        )
        term = miss * rel[:, None] / (c[:, None] - i + 1.0) / (p[:, None] + i)
        total = torch.where(i <= last[:, None], term, torch.zeros_like(term)).sum(1)
    else:
        total = torch.zeros_like(c)
        miss = torch.ones_like(c)
        for i in range(1, steps + 1):
            on = i <= last
            term = miss * rel / (c - i + 1.0) / (p + i)
            total = torch.where(on, total + term, total)
            miss = torch.where(on, miss * ((c - rel - i + 1.0) / (c - i + 1.0)), miss)
    value = segment_sum(total, r.block_query[first], r.n_queries)
    return _binary(r, value)


def _ap_blocks(r, k, dtype):
    """Per block: its expected AP numerator over the rows above the cut-off,
    and the rows of it above the cut-off (as the engine's ``ap_block_sum``)."""
    upto = _taken(r, k)
    rel_i = r.block_rel
    # Relevant rows ranked ahead of each block, within its query.
    before = (running_sum(rel_i, r.block_query, r.n_queries) - rel_i).to(dtype)
    c = r.block_size.to(dtype)
    rel = rel_i.to(dtype)
    one = torch.ones_like(c)
    frac = torch.where(c > 1, (rel - 1.0) / torch.where(c > 1, c - 1.0, one), 0 * c)
    rb = r.row_block
    u = (r.row_pos - r.block_start[rb] + 1).to(dtype)
    p = r.block_start[rb].to(dtype)
    term = (before[rb] + 1.0 + (u - 1.0) * frac[rb]) / (p + u)
    keep = (u <= upto[rb].to(dtype)) & (rel_i[rb] > 0)
    acc = segment_sum(torch.where(keep, term, 0 * term), rb, c.numel())
    return torch.where(c == 1, acc, acc * rel / c), upto, before


def average_precision(r, k, opts):
    dtype = opts["dtype"]
    if opts["ap_denominator"] == "hits":
        return _binary(r, _ap_hits(r, k, dtype))
    block, _, _ = _ap_blocks(r, k, dtype)
    num = segment_sum(block, r.block_query, r.n_queries)
    n_rel = r.n_relevant.to(dtype)
    if opts["ap_denominator"] == "relevant" or k is None:
        den = n_rel
    else:
        den = torch.clamp(n_rel, max=float(k))
    value = torch.where(n_rel > 0, num / torch.clamp(den, min=1e-300), 0 * num)
    return _binary(r, value)


def _log_comb(table, n, k):
    """log C(n, k) for integer-valued float tensors, as the engine's log_comb."""

    def lgamma1(x):  # lgamma(x + 1), read off the table
        return table.index_select(0, (x + 1.0).to(torch.int64))

    return lgamma1(n) - lgamma1(k) - lgamma1(n - k)


def _ap_hits(r, k, dtype):
    """AP@k over the relevant rows found in the top k (torchmetrics), with the
    expectation over the block cut by k conditioned on how many of its
    relevant rows land above the cut (hypergeometric), as the engine does."""
    block, upto, _ = _ap_blocks(r, k, dtype)
    full = (upto == r.block_size) & (upto > 0)
    zero = torch.zeros((), dtype=dtype, device=block.device)
    num = segment_sum(torch.where(full, block, zero), r.block_query, r.n_queries)
    rel_full = torch.where(full, r.block_rel, torch.zeros_like(r.block_rel))
    before = segment_sum(rel_full, r.block_query, r.n_queries).to(dtype)
    value = torch.where(before > 0, num / torch.clamp(before, min=1.0), zero)
    part = (upto > 0) & (upto < r.block_size)
    if bool(part.any()):
        qp = r.block_query[part]
        p = r.block_start[part].to(dtype)
        c = r.block_size[part].to(dtype)
        rr = r.block_rel[part].to(dtype)
        j = upto[part].to(dtype)
        b, n = before[qp], num[qp]
        jmax = int(upto[part].max())
        u = torch.arange(1, jmax + 1, device=c.device, dtype=dtype)[None, :]
        total = torch.zeros_like(c)
        lg = lgamma_table(int(r.block_size[part].max()) + 1, dtype, c.device)
        for x in range(int(r.block_rel[part].max()) + 1):
            xf = torch.full_like(c, float(x))
            low = torch.clamp(j - (c - rr), min=0.0)
            on = (xf >= low) & (xf <= torch.minimum(rr, j))
            bad = ~on
            kx = torch.where(bad, torch.zeros_like(xf), xf)  # keep indices >= 0
            lc = _log_comb(lg, rr, kx) + _log_comb(
                lg, c - rr, torch.where(bad, j * 0, j - kx)
            )
            px = torch.exp(lc - _log_comb(lg, c, j))
            h = b + xf
            on = on & (h != 0)
            if x == 0:
                extra = torch.zeros_like(c)
            else:
                frac = (xf - 1.0) / torch.clamp(j - 1.0, min=1.0)
                t = (b[:, None] + 1.0 + (u - 1.0) * frac[:, None]) / (p[:, None] + u)
                t = torch.where(u <= j[:, None], t, torch.zeros_like(t))
                # A running sum along each row adds the terms in rank order.
                many = torch.cumsum(t, 1)[:, -1] * (xf / j)
                extra = torch.where(j == 1, (b + 1.0) / (p + 1.0), many)
            step = px * (n + extra) / torch.where(on, h, torch.ones_like(h))
            total = torch.where(on, total + step, total)
        value = value.index_put((qp,), total)
    return value
