"""The rules of TREC files, the file helpers and the line scanner: the reference
reader, which accepts what trec_eval accepts and names the file, line and text of
anything else (the compiled ``_scan`` reads regular files; ``_tables`` uses both)."""

from __future__ import annotations

import contextlib
import gzip
import math
import mmap
import os
import stat
import zlib
from dataclasses import dataclass

import numpy as np

from ..utils._args import as_path
from ..utils._number_text import number_text
from ._pandas import pd

_GZIP_MAGIC = b"\x1f\x8b"
#: Skipped at the very start of a file; anywhere else its bytes are a field's.
BOM = b"\xef\xbb\xbf"


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
    name = as_path(path, what)
    if not os.path.exists(name):
        raise FileNotFoundError(f"{what} {name!r} does not exist.")
    if os.path.isdir(name):
        raise IsADirectoryError(f"{what} {name!r} is a folder, expected a file.")
    if is_stream(name):  # (the readers may read a file more than once)
        raise ValueError(
            f"{what} {name!r} is not a regular file (a pipe or a device); save "
            "it to a file first (skndcg score does this by itself)."
        )
    return name


def is_stream(path):
    """Whether ``path`` names a pipe or a device: input that can be read only once.

    True when ``path`` exists and is neither a regular file nor a folder, such
    as the ``/dev/fd/63`` a shell's ``<(zcat run.gz)`` gives. The readers may
    read a file more than once, so a caller copies such input to a temporary
    file first. Checked without opening ``path``, so nothing is consumed.

    Parameters
    ----------
    path : str or os.PathLike
        The path to check. Anything that is not a path, or a path that does not
        exist, gives False (the reader then reports it).

    Returns
    -------
    stream : bool
        True for a pipe, a socket or a device; False otherwise.

    Examples
    --------
    >>> import os, tempfile
    >>> from skndcg.io import is_stream
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     regular = os.path.join(folder, "run.txt")
    ...     open(regular, "w").close()
    ...     is_stream(regular), is_stream(folder)
    (False, False)
    >>> is_stream(os.devnull)  # a device
    True
    >>> is_stream("no/such/file")
    False
    """
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False  # os.stat would take an int as an open file descriptor
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
        with (gzip.open if is_gzip(path) else open)(path, "rb") as fh:
            return fh.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"cannot read {path!r}: {exc}") from None


def map_bytes(path):
    """The file's bytes as a read-only buffer: a plain file mapped (not copied;
    it must not shrink while read), else :func:`read_bytes`."""
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


def count_lines(data):
    """Line ends in ``data``: LF, CR and CRLF each end one line."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


def split_lines(data):
    """The lines of ``data``; LF, CRLF and CR all end a line."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data.split(b"\n")


