"""Laying a dask DataFrame out by query and scoring it partition by partition."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._partial._driver import score_piece, wants_progress
from .._partial._pieces import (
    ORDER_COLUMNS,
    check_columns,
    check_frame,
    check_numeric,
    door_module,
)
from ..metrics._shared import RowsError, as_1d, call_options
from ..utils._args import check_flags


def import_dask():
    """``dask.dataframe``, or an error naming the extra to install."""
    return door_module("dask", "dask.dataframe", "dask[dataframe] and distributed")


@dataclass
class Layout:
    """A frame whose queries each sit in one partition, and how to read it."""

    frame: object
    qid_in_index: bool
    shuffled: bool
    verify: bool  # the caller's flag, not the divisions, says queries are whole
    expected: object  # the query ids' dtype in the frame's metadata
    read: dict  # how the pieces read the label and score columns (_as_read)

    def labels(self, ddf):
        """``ddf``'s label column as the pieces read it (object as float64)."""
        col = self.read["cols"]["label_col"]
        meta = _as_read(ddf[[col]]._meta, **self.read)
        return ddf[[col]].map_partitions(_as_read, **self.read, meta=meta)[col]


def lay_out(ddf, cols, flag, options):
    """Check the columns (``cols``) and shuffle rows by query unless they are
    laid out so (``flag``: ``partitioned_by_qid``)."""
    check_frame(ddf, import_dask().DataFrame, "ddf", "dask.dataframe.DataFrame")
    if flag is not None:
        check_flags(partitioned_by_qid=flag)
    qid_col = cols["qid_col"]
    in_index = qid_col not in ddf.columns and ddf.index.name == qid_col
    check_columns(list(ddf.columns) + ([qid_col] if in_index else []), cols, "ddf")
    check_numeric(cols, lambda col: _text_type(ddf.dtypes[col]), "ddf")
    expected = ddf.index.dtype if in_index else ddf.dtypes[qid_col]
    known = in_index and ddf.known_divisions
    opts = call_options(**options)
    read = dict(cols=cols, missing={"label_col": opts.unjudged,
                                    "score_col": opts.unretrieved})  # fmt: skip
    if flag or (flag is None and known):
        return Layout(ddf, in_index, shuffled=False, verify=not known,
                      expected=expected, read=read)  # fmt: skip
    if in_index:
        ddf = ddf.reset_index()
    tag = dict(read, expected=expected)
    # The meta as _with_order leaves it: object labels and scores as float64.
    ordered = ddf.map_partitions(_with_order, **tag, meta=_with_order(ddf._meta, **tag))
    shuffled = ordered.shuffle(on=qid_col)
    return Layout(shuffled, False, shuffled=True, verify=False, expected=expected,
                  read=read)  # fmt: skip


def _text_type(dtype):
    """The name of ``dtype`` when it holds no numbers (strings, dates), else None;
    an object column may hold numbers, and each piece checks its values."""
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    types = pd.api.types
    numeric = types.is_object_dtype(dtype) or types.is_numeric_dtype(dtype)
    return None if numeric else str(dtype)


def _check_qid_dtype(actual, expected, qid_col, number):
    if isinstance(actual, pd.CategoricalDtype) and isinstance(
        expected, pd.CategoricalDtype
    ):
        return  # categories may differ from one partition to the next
    if actual != expected:
        where = "?" if number is None else number
        raise TypeError(
            f"qid_col={qid_col!r} has dtype {actual} in partition {where} but "
            f"{expected} in the DataFrame's metadata; query ids need one dtype in "
            "every partition (1, 1.0 and '1' would be different queries). Cast "
            f"them first, e.g. ddf[{qid_col!r}].astype({str(expected)!r})."
        )


def _number(partition_info):
    return None if partition_info is None else partition_info["number"]


def _with_order(part, partition_info=None, *, cols, expected, missing):
    """Tag each row with its partition and position, to restore order later,
    its label and score columns read by :func:`_as_read` (for the shuffle)."""
    number = _number(partition_info)
    _check_qid_dtype(part[cols["qid_col"]].dtype, expected, cols["qid_col"], number)
    columns = {
        ORDER_COLUMNS[0]: np.full(len(part), -1 if number is None else number),
        ORDER_COLUMNS[1]: np.arange(len(part), dtype=np.int64),
    }
    return _as_read(part.assign(**columns), partition_info, cols=cols, missing=missing)


