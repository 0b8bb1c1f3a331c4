"""Predictions stored as CSV or Parquet columns."""

import bz2
import gzip
import lzma
import zipfile

import numpy as np
import pandas as pd
import pytest

from skndcg.io import read_columns, read_predictions

CSV = "user,item,rating,pred\n7,a,5,0.9\n7,b,0,0.4\n8,c,4,\n8,d,1,0.25\n"
COLS = {"qid": "user", "label": "rating", "score": "pred"}


def _write(tmp_path, text, name="p.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _check(data, doc=True):
    assert data.qid.tolist() == ["7", "7", "8", "8"]
    assert data.y_true.tolist() == [5, 0, 4, 1]
    np.testing.assert_array_equal(data.y_score, [0.9, 0.4, np.nan, 0.25])
    assert (data.doc_id.tolist() if doc else data.doc_id) == (
        ["a", "b", "c", "d"] if doc else None
    )


def test_csv_by_column_names(tmp_path):
    _check(read_predictions(_write(tmp_path, CSV), **COLS, doc="item"))
    _check(read_predictions(_write(tmp_path, CSV), **COLS), doc=False)


def test_tab_semicolon_and_gzip(tmp_path):
    tsv = _write(tmp_path, CSV.replace(",", "\t"), "p.tsv")
    _check(read_predictions(tsv, **COLS, doc="item"))
    semi = _write(tmp_path, CSV.replace(",", ";"), "p.txt")
    _check(read_predictions(semi, **COLS, doc="item"))
    gz = tmp_path / "p.csv.gz"
    gz.write_bytes(gzip.compress(CSV.encode()))
    _check(read_predictions(gz, **COLS, doc="item"))


@pytest.mark.parametrize("suffix", ["bz2", "xz", "zip"])
def test_separator_sniffed_inside_other_compressions(tmp_path, suffix):
    # The header line is read decompressed, as pandas reads the rows: a
    # tab-separated file compressed with bz2, xz or zip is not one column.
    data = CSV.replace(",", "\t").encode()
    path = tmp_path / f"p.tsv.{suffix}"
    if suffix == "zip":
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("p.tsv", data)
    else:
        path.write_bytes((bz2 if suffix == "bz2" else lzma).compress(data))
    _check(read_predictions(path, **COLS, doc="item"))


def test_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {
            "user": ["7", "7", "8", "8"],
            "item": list("abcd"),
            "rating": [5, 0, 4, 1],
            "pred": [0.9, 0.4, None, 0.25],
            "other": 0,
        }
    )
    path = tmp_path / "p.parquet"
    frame.to_parquet(path)
    _check(read_predictions(path, **COLS, doc="item"))


def test_unknown_column_lists_the_columns(tmp_path):
    path = _write(tmp_path, CSV)
    with pytest.raises(
        ValueError,
        match=r"p\.csv has no column 'score' \(passed as score=\); its columns are "
        r"\['user', 'item', 'rating', 'pred'\]",
    ):
        read_predictions(path, qid="user", label="rating", score="score")