def clip(text, limit=80):
    """``text``, cut to ``limit`` characters (ending in ``...``) when longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fail(path, lineno, layout, message, line=None):
    if line is not None:
        message += f" in {clip(bytes(line).decode('utf-8', 'replace').strip())!r}"
    raise ValueError(
        f"{path}, line {lineno}: {message} (a {layout.kind} line reads "
        f"like '{layout.example}')."
    )


def scan(path, layout, data=None, first_line=0, whole=True):
    """The DataFrame of :func:`columns`."""
    found = columns(path, layout, data, first_line, whole)
    out = {}
    for name in filter(None, layout.names):
        if name == layout.number:
            out[name] = found[name]
        elif name == "doc_id":
            out[name] = pd.array(found[name], dtype="str")
        else:
            out[name] = pd.Categorical(found[name])
    return pd.DataFrame(out)


def columns(path, layout, data=None, first_line=0, whole=True, text=True):
    """``{name: list of str, or the numbers as an array}`` of the lines of
    ``data`` (the file's bytes, or a block of whole lines after ``first_line``
    lines, which may hold none unless ``whole``); blank and ``#`` lines are
    skipped, as trec_eval does. ``text=False`` may leave the ids as UTF-8
    bytes (checked)."""
    if data is None:
        data = read_bytes(path)
    if first_line == 0 and data.startswith(BOM):
        data = data[len(BOM) :]
    found = _columns_at_once(data, layout, text)
    if found is not None:
        return found
    columns = {name: [] for name in layout.names if name is not None}
    number = columns[layout.number]
    for lineno, raw in enumerate(split_lines(data), first_line + 1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        n = len(fields)
        if n < layout.n_fields or (n > layout.n_fields and not layout.extra_ok):
            wrong = f"expected {layout.n_fields} whitespace-separated fields, got {n}"
            _fail(path, lineno, layout, wrong, raw)
        try:
            text = [f.decode("utf-8") for f in fields[: layout.n_fields]]
        except UnicodeDecodeError:
            _fail(path, lineno, layout, "the line is not valid UTF-8 text", raw)
        for name, value in zip(layout.names, text, strict=True):
            if name is not None and name != layout.number:
                columns[name].append(value)
        value = text[layout.names.index(layout.number)]
        number.append(parse_number(value, path, lineno, layout, raw))
    if not number and whole:
        raise ValueError(
            f"{path} is empty: no {layout.kind} line in it (expected lines like "
            f"'{layout.example}')."
        )
    dtype = np.int64 if layout.integer else np.float64
    columns[layout.number] = np.asarray(number, dtype=dtype)
    return columns


def _columns_at_once(data, layout, text=True):
    """:func:`columns` of ``data`` a column at a time, or None for the line
    loop to read (and name what is wrong)."""
    n = layout.n_fields
    if b"#" in data:
        return None
    arr = np.frombuffer(data, dtype=np.uint8)
    space = (arr == 32) | ((arr >= 9) & (arr <= 13))  # what bytes.split() splits on
    first = ~space
    first[1:] &= space[:-1]  # the first byte of each field
    starts = np.flatnonzero(first)
    before = np.searchsorted(starts, np.flatnonzero((arr == 10) | (arr == 13)))
    per_line = np.diff(before, prepend=0)  # fields up to each line end, per line
    if arr.size:
        per_line = np.append(per_line, starts.size - (before[-1] if before.size else 0))
    if not per_line.any() or ((per_line != 0) & (per_line != n)).any():
        return None
    # A '_' in the number column (float() and int() would read 1_0).
    under = np.flatnonzero(arr == 95)
    field = np.searchsorted(starts, under, side="right") - 1
    if (field % n == layout.names.index(layout.number)).any():
        return None
    data = bytes(data)
    tokens, is_ascii = data.split(), data.isascii()  # ASCII: every field is UTF-8
    out = {}
    for i, name in enumerate(layout.names):
        if name is None:
            continue
        col = tokens[i::n]
        if name == layout.number:
            kind, dtype = (int, np.int64) if layout.integer else (float, np.float64)
            try:
                values = np.array(list(map(kind, col)), dtype=dtype)
            except (ValueError, OverflowError):
                return None
            if not layout.integer and not np.isfinite(values).all():
                return None
            out[name] = values
            continue
        if text or not is_ascii:
            try:  # (no field holds a line end)
                decoded = b"\n".join(col).decode("utf-8")
            except UnicodeDecodeError:
                return None
            col = decoded.split("\n") if text else col
        out[name] = col
    return out


def parse_number(text, path, lineno, layout, line=None):
    def fail(what):
        _fail(path, lineno, layout, f"the {layout.number} {text!r} {what}", line)

    # (neither '1_0' nor '\uff11' is read, as trec_eval's other misreadings)
    plain = number_text(text)
    if layout.integer:
        try:
            value = int(plain)
        except ValueError:
            fail("is not an integer")
        if not -(2**63) <= value < 2**63:
            fail("is beyond the 64-bit integers")
        return value
    try:
        value = float(plain)
    except ValueError:
        fail("is not a number")
    if not math.isfinite(value):
        fail("is not finite")
    return value


def write_lines(path, lines):
    """Write text lines, gzip-compressed when ``path`` ends with ``.gz``, whole
    or not at all; a symbolic link out of its folder is refused."""
    from ..utils._atomic import atomic_write

    name = as_path(path, "path")
    with contextlib.ExitStack() as stack:
        fh = stack.enter_context(atomic_write(name, "wb"))
        if name.endswith(".gz"):
            fh = stack.enter_context(gzip.GzipFile(fileobj=fh, mode="wb"))
        for line in lines:
            fh.write(line.encode("utf-8"))


def find_lines(path, qid, doc):
    """Line numbers where ``doc`` is listed under ``qid`` (for error messages)."""
    want = (qid.encode("utf-8"), doc.encode("utf-8"))
    data = read_bytes(path)
    if data.startswith(BOM):
        data = data[len(BOM) :]
    lines = (raw.split() for raw in split_lines(data))
    return [n for n, f in enumerate(lines, 1) if len(f) >= 3 and (f[0], f[2]) == want]
