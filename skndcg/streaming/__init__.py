"""Grouped ranking metrics over files larger than memory, read once in order.

Needs the ``stream`` extra (pyarrow): ``pip install 'skndcg[stream]'``.
"""

from ._parquet import score_parquet

__all__ = ["score_parquet"]
