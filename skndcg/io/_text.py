"""Reading whitespace-separated TREC files: a fast path and an exact line scanner.

Files are parsed with pyarrow (single spaces, when installed), then with pandas'
C parser (any whitespace); whenever either refuses the file, or a value in it is
out of place, the line scanner reads it again. The scanner is the reference: it
accepts what trec_eval accepts and names the file and line of anything else.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import math
import mmap
import os
import stat
from dataclasses import dataclass

import numpy as np
import pandas as pd

_GZIP_MAGIC = b"\x1f\x8b"
_SPACE = r"[ \t\r\n\x0b\x0c]"  # what C's isspace() and bytes.split() split on


@dataclass(frozen=True)
class Layout:
    """Which fields of a line are kept and how they are read."""

    kind: str  # "run" or "qrels", for messages
    n_fields: int  # fields every line needs
    extra_ok: bool  # whether fields after the last one are ignored
    names: tuple  # one name per field; None for an ignored field
    number: str  # name of the numeric field
    integer: bool  # whether that field holds integers
    example: str


RUN = Layout(
    "run",
    6,
    True,
    ("qid", None, "doc_id", None, "score", "tag"),
    "score",
    False,
    "301 Q0 FBIS3-10937 1 12.5 myrun",
)
QRELS = Layout(
    "qrels",
    4,
    False,
    ("qid", None, "doc_id", "relevance"),
    "relevance",
    True,
    "301 0 FBIS3-10937 1",
)


def check_path(path, what):
    """Return ``path`` as a string, or raise naming what was missing."""
    try:
        name = os.fspath(path)
    except TypeError:
        raise TypeError(
            f"{what} must be a path (str or os.PathLike), got {path!r}."
        ) from None
    if not os.path.exists(name):
        raise FileNotFoundError(f"{what} {name!r} does not exist.")
    if os.path.isdir(name):
        raise IsADirectoryError(f"{what} {name!r} is a folder, expected a file.")
    if is_stream(name):
        # A pipe can be read once, and opening one without a writer waits forever:
        # the readers, which may read a file more than once, take files only.
        raise ValueError(
            f"{what} {name!r} is not a regular file (a pipe or a device); save "
            "it to a file first (skndcg score does this by itself)."
        )
    return name


def is_stream(path):
    """Whether ``path`` exists and is neither a regular file nor a folder: a pipe
    or a device, which can be read only once. Checked without opening it."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, TypeError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def is_gzip(path):
    with open(path, "rb") as fh:
        return fh.read(2) == _GZIP_MAGIC


def read_bytes(path):
    """The whole file, decompressed when it is gzip."""
    try:
        if is_gzip(path):
            with gzip.open(path, "rb") as fh:
                return fh.read()
        with open(path, "rb") as fh:
            return fh.read()
    except (OSError, EOFError) as exc:
        raise ValueError(f"cannot read {path!r}: {exc}") from None


def map_bytes(path):
    """The file's bytes as a read-only buffer, without a copy where possible.

    A plain file is mapped into memory: its pages come from the operating
    system's file cache as they are read, so nothing is copied and no fresh
    memory the size of the file is needed. A gzip file, or a file that cannot
    be mapped (empty, a pipe), is read as :func:`read_bytes` does. The mapping
    assumes the file is not shortened while it is being read.
    """
    if is_gzip(path):
        return read_bytes(path)
    try:
        with open(path, "rb") as fh:
            view = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # empty, not mappable, or not readable
        return read_bytes(path)
    if hasattr(mmap, "MADV_WILLNEED"):  # POSIX only: read it in ahead
        view.madvise(mmap.MADV_WILLNEED)
    return view


def _fail(path, lineno, layout, message):
    raise ValueError(
        f"{path}, line {lineno}: {message} (a {layout.kind} line reads like "
        f"'{layout.example}')."
    )


def scan(path, layout):
    """Parse the file line by line: the reference reader and error reporter.

    Blank lines and lines whose first non-blank character is ``#`` are skipped,
    as trec_eval 10.0 does.
    """
    data = read_bytes(path)
    columns = {name: [] for name in layout.names if name is not None}
    number = columns[layout.number]
    lineno = 0
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        n = len(fields)
        if n < layout.n_fields or (n > layout.n_fields and not layout.extra_ok):
            _fail(
                path,
                lineno,
                layout,
                f"expected {layout.n_fields} whitespace-separated fields, got {n}",
            )
        try:
            text = [f.decode("utf-8") for f in fields[: layout.n_fields]]
        except UnicodeDecodeError:
            _fail(path, lineno, layout, "the line is not valid UTF-8 text")
        for name, value in zip(layout.names, text, strict=True):
            if name is not None and name != layout.number:
                columns[name].append(value)
        value = text[layout.names.index(layout.number)]
        number.append(parse_number(value, path, lineno, layout))
    if not number:
        raise ValueError(
            f"{path} is empty: no {layout.kind} line in it (expected lines like "
            f"'{layout.example}')."
        )
    return build_frame(columns, layout)


