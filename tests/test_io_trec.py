"""TREC run and qrels files: reading, writing and every bad file."""

import gzip
import os
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.io import _text, read_trec_qrels, read_trec_run, write_trec_run


def _write(tmp_path, text, name="f.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_run_fields_and_dtypes(tmp_path):
    path = _write(tmp_path, "301 Q0 D-1 1 12.5 bm25\n301 Q0 D-2 2 -3e-2 bm25\n")
    run = read_trec_run(path)
    assert list(run.columns) == ["qid", "doc_id", "score", "tag"]
    assert run["qid"].tolist() == ["301", "301"]
    assert run["doc_id"].tolist() == ["D-1", "D-2"]
    assert run["score"].tolist() == [12.5, -0.03]
    assert run["score"].dtype == np.float64
    assert run["tag"].tolist() == ["bm25", "bm25"]


def test_run_scores_are_read_as_double(tmp_path):
    # These two differ as doubles and collapse as float32.
    path = _write(tmp_path, "q Q0 a 1 0.1000000001 r\nq Q0 b 2 0.1000000002 r\n")
    score = read_trec_run(path)["score"].to_numpy()
    assert score[0] != score[1]
    assert np.float32(score[0]) == np.float32(score[1])


def test_whitespace_comments_blank_lines_and_extra_fields(tmp_path):
    text = (
        "# a comment line\n"
        "\n"
        "q1\tQ0  d1 1\t 3.0 run extra fields here\n"
        "   \n"
        "  # an indented comment\n"
        "q1 Q0 d#2 2 2.0 run\r\n"
        "q2 Q0 d3 1 1.0 run"  # no final newline
    )
    run = read_trec_run(_write(tmp_path, text))
    assert run["qid"].tolist() == ["q1", "q1", "q2"]
    assert run["doc_id"].tolist() == ["d1", "d#2", "d3"]
    assert run["score"].tolist() == [3.0, 2.0, 1.0]


def test_gzip_is_read_transparently(tmp_path):
    path = tmp_path / "run.txt.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("q1 Q0 d1 1 3.0 run\nq1 Q0 d2 2 2.0 run\n")
    assert read_trec_run(path)["doc_id"].tolist() == ["d1", "d2"]
    # The magic bytes decide, not the name.
    other = tmp_path / "qrels"
    other.write_bytes(gzip.compress(b"q1 0 d1 1\n"))
    assert read_trec_qrels(other)["relevance"].tolist() == [1]


def test_qrels_negative_judgments_are_kept(tmp_path):
    qrels = read_trec_qrels(_write(tmp_path, "q1 0 d1 2\nq1 0 d2 -1\nq2 0 d3 0\n"))
    assert qrels["relevance"].tolist() == [2, -1, 0]
    assert qrels["relevance"].dtype == np.int64
    assert qrels["qid"].tolist() == ["q1", "q1", "q2"]


_TOKEN = st.text(alphabet="abcXYZ019-_.#:", min_size=1, max_size=6).filter(
    lambda s: not s.startswith("#")
)
_SEP = st.sampled_from([" ", "  ", "\t", " \t "])


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(_TOKEN, _TOKEN, st.floats(-1e6, 1e6, allow_nan=False), _SEP),
        min_size=1,
        max_size=12,
    ),
    blank=st.booleans(),
)
def test_fast_paths_agree_with_the_line_scanner(tmp_path_factory, rows, blank):
    lines = [f"{q}{sep}Q0{sep}{d}{sep}1{sep}{s!r}{sep}tag" for q, d, s, sep in rows]
    if blank:
        lines.insert(len(lines) // 2, "")
    path = tmp_path_factory.mktemp("run") / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    fast = read_trec_run(path)
    exact = _text.scan(str(path), _text.RUN)
    pd.testing.assert_frame_equal(
        fast.astype({"qid": str, "tag": str, "doc_id": str}),
        exact.astype({"qid": str, "tag": str, "doc_id": str}),
    )
    assert fast["score"].tolist() == [s for _, _, s, _ in rows]


def test_write_then_read_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    qid = np.repeat(["q1", "q2", "q10"], 4)
    doc = np.array([f"d{i}" for i in range(12)])
    score = rng.normal(size=12)
    score[1] = score[2]  # a tie, written docno descending
    path = tmp_path / "run.txt.gz"
    write_trec_run(path, qid, doc, score, tag="mine")
    run = read_trec_run(path)
    pairs = zip(run["qid"], run["doc_id"], strict=True)
    got = dict(zip(pairs, run["score"], strict=True))
    assert got == dict(zip(zip(qid, doc, strict=True), score, strict=True))
    with gzip.open(path, "rt") as fh:
        lines = fh.read().splitlines()
    q1 = [line.split() for line in lines if line.startswith("q1 ")]
    assert [f[3] for f in q1] == ["1", "2", "3", "4"]
    # trec_eval order: score descending, then docno descending
    expected = sorted(range(4), key=lambda i: (score[i], doc[i]), reverse=True)
    assert [f[2] for f in q1] == [doc[i] for i in expected]
    assert {f[5] for f in map(str.split, lines)} == {"mine"}


def test_write_depth_keeps_the_best(tmp_path):
    path = tmp_path / "run.txt"
    write_trec_run(path, ["q"] * 3, ["a", "b", "c"], [1.0, 3.0, 2.0], depth=2)
    assert read_trec_run(path)["doc_id"].tolist() == ["b", "c"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"qid": ["a b"]}, "qid must be non-empty strings without whitespace"),
        ({"doc_id": [""]}, "doc_id must be non-empty strings"),
        ({"y_score": [np.inf]}, "y_score must be finite"),
        ({"tag": "two words"}, "tag must be a non-empty string"),
        ({"depth": 0}, "depth must be a positive integer"),
        # True is 1 to Python, but a bool is not a depth.
        ({"depth": True}, r"got True \(a bool, not a number of documents\)"),
        ({"depth": 2.0}, "depth must be a positive integer"),
        ({"y_score": [1.0, 2.0]}, "same length"),
    ],
)
def test_write_refuses_what_cannot_be_read_back(tmp_path, kwargs, match):
    args = {"qid": ["q"], "doc_id": ["d"], "y_score": [1.0], **kwargs}
    tag = args.pop("tag", "run")
    depth = args.pop("depth", None)
    with pytest.raises(ValueError, match=match):
        write_trec_run(tmp_path / "r.txt", **args, tag=tag, depth=depth)


