"""TREC files as DataFrames, whole or block by block: the compiled scanner's
fields (``_scan``), or the line scanner's (``_text``) where it gives way."""

import gzip
import zlib

import numpy as np

from . import _hashing, _scan, _text
from ._pandas import pd


def _strings(data, start, length):
    """The byte ranges ``data[start:start+length]`` (ASCII) as a str array."""
    n = len(start)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(length, out=offsets[1:])
    chars = _hashing.gather(data, start, length, offsets)
    try:
        import pyarrow as pa
    except ImportError:
        text = bytes(chars).decode("ascii")
        values = [text[offsets[i] : offsets[i + 1]] for i in range(n)]
        return pd.array(values, dtype="str")
    array = pa.LargeStringArray.from_buffers(
        n, pa.py_buffer(offsets), pa.py_buffer(chars)
    )
    return pd.array(array, dtype="str")


def parse_block(path, layout, data, first_line=0, whole=True):
    """The rows of ``data``, whole lines of the file ``path`` after
    ``first_line`` lines."""
    scanned = _scan.scan_fast(
        path, layout, data, tags="tag" in layout.names, first_line=first_line
    )
    if scanned is not None:  # the DataFrame _text.scan gives, from its fields
        data = scanned.data  # (past a BOM)
        out = {"qid": pd.Categorical.from_codes(scanned.qcode, scanned.names)}
        out["doc_id"] = _strings(data, scanned.doc_start, scanned.doc_len)
        out[layout.number] = scanned.value
        if "tag" in layout.names:
            start, length = scanned.tag_start, scanned.tag_len
            if _hashing.all_same(data, start, length):  # one run tag, as usual
                tag = bytes(data[start[0] : start[0] + length[0]]).decode("ascii")
                codes = np.zeros(len(start), dtype=np.int8)
                out["tag"] = pd.Categorical.from_codes(codes, [tag])
            else:
                out["tag"] = pd.Categorical(_strings(data, start, length))
        return pd.DataFrame(out)
    if not isinstance(data, bytes):
        data = bytes(data)
    return _text.scan(path, layout, data, first_line, whole)


def read_table(path, layout):
    """Read a TREC run or qrels file into a DataFrame."""
    return parse_block(path, layout, _text.map_bytes(path)).reset_index(drop=True)


def iter_chunks(path, layout, chunk_lines, block_bytes=16 << 20):
    """:func:`read_table`'s rows and errors, in bounded memory: frames of
    ``chunk_lines`` rows (fewer at a block's end) from ``block_bytes`` at a time,
    ``attrs["path"]`` the file."""
    opener = gzip.open if _text.is_gzip(path) else open
    row, lines, rest, first = 0, 0, b"", True
    try:
        with opener(path, "rb") as fh:
            while True:
                chunk = fh.read(block_bytes)
                data = rest + chunk
                if not chunk:
                    cut = len(data)
                else:
                    cut = data.rfind(b"\n") + 1
                    if cut == 0:  # no LF: a CR ends a line, unless it is last
                        cut = data.rfind(b"\r", 0, len(data) - 1) + 1
                if first and data.startswith(_text.BOM):
                    data, cut = data[len(_text.BOM) :], cut - len(_text.BOM)
                first = False
                block, rest = data[:cut], data[cut:]
                if block.strip():
                    frame = parse_block(path, layout, block, lines, whole=False)
                    for lo in range(0, len(frame), chunk_lines):
                        rows = frame.iloc[lo : lo + chunk_lines].reset_index(drop=True)
                        rows.attrs["path"] = path
                        yield rows
                    row += len(frame)
                lines += _text.count_lines(block)
                if not chunk:
                    break
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"cannot read {path!r}: {exc}") from None
    if row == 0:
        raise ValueError(
            f"{path} is empty: no {layout.kind} line in it (expected lines like "
            f"'{layout.example}')."
        )
