"""Grouped ranking metrics over files larger than memory, read once in order:
Parquet predictions (:func:`score_parquet`) and TREC runs against their
judgments (:func:`score_trec_run`).

Needs the ``stream`` extra (pyarrow): ``pip install 'skndcg[stream]'``.
"""

from ._parquet import score_parquet
from ._trec import score_trec_run

__all__ = ["score_parquet", "score_trec_run"]
