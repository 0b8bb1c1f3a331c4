"""trec_eval's utility: a linear gain over the retrieved set (its formula is in
the user guide's trec_eval page); ``nonrel_missed`` needs ``n_docs``, the
documents in the collection (trec_eval ``-N``).
"""

from .._catalogue._registry import Param, declare
from .._jit import jit
from ._set import counts


@jit
def utility(labels, k, n_relevant, rel_threshold, a, b, c, d, n_docs):
    kk, h = counts(labels, k, rel_threshold)
    return (
        a * h + b * (kk - h) + c * (n_relevant - h) + d * (n_docs + h - kk - n_relevant)
    )


def utility_tensor(r, k, opts):
    dtype, prm = opts["dtype"], opts["params"]
    a, b, c, d = (float(prm[n]) for n in
                  ("rel_ret", "nonrel_ret", "rel_missed", "nonrel_missed"))  # fmt: skip
    n_docs = float(prm["n_docs"])
    kk, big_r, h = r.kk(k).to(dtype), r.n_relevant.to(dtype), r.hits(k, dtype)
    value = a * h + b * (kk - h) + c * (big_r - h) + d * (n_docs + h - kk - big_r)
    return r.retrieved(value), None


declare(
    "utility",
    "Linear utility of the retrieved set: a gain per relevant row, a cost "
    "per other one.",
    params=(
        Param("rel_ret", 1.0, "Gain of a relevant retrieved row."),
        Param("nonrel_ret", -1.0, "Gain of a non-relevant retrieved row."),
        Param("rel_missed", 0.0, "Gain of a relevant row not retrieved."),
        Param("nonrel_missed", 0.0, "Gain of a non-relevant row not retrieved."),
        Param(
            "n_docs",
            0.0,
            "Documents in the collection (trec_eval -N).",
            0.0,
            integer=True,
        ),
    ),
    labels="binary",
    needs=("n_relevant", "rel_threshold"),
    empty_when="never",
    per_query=utility,
    depth="k",
    form="set",
    tensor=utility_tensor,
)
