"""gm_bpref: bpref's geometric mean over queries, as trec_eval computes it.

Each query's value is its bpref (see ``_bpref.py``); the summary is
``exp(mean(log(max(bpref, 1e-5))))``, with trec_eval's floor (as gm_map).
"""

from dataclasses import replace

from .._catalogue._registry import register
from ._bpref import BPREF
from ._gm_map import GEOMETRIC

register(
    replace(
        BPREF,
        name="gm_bpref",
        description="Geometric mean of bpref over queries (trec_eval's floor 1e-5).",
        cutoff=False,
        aggregate=GEOMETRIC,
    )
)
