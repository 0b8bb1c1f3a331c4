"""trec_eval's set measures: the retrieved documents as an unranked set (their
formulas are in the user guide's trec_eval page). Each is 0 where its
denominator is. A cut-off ``@k`` keeps the top ``k`` rows first (trec_eval
``-M k``).
"""

from .._catalogue._registry import Param, declare
from .._jit import jit, n_read


@jit
def counts(labels, k, rel_threshold):
    # The rows read (the top k) and the relevant rows among them.
    kk = n_read(labels, k)
    hits = 0.0
    for i in range(kk):
        if labels[i] >= rel_threshold:
            hits += 1.0
    return float(kk), hits


@jit
def set_p(labels, k, rel_threshold):
    n, h = counts(labels, k, rel_threshold)
    return h / n if n > 0.0 else 0.0


@jit
def set_recall(labels, k, n_relevant, rel_threshold):
    _, h = counts(labels, k, rel_threshold)
    return h / n_relevant if n_relevant > 0.0 else 0.0


@jit
def set_map(labels, k, n_relevant, rel_threshold):
    n, h = counts(labels, k, rel_threshold)
    if n == 0.0 or n_relevant == 0.0:
        return 0.0
    return h * h / (n * n_relevant)


@jit
def set_relative_p(labels, k, n_relevant, rel_threshold):
    n, h = counts(labels, k, rel_threshold)
    if n == 0.0 or n_relevant == 0.0:
        return 0.0
    return h / min(n, n_relevant)


@jit
def set_f(labels, k, n_relevant, rel_threshold, beta):
    n, h = counts(labels, k, rel_threshold)
    if h == 0.0:
        return 0.0
    p = h / n
    r = h / n_relevant
    return (beta + 1.0) * p * r / (beta * p + r)


def _set_counts(r, k, dtype):
    # Rows read, relevant rows and relevant rows read, per query.
    return r.kk(k).to(dtype), r.n_relevant.to(dtype), r.hits(k, dtype)


def _set_p_tensor(r, k, opts):
    n, _, h = _set_counts(r, k, opts["dtype"])
    return r.retrieved(r.ops.zero_unless(n > 0, h / r.ops.den(n))), None


def _set_recall_tensor(r, k, opts):
    _, big_r, h = _set_counts(r, k, opts["dtype"])
    return r.retrieved(r.ops.zero_unless(big_r > 0, h / r.ops.den(big_r))), None


def _set_map_tensor(r, k, opts):
    n, big_r, h = _set_counts(r, k, opts["dtype"])
    value = h * h / r.ops.den(n * big_r)
    return r.retrieved(r.ops.zero_unless((n > 0) & (big_r > 0), value)), None


def _set_relative_p_tensor(r, k, opts):
    import torch

    n, big_r, h = _set_counts(r, k, opts["dtype"])
    value = h / r.ops.den(torch.minimum(n, big_r))
    return r.retrieved(r.ops.zero_unless((n > 0) & (big_r > 0), value)), None


def _set_f_tensor(r, k, opts):
    beta, den = float(opts["params"]["beta"]), r.ops.den
    n, big_r, h = _set_counts(r, k, opts["dtype"])
    p, rr = h / den(n), h / den(big_r)
    value = (beta + 1.0) * p * rr / den(beta * p + rr)
    return r.retrieved(r.ops.zero_unless(h != 0, value)), None


_NEEDS = ("n_relevant", "rel_threshold")
for _name, _text, _needs, _kernel, _tensor, _params in (
    ("set_p", "Set precision: the share of the retrieved rows that is relevant.",
     ("rel_threshold",), set_p, _set_p_tensor, ()),
    ("set_recall", "Set recall: the share of the relevant rows retrieved.",
     _NEEDS, set_recall, _set_recall_tensor, ()),
    ("set_map", "Set MAP: set precision times set recall.", _NEEDS, set_map,
     _set_map_tensor, ()),
    ("set_relative_p", "Set precision over the best possible for a set of "
     "that size.", _NEEDS, set_relative_p, _set_relative_p_tensor, ()),
    ("set_f", "Set F: weighted harmonic mean of set precision and set recall.",
     _NEEDS, set_f, _set_f_tensor,
     (Param("beta", 1.0, "Weight of recall against precision.", 0.0),)),
):  # fmt: skip
    declare(
        _name,
        _text,
        labels="binary",
        needs=_needs,
        params=_params,
        per_query=_kernel,
        depth="k",
        form="set",
        tensor=_tensor,
    )
