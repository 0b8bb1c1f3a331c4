"""gm_bpref: bpref's geometric mean over queries, as trec_eval computes it.

Each query's value is its bpref (see ``_bpref.py``); the summary is
``exp(mean(log(max(bpref, 1e-5))))``, with trec_eval's floor (as gm_map).
"""

from .._catalogue._registry import Measure, register
from ._bpref import bpref, bpref_tensor
from ._gm_map import GEOMETRIC

register(
    Measure(
        "gm_bpref",
        "Geometric mean of bpref over queries (trec_eval's floor 1e-5).",
        cutoff=False,
        labels="binary",
        needs=("n_relevant", "n_nonrelevant", "rel_threshold"),
        unjudged="use",
        per_query=bpref,
        depth="k",
        tensor=bpref_tensor,
        aggregate=GEOMETRIC,
    )
)
