"""Predictions stored as columns: CSV and Parquet files."""

from __future__ import annotations

import numpy as np

from ..utils._args import as_path
from . import _text
from ._data import RankingData
from ._pandas import pd
from ._parquet import ParquetColumns, pyarrow_parquet

#: The file name endings read as Parquet (any case); any other file is text.
PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
#: The compressions pandas alone reads: their lines are not checked here.
PANDAS_ONLY = (".zip", ".zst", ".tar")


def is_parquet(path) -> bool:
    """Whether ``path`` names a Parquet file (by its ending, any case).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    bool

    Examples
    --------
    >>> from skndcg.io import is_parquet
    >>> is_parquet("log.PQ"), is_parquet("log.csv.gz")
    (True, False)
    """
    return str(path).lower().endswith(PARQUET_SUFFIXES)


def read_columns(path, columns, *, numbers=None):
    r"""The named columns of a CSV or Parquet file, as a DataFrame.

    The file is read as :func:`read_predictions` reads it: Parquet by its
    ending, else delimited text whose separator (``,``, tab, ``;`` or ``|``)
    is the one its header line holds most, gzip read transparently. Only the
    named columns are read, with the types pandas gives them.

    Parameters
    ----------
    path : str or path-like
    columns : list of str
        Column names, each once; each must be in the file.
    numbers : dict, default=None
        Columns that must hold a finite number on every row, by the name the
        error calls them (``{"score": "s"}``: "score column 's'"); they come
        back as float64. The rows are then checked as
        :func:`read_predictions` checks its own: a file without rows, a text
        row with a field missing or one too many, and a missing or
        non-numeric value are refused naming the file and line (the row for
        Parquet).

    Returns
    -------
    frame : pandas.DataFrame
        The columns, in the order given.

    Raises
    ------
    OSError
        When ``path`` is not a file.
    TypeError
        When ``columns`` is a str (not a list of them).
    ValueError
        When a column is named twice, or is missing (the message lists those
        the file has).

    Examples
    --------
    >>> import os, tempfile
    >>> from skndcg.io import read_columns
    >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("t;qid;score\n1;a;0.5\n")
    >>> read_columns(path, ["qid", "score"])
      qid  score
    0   a    0.5
    """
    import os

    if isinstance(columns, str):
        raise TypeError(f"columns must be a list of column names, got {columns!r}.")
    wanted = list(columns)
    twice = [c for c in wanted if wanted.count(c) > 1]
    if twice:
        raise ValueError(f"columns names {twice[0]!r} twice; name each column once.")
    name = as_path(path, "path")
    if not os.path.isfile(name):
        raise OSError(f"{path}: no such file")
    parquet, sep, header = _read_header(name)
    missing = [c for c in wanted if c not in header]
    if missing:
        raise ValueError(f"{path}: no column(s) {missing}; the file has {header}.")
    if not numbers:
        if parquet:
            return pd.read_parquet(name, columns=wanted)
        return pd.read_csv(name, sep=sep, usecols=wanted)[wanted]
    frame = _read_rows(name, parquet, sep, header, wanted)
    for what, col in numbers.items():
        frame[col] = _numbers(frame, col, name, parquet, what, False)
    return frame.reset_index(drop=True)


def _read_rows(name, parquet, sep, header, use, text_dtype=None):
    """The columns ``use`` of the file's rows, indexed by row (a text file's
    blank lines left out), or the error naming the file and line."""
    if parquet:
        # (by position: pandas may have stored an index with the file)
        table = pyarrow_parquet().read_table(name, columns=use)
        frame = table.to_pandas().reset_index(drop=True)
    else:
        frame = _read_csv(
            name, sep=sep, usecols=use, dtype=text_dtype, skip_blank_lines=False
        )[use]
        # Blank lines come back as empty rows, so row i sits on line i + 2.
        frame = frame[~frame.isna().all(axis=1).to_numpy()]
        _check_fields(name, sep, len(header))
    if len(frame) == 0:
        raise ValueError(f"{name} has {'no' if parquet else 'a header but no'} rows.")
    return frame


def _read_header(name, sep=None):
    """``(parquet, sep, column names)``: ``sep``, when None, the one the header
    line holds most (a comma when none)."""
    if is_parquet(name):
        return True, sep, ParquetColumns(name).names
    if sep is None:  # the header line, decompressed as pandas would read the file
        import zipfile

        try:
            if name.lower().endswith(".zip"):  # (pandas reads a zip's only member)
                with zipfile.ZipFile(name) as zf, zf.open(zf.namelist()[0]) as fh:
                    line = fh.readline().decode("utf-8-sig", "replace")
            elif name.lower().endswith(PANDAS_ONLY):
                line = ""  # (the separator stays a comma)
            else:
                with _open_text(name) as fh:
                    line = fh.readline()
        except UnicodeDecodeError as exc:
            raise _not_utf8(name, exc) from None
        except (OSError, EOFError, UnicodeError, IndexError, zipfile.BadZipFile) as exc:
            raise ValueError(f"cannot read {name!r}: {exc}") from None
        counts = {s: line.count(s) for s in (",", "\t", ";", "|")}
        sep = max(counts, key=counts.get)
        sep = sep if counts[sep] else ","
    return False, sep, [str(c) for c in _read_csv(name, nrows=0, sep=sep).columns]