def test_write_refuses_duplicate_pairs(tmp_path):
    with pytest.raises(ValueError, match="'d' appears more than once for query 'q'"):
        write_trec_run(tmp_path / "r.txt", ["q", "q"], ["d", "d"], [1.0, 2.0])


# ---------------------------------------------------------------- bad files


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"run file .*nope.txt' does not"):
        read_trec_run(tmp_path / "nope.txt")
    with pytest.raises(FileNotFoundError, match="qrels file"):
        read_trec_qrels(tmp_path / "nope.txt")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        read_trec_run(tmp_path)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n  \n"])
def test_empty_files(tmp_path, text):
    path = _write(tmp_path, text)
    with pytest.raises(ValueError, match=r"f\.txt is empty: no run line"):
        read_trec_run(path)
    with pytest.raises(ValueError, match=r"f\.txt is empty: no qrels line"):
        read_trec_qrels(path)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("q Q0 d 1 1.0 r\nq Q0 e 2 0.5\n", r"line 2: expected 6 .* got 5"),
        ("q Q0 d 1 1.0 r\n\nq\n", r"line 3: expected 6 .* got 1"),
        ("q Q0 d 1 high r\n", r"line 1: the score 'high' is not a number"),
        ("q Q0 d 1 1.0 r\nq Q0 e 2 nan r\n", r"line 2: the score 'nan' is not finite"),
        ("q Q0 d 1 inf r\n", r"line 1: the score 'inf' is not finite"),
        # float() reads 10 and 1 where trec_eval's atof() reads 1 and 0.
        ("q Q0 d 1 1_0 r\n", r"line 1: the score '1_0' is not a number"),
        ("q Q0 d 1 \uff11 r\n", r"line 1: the score '\uff11' is not a number"),
    ],
)
def test_bad_run_lines_name_file_and_line(tmp_path, text, match):
    with pytest.raises(ValueError, match=r"f\.txt, " + match):
        read_trec_run(_write(tmp_path, text))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("q 0 d 1\nq 0 e\n", r"line 2: expected 4 .* got 3"),
        ("q 0 d 1 extra\n", r"line 1: expected 4 .* got 5"),
        ("q 0 d 1\nq 0 e yes\n", r"line 2: the relevance 'yes' is not an integer"),
        ("q 0 d 1.5\n", r"line 1: the relevance '1.5' is not an integer"),
        ("q 0 d 1_0\n", r"line 1: the relevance '1_0' is not an integer"),
        ("q 0 d \u0663\n", r"line 1: the relevance '\u0663' is not an integer"),
    ],
)
def test_bad_qrels_lines_name_file_and_line(tmp_path, text, match):
    with pytest.raises(ValueError, match=r"f\.txt, " + match):
        read_trec_qrels(_write(tmp_path, text))


