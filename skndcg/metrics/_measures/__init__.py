"""The measures shipped with skndcg, one module per family.

Importing this package registers them. A new family is one module here and one
line below (see the contributor page "Adding a measure").
"""

from . import (  # noqa: F401
    _ap,
    _bing,
    _bpref,
    _dcg,
    _err,
    _g,
    _gm_bpref,
    _gm_map,
    _hit,
    _infap,
    _iprec,
    _judged,
    _judgments,
    _ndcg_rel,
    _precision,
    _rbp,
    _recall,
    _relative_p,
    _rndcg,
    _rprec,
    _rprec_mult,
    _rr,
    _set,
    _trec_rbp,
    _utility,
    _yaap,
)