def _read_csv(name, **options):
    """``pandas.read_csv`` of the file, its failures named by file (and line)."""
    try:
        return pd.read_csv(name, **options)
    except pd.errors.EmptyDataError:
        raise ValueError(
            f"{name} is empty: expected a header line naming the columns."
        ) from None
    except UnicodeDecodeError as exc:
        raise _not_utf8(name, exc, " as CSV") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"cannot read {name!r} as CSV: {exc}") from None


def _open_text(name, binary=False):
    """The file as text lines, decompressed as pandas would (gzip, bz2, xz)."""
    import bz2
    import gzip
    import lzma

    if _text.is_gzip(name):
        opener = gzip.open
    elif name.lower().endswith(".bz2"):
        opener = bz2.open
    elif name.lower().endswith((".xz", ".lzma")):
        opener = lzma.open
    else:
        opener = open
    if binary:
        return opener(name, "rb")
    return opener(name, "rt", encoding="utf-8-sig", newline="")


def _not_utf8(name, exc, what=""):
    """The error for a file that is not UTF-8 text, naming its first such line."""
    if not name.lower().endswith(PANDAS_ONLY):
        try:
            with _open_text(name, binary=True) as fh:
                for lineno, raw in enumerate(fh, 1):
                    try:
                        raw.decode("utf-8")
                    except UnicodeDecodeError:
                        shown = _text.clip(
                            raw.decode("utf-8", "replace").rstrip("\r\n")
                        )
                        return ValueError(
                            f"{name}, line {lineno}: the line is not valid UTF-8 "
                            f"text in {shown!r}; save the file as UTF-8."
                        )
        except (OSError, EOFError):
            pass
    return ValueError(f"cannot read {name!r}{what}: {exc}")


def _check_fields(name, sep, n_columns):
    """Refuse a row with more or fewer fields than the header names (which
    pandas would fill or cut without a word)."""
    import csv

    if name.lower().endswith(PANDAS_ONLY):
        return
    try:
        with _open_text(name) as fh:
            reader = csv.reader(fh, delimiter=sep)
            next(reader, None)  # the header
            for record in reader:
                if record and len(record) != n_columns:
                    shown = _text.clip(sep.join(record))
                    raise ValueError(
                        f"{name}, line {reader.line_num}: expected {n_columns} "
                        f"{sep!r}-separated fields (as in the header), got "
                        f"{len(record)} in {shown!r}; a row with a field missing "
                        "(a truncated last line) or one too many is refused."
                    )
    except UnicodeDecodeError as exc:
        raise _not_utf8(name, exc, " as CSV") from None
    except (csv.Error, OSError, EOFError) as exc:
        raise ValueError(f"cannot read {name!r} as CSV: {exc}") from None


def column_names(qid, label, score, **optional):
    """The column names (each a str) by argument, ``optional`` ones None left out."""
    wanted = {"qid": qid, "label": label, "score": score}
    wanted.update({arg: col for arg, col in optional.items() if col is not None})
    for arg, col in wanted.items():
        if not isinstance(col, str):
            raise TypeError(f"{arg} must be a column name (str), got {col!r}.")
    return wanted


def check_present(name, wanted, columns):
    """Refuse a ``wanted`` column (argument name to column) the file lacks."""
    for arg, col in wanted.items():
        if col not in columns:
            raise ValueError(
                f"{name} has no column {col!r} (passed as {arg}=); its columns "
                f"are {columns}."
            )


def check_flat(name, wanted):
    """Refuse a Parquet column holding lists or structs: one value per row."""
    import pyarrow as pa

    schema = ParquetColumns(name).schema
    for arg, col in wanted.items():
        kind = schema.field(col).type
        if pa.types.is_nested(kind):
            raise ValueError(
                f"{name}: {arg} column {col!r} holds {kind} values; expected one "
                "plain value (a number or a string) per row."
            )


def _where(name, parquet, row):
    # Row 0 of a CSV is on line 2, after the header.
    return f"{name}, row {row}" if parquet else f"{name}, line {row + 2}"


def _numbers(frame, col, name, parquet, what, allow_nan):
    rows = frame.index.to_numpy()
    values = frame[col].reset_index(drop=True)
    kind = values.dtype.kind if isinstance(values.dtype, np.dtype) else ""

    def first(bad):
        """The first flagged row, and the start of its message."""
        row = int(np.flatnonzero(bad)[0])
        return row, f"{_where(name, parquet, int(rows[row]))}: {what} column {col!r}"

    numeric = values
    if not (kind and kind in "iuf"):  # numbers already: nothing to convert
        numeric = pd.to_numeric(values, errors="coerce")
        bad = (numeric.isna() & values.notna()).to_numpy()
        if bad.any():
            row, at = first(bad)
            raise ValueError(f"{at} holds {values.iloc[row]!r}, which is not a number.")
    out = numeric.to_numpy(dtype=np.float64, na_value=np.nan)
    if not allow_nan and np.isnan(out).any():
        raise ValueError(f"{first(np.isnan(out))[1]} is empty; every row needs one.")
    if np.isinf(out).any():
        row, at = first(np.isinf(out))
        raise ValueError(f"{at} holds {float(out[row])!r}; expected a finite number.")
    return out


