"""Reading and writing rankings: TREC runs and qrels, CSV and Parquet predictions.

- :func:`read_trec_run`, :func:`read_trec_qrels`, :func:`write_trec_run`: the
  whitespace-separated formats of trec_eval.
- :func:`read_trec_run_chunks`: a large run, a chunk of rows at a time.
- :func:`read_predictions`: per-row predictions stored as named columns;
  :func:`read_predictions_chunks`: a large Parquet file, whole queries at a time;
  :func:`read_columns`: any named columns of such a file (a log);
  :func:`is_parquet`: whether a file name is read as Parquet;
  :class:`ParquetColumns`: a Parquet file's columns, a batch at a time.
- :func:`join_run_qrels`: a run and its judgments as aligned arrays
  (:class:`RankingData`), judged documents the run missed included;
  :func:`join_trec_files`: the same from two files, with integer query codes
  (:class:`CodedRanking`), as ``skndcg score`` scores them.
- :func:`open_input`: the one door of ``skndcg score``'s inputs: a run and its
  qrels (and a model's qrels beside the human ones) or a predictions file,
  loaded and joined, or a :class:`Chunked` (a file too large to load, for
  :mod:`skndcg.streaming`).
- :func:`is_stream`: whether a path is a pipe or a device, readable only once.
"""

from ._chunks import read_predictions_chunks
from ._columns import is_parquet, read_columns, read_predictions
from ._data import CodedRanking, RankingData
from ._files import join_trec_files
from ._join import join_run_qrels
from ._open import Chunked, open_input
from ._parquet import ParquetColumns
from ._text import is_stream
from ._trec import read_trec_qrels, read_trec_run, read_trec_run_chunks, write_trec_run

__all__ = [
    "Chunked",
    "CodedRanking",
    "ParquetColumns",
    "RankingData",
    "is_parquet",
    "is_stream",
    "join_run_qrels",
    "join_trec_files",
    "open_input",
    "read_columns",
    "read_predictions",
    "read_predictions_chunks",
    "read_trec_qrels",
    "read_trec_run",
    "read_trec_run_chunks",
    "write_trec_run",
]