def _as_read(part, partition_info=None, *, cols, missing):
    """``part`` with an object label or score column as float64, as the engine
    reads it (``missing``: whether a missing value reads as NaN, by ``cols``
    key), its bad rows refused by row."""
    columns = {}
    for key, name in (("label_col", "y_true"), ("score_col", "y_score")):
        col = cols[key]
        values = part.get(col)  # (None: not among the columns of part)
        if values is None or not pd.api.types.is_object_dtype(values.dtype):
            continue
        try:
            columns[col] = (
                as_1d(values, name, missing_as_nan=missing[key])
                if len(values)
                else values.astype(np.float64)
            )
        except RowsError as exc:
            raise exc.placed(_where(part, exc.row, False, partition_info)) from None
    return part.assign(**columns)


def score_partition(
    part,
    partition_info=None,
    *,
    what,
    layout_shuffled,
    qid_in_index,
    expected,
    template,
    spec,
    ends=False,
):
    """The report of one partition, or its partial sums (``what="sums"``);
    ``ends`` adds its smallest and largest query id (:data:`END_COLUMNS`)."""
    qid_col = spec.columns["qid_col"]
    if layout_shuffled:
        # Rows of one query in their original order: the tie rules read it.
        order = np.lexsort(
            (part[ORDER_COLUMNS[1]].to_numpy(), part[ORDER_COLUMNS[0]].to_numpy())
        )
        part = part.iloc[order]
    else:
        dtype = part.index.dtype if qid_in_index else part[qid_col].dtype
        _check_qid_dtype(dtype, expected, qid_col, _number(partition_info))
    qid = None
    if len(part) and qid_in_index:
        qid = pd.Series(part.index, name=qid_col)
    if what == "report" and len(part) == 0:
        return template.copy()
    try:
        out = score_piece(part, spec, what, qid)
    except RowsError as exc:
        where = _where(part, exc.row, layout_shuffled, partition_info)
        raise exc.placed(where) from None
    if ends:
        low, high = _ends(part.index if qid_in_index else part[qid_col])
        out[END_COLUMNS[0]] = pd.Series([low], dtype=object)
        out[END_COLUMNS[1]] = pd.Series([high], dtype=object)
    return out


def _where(part, row, shuffled, partition_info) -> str:
    """Where row ``row`` of a scored partition sits in the frame the caller
    gave: its partition and position there."""
    if shuffled:
        number, row = (int(part[c].iloc[row]) for c in ORDER_COLUMNS)
    else:
        number = _number(partition_info)
    return f"one at row {row} of ddf.partitions[{number}]"


def _ends(ids):
    """The smallest and largest of ``ids`` (None for none), as Python objects."""
    if len(ids) == 0:
        return None, None
    try:
        low, high = ids.min(), ids.max()
    except TypeError:  # e.g. unordered categories: compare the values
        values = pd.Series(np.asarray(ids, dtype=object))
        low, high = values.min(), values.max()
    return (getattr(low, "item", lambda: low)(), getattr(high, "item", lambda: high)())


#: The smallest and largest query id of a partition laid out by known divisions.
END_COLUMNS = ("__skndcg_qid_min__", "__skndcg_qid_max__")


def spanning_qid(ends: pd.DataFrame):
    """A query id found in two partitions of a frame laid out by its divisions
    (ordered ranges of ids, so the largest of one and the smallest of a later
    one), or None."""
    high = None
    for low, top in zip(ends[END_COLUMNS[0]], ends[END_COLUMNS[1]], strict=True):
        if low is None or (isinstance(low, float) and np.isnan(low)):
            continue  # an empty partition
        if high is not None and not high < low:
            return low
        high = top
    return None


def compute(delayeds, progress):
    """Compute a list of delayed objects, with a progress bar when asked."""
    import dask

    if not wants_progress(progress):
        return list(dask.compute(*delayeds))
    from tqdm.auto import tqdm

    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):  # no distributed, or no client
        client = None
    if client is None:
        from dask.diagnostics import ProgressBar

        with ProgressBar(minimum=3):
            return list(dask.compute(*delayeds))
    from distributed import as_completed

    futures = client.compute(delayeds)
    bar = tqdm(total=len(futures), desc="partitions", delay=3, file=sys.stderr)
    with bar:
        for _ in as_completed(futures):
            bar.update(1)
    return client.gather(futures)