def read_predictions(path, *, qid, label, score, doc=None, sep=None):
    """Read per-row predictions from a CSV or Parquet file by column names.

    The format follows the file name: ``.parquet``, ``.pq`` or ``.parq`` is
    Parquet (needs pyarrow: ``pip install skndcg[parquet]``); anything else is
    delimited text (comma, tab or semicolon separated, detected from the header;
    ``.gz`` and other compressions read transparently). Query and document
    ids of a text file are kept as written, as strings; a Parquet file's
    columns keep their types. A UTF-8 byte order mark before the header is
    skipped.

    Parameters
    ----------
    path : str or path-like
        The file.
    qid, label, score : str
        Names of the query id, relevance label and score columns.
    doc : str or None, default=None
        Name of a document id column, if any.
    sep : str or None, default=None
        Field separator of a text file; detected from the header when None.

    Returns
    -------
    data : RankingData
        Fields ``qid``, ``doc_id`` (None without ``doc``), ``y_true`` and
        ``y_score`` in file order. An empty score cell is read as NaN: a
        judged document that was not retrieved (score such rows with
        ``nan_score="unretrieved"``).

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        When the file has no rows, a named column does not exist (the message
        lists the columns that do), a label or query id is missing, a label
        or score is not a number, a row of a text file has more or fewer
        fields than its header (a truncated last line), a document appears
        twice for one query, or a Parquet column holds lists; the message
        names the file and line (row for Parquet).
    ImportError
        When a Parquet file is read without pyarrow installed.

    See Also
    --------
    join_run_qrels : The same arrays from a TREC run and its qrels.

    Examples
    --------
    >>> import os, tempfile
    >>> from skndcg.io import read_predictions
    >>> path = os.path.join(tempfile.mkdtemp(), "predictions.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("user,item,rating,pred\\n7,a,5,0.9\\n7,b,0,0.4\\n8,c,4,\\n")
    >>> data = read_predictions(path, qid="user", label="rating", score="pred",
    ...                         doc="item")
    >>> data.to_frame()
      qid doc_id  y_true  y_score
    0   7      a     5.0      0.9
    1   7      b     0.0      0.4
    2   8      c     4.0      NaN
    """
    name = _text.check_path(path, "predictions file")
    wanted = column_names(qid=qid, label=label, score=score, doc=doc)
    parquet, sep, columns = _read_header(name, sep)
    check_present(name, wanted, columns)
    use = list(dict.fromkeys(wanted.values()))
    if parquet:
        check_flat(name, wanted)
    text_ids = {wanted[a]: "str" for a in ("qid", "doc") if a in wanted}
    frame = _read_rows(name, parquet, sep, columns, use, text_ids)
    ids, numbers = checked_rows(frame, name, parquet, wanted)
    return RankingData(ids["qid"], ids.get("doc"), numbers["label"], numbers["score"])


def checked_rows(frame, name, parquet, wanted, empty_labels=False):
    """The ids and the numbers (labels, scores) of the columns ``wanted`` of
    ``frame`` (indexed by the file's rows), or the error naming the first bad
    value's line; an empty score is NaN, an empty label too with
    ``empty_labels``."""
    ids = {}
    for arg in ("qid", "doc"):
        if arg not in wanted:
            continue
        col = frame[wanted[arg]]
        missing = col.isna().to_numpy()
        if missing.any():
            row = int(frame.index[np.flatnonzero(missing)[0]])
            raise ValueError(
                f"{_where(name, parquet, row)}: {arg} column {wanted[arg]!r} is "
                "empty; every row needs one."
            )
        ids[arg] = col.to_numpy(dtype=object) if not parquet else col.to_numpy()
    if "doc" in ids:  # a document listed twice for a query, named by its lines
        pairs = pd.DataFrame({"q": ids["qid"], "d": ids["doc"]})
        dup = pairs.duplicated(keep=False).to_numpy()
        if dup.any():
            first = int(np.flatnonzero(dup)[0])
            same = (pairs == pairs.iloc[first]).all(axis=1).to_numpy()
            rows = frame.index.to_numpy()[same]
            where = [(r if parquet else r + 2) for r in rows.tolist()]
            unit = "rows" if parquet else "lines"
            raise ValueError(
                f"{name}, {unit} {', '.join(map(str, where))}: document "
                f"{pairs['d'].iloc[first]!r} appears more than once for query "
                f"{pairs['q'].iloc[first]!r}; keep one row per (query, document) "
                "pair."
            )
    numbers = {
        arg: _numbers(
            frame, wanted[arg], name, parquet, arg, arg == "score" or empty_labels
        )
        for arg in ("label", "score")
        if arg in wanted
    }
    return ids, numbers