def test_bad_line_in_a_large_file_is_found(tmp_path):
    lines = [f"q{i % 7} Q0 d{i} 1 {i}.5 run" for i in range(5000)]
    lines[4321] = "q1 Q0 d4321 1 4321.5"  # the tag is missing
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"line 4322: expected 6"):
        read_trec_run(path)


@pytest.mark.parametrize("tag", ["run", "r\u00e4n"])  # the byte scanner, the line one
def test_number_trec_eval_reads_otherwise_is_refused_in_a_large_file(tmp_path, tag):
    lines = [f"q{i % 7} Q0 d{i} 1 {i}.5 {tag}" for i in range(5000)]
    lines[4321] = f"q1 Q0 d4321 1 43_21 {tag}"
    with pytest.raises(ValueError, match=r"line 4322: the score '43_21' is not a"):
        read_trec_run(_write(tmp_path, "\n".join(lines) + "\n"))


def test_duplicate_judgment_names_the_pair_and_lines(tmp_path):
    path = _write(tmp_path, "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(
        ValueError,
        match=r"f\.txt, lines 1, 4: document 'd1' appears more than "
        r"once for query 'q1'.*duplicate docs",
    ):
        read_trec_qrels(path)


def test_not_utf8(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"q Q0 d\xff 1 1.0 r\n")
    with pytest.raises(ValueError, match=r"line 1: the line is not valid UTF-8"):
        read_trec_run(path)


@pytest.mark.parametrize("text", [True, False])
def test_fields_as_bytes_are_checked_utf8_as_the_text_ones(tmp_path, text):
    # The column reader may leave ids as bytes (text=False); an ASCII file, a
    # UTF-8 one and a broken one are read or refused as with text=True.
    path = tmp_path / "f.txt"
    path.write_bytes("q Q0 d 1 1.0 r\nq Q0 \u00e9 2 0.5 r\n".encode())
    got = _text.columns(path, _text.RUN, text=text)
    assert [_text_of(v) for v in got["doc_id"]] == ["d", "\u00e9"]
    path.write_bytes(b"q Q0 d 1 1.0 r\nq Q0 \xc3 2 0.5 r\n")
    with pytest.raises(ValueError, match=r"line 2: the line is not valid UTF-8"):
        _text.columns(path, _text.RUN, text=text)


def _text_of(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


@pytest.mark.parametrize("odd", ["\x0b", "\x0c", "\t"])
def test_any_c_whitespace_separates_fields(tmp_path, odd):
    # trec_eval splits on isspace(): vertical tab and form feed too.
    # Seven fields: the rank is "x", the score 1, the tag "2.0"; "r" is ignored.
    path = _write(tmp_path, f"q1 Q0 d1{odd}x 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    run = read_trec_run(path)
    assert run["doc_id"].tolist() == ["d1", "d2"]
    assert run["score"].tolist() == [1.0, 1.0]
    assert run["tag"].tolist() == ["2.0", "r"]
    path = _write(tmp_path, f"q1{odd}Q0{odd}d1 1 2.0 r\n")
    assert read_trec_run(path)["doc_id"].tolist() == ["d1"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_pipes_are_refused_by_name_without_waiting(tmp_path):
    # A pipe (no writer here) is never opened: opening it would wait forever,
    # and reading it twice would lose its start.
    fifo = tmp_path / "run.pipe"
    os.mkfifo(fifo)
    from skndcg.io import read_predictions

    def predictions(path):
        return read_predictions(path, qid="q", label="y", score="s")

    readers = [
        (read_trec_run, "run file"),
        (read_trec_qrels, "qrels file"),
        (predictions, "predictions file"),
    ]
    for read, what in readers:
        message = re.escape(f"{what} '{fifo}' is not a regular file")
        with pytest.raises(ValueError, match=message):
            read(fifo)