def test_unknown_parquet_column(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "p.parquet"
    pd.DataFrame({"q": ["a"], "y": [1], "s": [0.5]}).to_parquet(path)
    with pytest.raises(ValueError, match=r"no column 'qid'.*\['q', 'y', 's'\]"):
        read_predictions(path, qid="qid", label="y", score="s")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            "user,item,rating,pred\n7,a,5,0.9\n7,b,high,0.4\n",
            r"p\.csv, line 3: label column 'rating' holds 'high', which is not a num",
        ),
        (
            "user,item,rating,pred\n7,a,5,0.9\n\n7,b,1,abc\n",
            r"p\.csv, line 4: score column 'pred' holds 'abc'",
        ),
        (
            "user,item,rating,pred\n7,a,,0.9\n",
            r"p\.csv, line 2: label column 'rating' is empty",
        ),
        (
            "user,item,rating,pred\n,a,1,0.9\n",
            r"p\.csv, line 2: qid column 'user' is empty",
        ),
        (
            "user,item,rating,pred\n7,a,1,inf\n",
            r"p\.csv, line 2: score column 'pred' holds inf; expected a finite",
        ),
        ("user,item,rating,pred\n", r"p\.csv has a header but no rows"),
        ("", r"p\.csv is empty: expected a header line"),
    ],
)
def test_bad_csv_files(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        read_predictions(_write(tmp_path, text), **COLS, doc="item")


@pytest.mark.parametrize("rows", [1, 3000])
@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_text_that_is_not_utf8_names_the_line(tmp_path, rows, suffix):
    # A Latin-1 byte in the first buffer (read to sniff the separator) or far
    # past it (read by pandas); the decoder alone gives a buffer offset.
    raw = b"user,item,rating,pred\n" + b"7,a,5,0.9\n" * rows + b"8,caf\xe9,1,0.2\n"
    path = tmp_path / f"p.csv{suffix}"
    path.write_bytes(gzip.compress(raw) if suffix else raw)
    with pytest.raises(
        ValueError,
        match=rf"p\.csv{suffix}, line {rows + 2}: the line is not valid UTF-8 "
        r"text in '8,caf\ufffd,1,0\.2'; save the file as UTF-8\.",
    ):
        read_predictions(path, **COLS, doc="item")


def test_missing_file_and_bad_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"predictions file .* does not exist"):
        read_predictions(tmp_path / "none.csv", **COLS)
    with pytest.raises(TypeError, match="qid must be a column name"):
        read_predictions(_write(tmp_path, CSV), qid=0, label="rating", score="pred")


def test_not_a_parquet_file(tmp_path):
    pytest.importorskip("pyarrow")
    with pytest.raises(ValueError, match=r"cannot read .* as Parquet"):
        read_predictions(_write(tmp_path, CSV, "p.parquet"), **COLS)


@pytest.mark.parametrize("rows", [1, 30000])
def test_read_columns_numbers_names_bad_text_as_read_predictions(tmp_path, rows):
    # Past the first buffer, pandas' own errors came out of read_columns.
    raw = b"user,item,rating,pred\n" + b"7,a,5,0.9\n" * rows
    path = tmp_path / "p.csv"
    path.write_bytes(raw + b"caf\xe9,a,1,0.2\n")  # (a column read)
    with pytest.raises(ValueError, match=rf"p\.csv, line {rows + 2}: the line is not"):
        read_columns(path, ["user", "pred"], numbers={"score": "pred"})
    path.write_bytes(raw + b'"8,c,1,0.2\n')
    with pytest.raises(ValueError, match=r"cannot read .*p\.csv' as CSV: Error tok"):
        read_columns(path, ["user", "pred"], numbers={"score": "pred"})


def test_read_columns_numbers_names_parquet_rows_by_position(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "p.parquet"
    frame = pd.DataFrame({"user": [7, 8], "pred": ["0.5", "x"]}, index=[10, 20])
    frame.to_parquet(path)
    with pytest.raises(ValueError, match=r"p\.parquet, row 1: score column 'pred'"):
        read_columns(path, ["user", "pred"], numbers={"score": "pred"})


def test_parquet_rows_named_by_position_whatever_index_was_stored(tmp_path):
    pytest.importorskip("pyarrow")
    from skndcg.io import read_predictions_chunks

    path = tmp_path / "p.parquet"
    frame = pd.DataFrame(
        {"user": [7, 7, 8], "rating": [1, 0, 1], "pred": ["1", "0", "x"]}
    )
    frame.iloc[1:].to_parquet(path)  # with its index, 1 and 2
    match = r"p\.parquet, row 1: score column 'pred' holds 'x'"
    with pytest.raises(ValueError, match=match):
        read_predictions(path, **COLS)
    with pytest.raises(ValueError, match=match):
        list(read_predictions_chunks(path, **COLS))
    with pytest.raises(ValueError, match=match):
        read_columns(path, ["user", "pred"], numbers={"score": "pred"})


def test_read_columns_refuses_a_str_and_a_repeated_name(tmp_path):
    # A str was read as its characters; a repeated name came back once.
    path = _write(tmp_path, CSV)
    with pytest.raises(
        TypeError, match=r"columns must be a list of column names, got 'user'"
    ):
        read_columns(path, "user")
    with pytest.raises(ValueError, match=r"columns names 'user' twice"):
        read_columns(path, ["user", "pred", "user"])