def parse_number(text, path, lineno, layout):
    if layout.integer:
        try:
            return int(text)
        except ValueError:
            _fail(
                path,
                lineno,
                layout,
                f"the {layout.number} {text!r} is not an integer",
            )
    try:
        value = float(text)
    except ValueError:
        _fail(path, lineno, layout, f"the {layout.number} {text!r} is not a number")
    if not math.isfinite(value):
        _fail(path, lineno, layout, f"the {layout.number} {text!r} is not finite")
    return value


def build_frame(columns, layout):
    out = {}
    for name in layout.names:
        if name is None:
            continue
        values = columns[name]
        if name == layout.number:
            dtype = np.int64 if layout.integer else np.float64
            out[name] = np.asarray(values, dtype=dtype)
        elif name == "doc_id":
            out[name] = pd.array(values, dtype="str")
        else:
            out[name] = pd.Categorical(values)
    return pd.DataFrame(out)


# --------------------------------------------------------------------------- fast


def _pyarrow_frame(path, layout):
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    names = [n if n is not None else f"_skip{i}" for i, n in enumerate(layout.names)]
    kept = [n for n in layout.names if n is not None]
    number_type = pa.int64() if layout.integer else pa.float64()
    category = pa.dictionary(pa.int32(), pa.string())
    types = {n: (category if n in ("qid", "tag") else pa.string()) for n in kept}
    types[layout.number] = number_type
    try:
        source = pa.input_stream(path, compression="gzip" if is_gzip(path) else None)
        table = pacsv.read_csv(
            source,
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, escape_char=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                include_columns=kept,
                null_values=[],
                strings_can_be_null=False,
            ),
        )
    except Exception:  # the line scanner reports what is wrong
        return None
    if table.num_rows == 0:
        return None
    # Fields split on single spaces: make sure none holds other whitespace
    # (or is empty, from two spaces in a row) before trusting the parse.
    import pyarrow.compute as pc

    doc = table.column("doc_id")
    if pc.any(pc.match_substring_regex(doc, "^$|[\t\x0b\x0c]")).as_py():
        return None
    frame = table.to_pandas()
    for name in kept:
        if name != layout.number and frame[name].dtype != "category":
            frame[name] = frame[name].astype("str")
    return frame


def _pandas_frame(path, layout):
    kept = [i for i, n in enumerate(layout.names) if n is not None]
    dtypes = {
        i: ("category" if layout.names[i] in ("qid", "tag") else "str") for i in kept
    }
    dtypes[layout.names.index(layout.number)] = (
        np.int64 if layout.integer else np.float64
    )
    try:
        frame = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            names=list(range(layout.n_fields)),
            usecols=kept,
            dtype=dtypes,
            engine="c",
            quoting=3,  # csv.QUOTE_NONE
            na_filter=False,
            compression="gzip" if is_gzip(path) else None,
        )
    except Exception:  # the line scanner reports what is wrong
        return None
    frame.columns = [layout.names[i] for i in kept]
    # Split on spaces and tabs; the other characters isspace() accepts stay.
    if frame["doc_id"].str.contains("[\r\x0b\x0c]", regex=True).any():
        return None
    return frame


def _plausible(frame, layout):
    """Whether a fast parse holds exactly what the scanner would read."""
    if frame is None or len(frame) == 0:
        return False
    # The readers checked the document ids; the few distinct query ids and
    # tags are checked here.
    for name in ("qid", "tag"):
        if name not in layout.names:
            continue
        text = pd.Series(frame[name].cat.categories, dtype="str")
        if (text == "").any() or text.str.contains(_SPACE, regex=True).any():
            return False
        if name == "qid" and text.str.startswith("#").any():
            return False
    number = frame[layout.number].to_numpy()
    return bool(layout.integer or np.isfinite(number).all())


def read_table(path, layout):
    """Read a TREC run or qrels file into a DataFrame, fast when it is regular."""
    for reader in (_pyarrow_frame, _pandas_frame):
        frame = reader(path, layout)
        if _plausible(frame, layout):
            return frame.reset_index(drop=True)
    return scan(path, layout)


def write_lines(path, lines):
    """Write text lines, gzip-compressed when ``path`` ends with ``.gz``.

    The file is written whole or not at all (a temporary file beside ``path``,
    renamed at the end); a symbolic link out of its folder is refused.
    """
    from ..utils._atomic import atomic_write

    name = os.fspath(path)
    with contextlib.ExitStack() as stack:
        fh = stack.enter_context(atomic_write(name, "wb"))
        if name.endswith(".gz"):
            fh = stack.enter_context(gzip.GzipFile(fileobj=fh, mode="wb"))
        buffer = io.StringIO()
        for line in lines:
            buffer.write(line)
            if buffer.tell() > 1 << 20:
                fh.write(buffer.getvalue().encode("utf-8"))
                buffer = io.StringIO()
        fh.write(buffer.getvalue().encode("utf-8"))


def find_lines(path, qid, doc):
    """Line numbers where ``doc`` is listed under ``qid`` (for error messages)."""
    want = (qid.encode("utf-8"), doc.encode("utf-8"))
    found = []
    for lineno, raw in enumerate(read_bytes(path).split(b"\n"), 1):
        fields = raw.split()
        if len(fields) >= 3 and (fields[0], fields[2]) == want:
            found.append(lineno)
    return found
