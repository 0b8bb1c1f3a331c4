"""The measures shipped with skndcg: one module per family, those of the fused
block kernel together (``_blocks``).

Importing this package registers them. A new family is one module here and one
line below (see the contributor page "Adding a measure").
"""

from . import (  # noqa: F401
    _ap_variants,
    _blocks,
    _bpref,
    _err,
    _g,
    _infap,
    _iprec,
    _judgments,
    _ndcg_rel,
    _rbp,
    _relative_p,
    _rndcg,
    _rprec,
    _rprec_mult,
    _set,
    _utility,
)
