"""One file, one answer: odd TREC and predictions files through every door.

Each file of the corpus is scored by the Python API (``read_*`` and
``join_run_qrels``, then the metric functions), by ``skndcg score`` in memory and
streamed (the streaming thresholds set to 0 through the environment), by
``score_trec_run`` / ``score_parquet``, and (Parquet) by ``skndcg.dask``. Every
door must give the same means, bit for bit, or the same error message.
"""

import contextlib
import gzip
import io
import json

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import skndcg.dask as sd
from skndcg.cli import main
from skndcg.io import join_run_qrels, read_predictions, read_trec_qrels, read_trec_run
from skndcg.metrics import grouped_ranking_scores
from skndcg.streaming import score_parquet, score_trec_run

METRICS = ["map", "ndcg@3", "p@2", "mrr"]
_PREFIX = "skndcg score: error: "


def _one_line(text):
    return " ".join(str(text).split())


def _error(exc):
    return ("error", _one_line(exc))


def _means(values, names=METRICS):
    return ("means", {m: float(values[m]) for m in names})


def _cli(argv, monkeypatch, env=None, names=METRICS):
    with monkeypatch.context() as m:
        for key, value in (env or {}).items():
            m.setenv(key, value)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["score", *map(str, argv), "--format", "json"])
    if code:
        text = err.getvalue().strip()
        assert text.startswith(_PREFIX), text
        return ("error", _one_line(text[len(_PREFIX) :]))
    return _means(json.loads(out.getvalue())["mean"], names)


# --------------------------------------------------------------------------- TREC


def _trec_api(run, qrels, names=METRICS, popularity=None):
    items = {} if popularity is None else {"popularity": popularity}
    try:
        data = join_run_qrels(read_trec_run(run), read_trec_qrels(qrels))
        if items:
            items["item_id"] = data.doc_id
        return _means(
            grouped_ranking_scores(
                data.y_true, data.y_score, data.qid, metrics=names,
                convention="trec_eval", nan_score="unretrieved", doc_id=data.doc_id,
                **items,
            ),
            names,
        )  # fmt: skip
    except ValueError as exc:
        return _error(exc)


def _trec_streamed(run, qrels, names=METRICS, **kw):
    try:
        return _means(score_trec_run(run, qrels, names, **kw), names)
    except ValueError as exc:
        return _error(exc)


def trec_doors(run, qrels, monkeypatch, popularity=None):
    """Each door's answer; ``popularity`` (``(counts, file)``) adds the per-user
    popularity measures, which read each document's training count."""
    names, flags, kw = METRICS, [], {}
    if popularity is not None:
        names = METRICS + BEYOND
        flags, kw = ["--popularity", popularity[1]], {"popularity": popularity[0]}
    argv = [run, "--qrels", qrels, *flags, "--metrics", *names]
    streamed = {"SKNDCG_STREAM_BYTES": "0"}
    return {
        "api": _trec_api(run, qrels, names, kw.get("popularity")),
        "cli": _cli(argv, monkeypatch, names=names),
        "cli streamed": _cli(argv, monkeypatch, streamed, names),
        "score_trec_run": _trec_streamed(run, qrels, names, **kw),
        "score_trec_run, 2 lines a batch": _trec_streamed(
            run, qrels, names, batch_lines=2, **kw
        ),
    }


QRELS = b"1 0 a 1\n1 0 b 1\n2 0 c 1\n2 0 e 2\n10 0 a 1\n"
RUN = (
    b"1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n1 Q0 b 3 1 t\n"
    b"2 Q0 d 1 5 t\n2 Q0 c 2 4 t\n2 Q0 x 3 4 t\n"
    b"7 Q0 a 1 1 t\n"
)

# name: (run bytes, qrels bytes); each is scored through every door.
TREC_CASES = {
    "clean": (RUN, QRELS),
    "padded query ids and a 7th field": (
        RUN.replace(b"1 Q0", b"01 Q0").replace(b"5 t\n", b"5 t extra\n"),
        QRELS,
    ),
    "a leading BOM": (b"\xef\xbb\xbf" + RUN, QRELS),
    "a leading BOM and a comment": (b"\xef\xbb\xbf# run\n" + RUN, QRELS),
    "a BOM in the qrels": (RUN, b"\xef\xbb\xbf" + QRELS),
    "CRLF": (RUN.replace(b"\n", b"\r\n"), QRELS.replace(b"\n", b"\r\n")),
    "CR only": (RUN.replace(b"\n", b"\r"), QRELS.replace(b"\n", b"\r")),
    "no newline at the end": (RUN.rstrip(b"\n"), QRELS.rstrip(b"\n")),
    "tabs and runs of spaces": (RUN.replace(b" Q0 ", b"\tQ0  \t"), QRELS),
    "a # inside a doc id": (RUN.replace(b" d ", b" d#1 "), QRELS),
    "a 7-field first line": (RUN.replace(b"3 t\n", b"3 t x\n", 1), QRELS),
    "comments and blank lines": (
        b"# header\n\n" + RUN.replace(b"2 Q0 d", b"  \n# x\n2 Q0 d"),
        b"\n# q\n" + QRELS,
    ),
    "scores in every spelling": (
        RUN.replace(b" 3 t", b" 3.0e0 t").replace(b" 5 t", b" +5. t"),
        QRELS,
    ),
    "negative relevance": (RUN, QRELS.replace(b"2 0 e 2", b"2 0 e -1")),
    "non-ASCII doc ids": (RUN.replace(b" c ", " cé ".encode()), QRELS),
    # errors: every door must give the same message
    "a 5-field qrels line": (RUN, QRELS.replace(b"2 0 c 1\n", b"2 0 c 1 x\n")),
    "a 5-field run line": (RUN.replace(b"2 Q0 d 1 5 t", b"2 Q0 d 1 5"), QRELS),
    "a duplicate in the run": (
        RUN.replace(b"2 Q0 x 3 4 t\n", b"2 Q0 x 3 4 t\n2 Q0 d 4 1 t\n"),
        QRELS,
    ),
    "a duplicate in the qrels": (RUN, QRELS + b"1 0 a 0\n"),
    "a nan score": (RUN.replace(b" 4 t", b" nan t", 1), QRELS),
    "an infinite score": (RUN.replace(b" 4 t", b" -inf t", 1), QRELS),
    "a score that is text": (RUN.replace(b" 4 t", b" high t", 1), QRELS),
    "a truncated last line": (RUN + b"2 Q0 z", QRELS),
    "a relevance of 1.5": (RUN, QRELS.replace(b"2 0 c 1", b"2 0 c 1.5")),
    "a relevance beyond int64": (
        RUN,
        QRELS.replace(b"2 0 c 1", b"2 0 c 1" + b"0" * 20),
    ),
    "invalid UTF-8": (RUN.replace(b" c ", b" c\xff "), QRELS),
    "a score with a digit separator": (RUN.replace(b" 4 t", b" 1_0 t", 1), QRELS),
    "a relevance in Arabic-Indic digits": (
        RUN,
        QRELS.replace(b"2 0 c 1", "2 0 c \u0661".encode()),
    ),
    "an empty run": (b"", QRELS),
    "a run of comments only": (b"# nothing\n\n", QRELS),
}


def _write(folder, name, data):
    path = folder / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("case", sorted(TREC_CASES))
def test_trec_files_give_one_answer_through_every_door(tmp_path, monkeypatch, case):
    run_bytes, qrels_bytes = TREC_CASES[case]
    run = _write(tmp_path, "run.txt", run_bytes)
    qrels = _write(tmp_path, "qrels.txt", qrels_bytes)
    got = trec_doors(run, qrels, monkeypatch)
    assert len({repr(v) for v in got.values()}) == 1, got
    if case in ("clean", "a leading BOM", "CRLF", "CR only", "tabs and runs of spaces"):
        assert got["api"] == trec_doors(*_clean(tmp_path), monkeypatch)["api"]


BEYOND = ["novelty@2", "arp@2", "aplt(long_tail=0.5)@3", "serendipity@2"]
# Every document of every case (the judged ones the run missed too).
COUNTS = {"a": 9, "b": 4, "c": 2, "c\u00e9": 2, "d": 1, "d#1": 1, "e": 3, "x": 5}


@pytest.mark.parametrize("case", sorted(TREC_CASES))
def test_popularity_measures_give_one_answer_through_every_door(
    tmp_path, monkeypatch, case
):
    run_bytes, qrels_bytes = TREC_CASES[case]
    run = _write(tmp_path, "run.txt", run_bytes)
    qrels = _write(tmp_path, "qrels.txt", qrels_bytes)
    text = "".join(f"{item} {n}\n" for item, n in COUNTS.items())
    pop = _write(tmp_path, "popularity.txt", text.encode())
    got = trec_doors(run, qrels, monkeypatch, (COUNTS, pop))
    assert len({repr(v) for v in got.values()}) == 1, got
    if got["api"][0] == "means":  # the measures without popularity are unmoved
        plain = trec_doors(run, qrels, monkeypatch)["api"][1]
        assert {m: got["api"][1][m] for m in METRICS} == plain


def test_an_item_missing_from_popularity_is_one_message_at_every_door(
    tmp_path, monkeypatch
):
    # A measure named as a metric has no missing= option: the message says so.
    run = _write(tmp_path, "run.txt", RUN)
    qrels = _write(tmp_path, "qrels.txt", QRELS)
    lacking = {k: v for k, v in COUNTS.items() if k not in ("x", "e")}
    pop = _write(tmp_path, "popularity.txt", b"".join(
        f"{item} {n}\n".encode() for item, n in lacking.items()
    ))  # fmt: skip
    got = trec_doors(run, qrels, monkeypatch, (lacking, pop))
    assert len({repr(v) for v in got.values()}) == 1, got
    kind, message = got["api"]
    assert kind == "error" and "2 recommended item(s) are missing" in message
    assert "(first 'x')" in message and "Pass missing=" not in message
    assert "Give each one a count in popularity" in message


def _clean(tmp_path):
    return (
        _write(tmp_path, "clean-run.txt", RUN),
        _write(tmp_path, "clean-qrels.txt", QRELS),
    )


def test_errors_name_file_line_and_text(tmp_path, monkeypatch):
    run_bytes, qrels_bytes = TREC_CASES["a 5-field run line"]
    run = _write(tmp_path, "run.txt", run_bytes)
    qrels = _write(tmp_path, "qrels.txt", qrels_bytes)
    kind, message = trec_doors(run, qrels, monkeypatch)["cli streamed"]
    assert kind == "error"
    assert message.startswith(f"{run}, line 4: expected 6 ")
    assert "'2 Q0 d 1 5'" in message and "reads like" in message
    run = _write(tmp_path, "run.txt", TREC_CASES["a relevance beyond int64"][0])
    qrels = _write(tmp_path, "q.txt", TREC_CASES["a relevance beyond int64"][1])
    kind, message = trec_doors(run, qrels, monkeypatch)["api"]
    assert message.startswith(f"{qrels}, line 3: the relevance ")
    assert "beyond the 64-bit integers" in message


def test_padded_query_ids_are_strings_as_trec_eval_reads_them(tmp_path, monkeypatch):
    # Query "01" is not query "1": its judgments are never retrieved.
    run = _write(tmp_path, "run.txt", b"01 Q0 a 1 2 t x\n1 Q0 b 1 1 t\n")
    qrels = _write(tmp_path, "qrels.txt", b"1 0 a 1\n1 0 b 1\n")
    got = trec_doors(run, qrels, monkeypatch)
    assert len({repr(v) for v in got.values()}) == 1, got
    # Query 1 ranks b (relevant) first; a is judged but unretrieved: AP 1/2.
    assert got["api"][1]["map"] == 0.5
    assert got["api"][1]["p@2"] == 0.5


def test_cr_only_is_two_lines(tmp_path, monkeypatch):
    run = _write(tmp_path, "run.txt", b"1 Q0 a 1 2 t\r2 Q0 b 1 1 t\r")
    qrels = _write(tmp_path, "qrels.txt", b"1 0 a 1\r2 0 c 1\r")
    got = trec_doors(run, qrels, monkeypatch)
    assert len({repr(v) for v in got.values()}) == 1, got
    assert got["api"][1]["map"] == 0.5  # query 1: 1.0, query 2: 0.0


@pytest.mark.parametrize("how", ["gzip", "corrupt gzip", "truncated gzip"])
def test_gzip_files(tmp_path, monkeypatch, how):
    data = gzip.compress(RUN)
    if how == "corrupt gzip":
        data = data[:12] + bytes(b ^ 0x55 for b in data[12:20]) + data[20:]
    elif how == "truncated gzip":
        data = data[: len(data) // 2]
    run = _write(tmp_path, "run.txt.gz", data)
    qrels = _write(tmp_path, "qrels.txt", QRELS)
    got = trec_doors(run, qrels, monkeypatch)
    assert len({repr(v) for v in got.values()}) == 1, got
    if how == "gzip":
        assert got["api"] == trec_doors(*_clean(tmp_path), monkeypatch)["api"]
    else:
        assert got["api"][0] == "error" and run in got["api"][1]


# -------------------------------------------------------------------- predictions

COLUMNS = {"qid": "user", "label": "rating", "score": "pred", "doc": "item"}
CLI_COLUMNS = ["--qid", "user", "--label", "rating", "--score", "pred", "--doc", "item"]


def _pred_api(path):
    try:
        data = read_predictions(path, **COLUMNS)
        return _means(
            grouped_ranking_scores(
                data.y_true, data.y_score, data.qid, metrics=METRICS,
                convention="trec_eval", nan_score="unretrieved", doc_id=data.doc_id,
            )
        )  # fmt: skip
    except ValueError as exc:
        return _error(exc)


def _pred_streamed(path):
    try:
        return _means(
            score_parquet(
                path, METRICS, qid_col="user", label_col="rating", score_col="pred",
                doc_col="item", convention="trec_eval", nan_score="unretrieved",
                batch_size=2,
            )
        )  # fmt: skip
    except ValueError as exc:
        return _error(exc)


def _pred_dask(path):
    with dask.config.set(scheduler="synchronous"):
        ddf = dd.read_parquet(path)
        return _means(
            sd.grouped_ranking_scores(
                ddf, METRICS, qid_col="user", label_col="rating", score_col="pred",
                doc_col="item", convention="trec_eval", nan_score="unretrieved",
            )
        )  # fmt: skip


def predictions_doors(path, monkeypatch):
    argv = [path, *CLI_COLUMNS, "--metrics", *METRICS, "--convention", "trec_eval"]
    doors = {"api": _pred_api(path), "cli": _cli(argv, monkeypatch)}
    if path.endswith((".parquet", ".parq")):
        env = {"SKNDCG_STREAM_ROWS": "0"}
        doors["cli streamed"] = _cli(argv, monkeypatch, env)
        doors["score_parquet"] = _pred_streamed(path)
        if doors["api"][0] == "means":
            doors["dask"] = _pred_dask(path)
    return doors


PRED = "user,item,rating,pred\na,x,1,0.9\na,y,0,0.5\na,z,1,0.1\nb,u,0,0.8\nb,v,2,0.3\n"

CSV_CASES = {
    "clean": PRED,
    "a BOM": "\ufeff" + PRED,
    "CRLF": PRED.replace("\n", "\r\n"),
    "no newline at the end": PRED.rstrip("\n"),
    "an empty score: judged, not retrieved": PRED + "b,w,1,\n",
    "a truncated last line": PRED + "b,1",
    "a field too many": PRED.replace("a,y,0,0.5", "a,y,0,0.5,7"),
    "a duplicated row": PRED + "a,x,1,0.9\n",
    "a label that is text": PRED.replace("a,y,0,", "a,y,zero,"),
    "an infinite score": PRED.replace("0.5", "inf"),
    "a score with a digit separator": PRED.replace("0.5", "1_0"),
    # (a lone surrogate is written as the byte 0xe9: Latin-1's "é")
    "a line that is not UTF-8": PRED.replace("b,v,", "b,v\udce9,"),
}


@pytest.mark.parametrize("case", sorted(CSV_CASES))
def test_csv_files_give_one_answer_through_every_door(tmp_path, monkeypatch, case):
    path = tmp_path / "pred.csv"
    path.write_bytes(CSV_CASES[case].encode("utf-8", "surrogateescape"))
    got = predictions_doors(str(path), monkeypatch)
    assert len({repr(v) for v in got.values()}) == 1, got
    if case in ("a BOM", "CRLF", "no newline at the end"):
        clean = tmp_path / "clean.csv"
        clean.write_text(PRED)
        assert got["api"] == predictions_doors(str(clean), monkeypatch)["api"]


def _frame():
    return pd.read_csv(io.StringIO(PRED), dtype={"user": str, "item": str})


PARQUET_CASES = {
    "clean": lambda: pa.Table.from_pandas(_frame(), preserve_index=False),
    "padded string ids": lambda: pa.Table.from_pandas(
        _frame().assign(user=["01", "01", "01", "1", "1"]), preserve_index=False
    ),
    "integer ids": lambda: pa.Table.from_pandas(
        _frame().assign(user=[7, 7, 7, 8, 8]), preserve_index=False
    ),
    "tied scores broken by doc id": lambda: pa.Table.from_pandas(
        _frame().assign(pred=[0.5, 0.5, 0.5, 0.3, 0.3]), preserve_index=False
    ),
    "a missing score": lambda: pa.Table.from_pandas(
        _frame().assign(pred=[0.9, None, 0.1, 0.8, 0.3]), preserve_index=False
    ),
    "a duplicated row": lambda: pa.Table.from_pandas(
        pd.concat([_frame(), _frame().iloc[[4]]], ignore_index=True),
        preserve_index=False,
    ),
    "a query id column of lists": lambda: pa.table(
        {
            "user": [["a"], ["a"], ["a"], ["b"], ["b"]],
            **{c: _frame()[c].tolist() for c in ("item", "rating", "pred")},
        }
    ),
    "a missing label": lambda: pa.Table.from_pandas(
        _frame().assign(rating=[1, None, 1, 0, 2]), preserve_index=False
    ),
    "a missing query id": lambda: pa.Table.from_pandas(
        _frame().assign(user=["a", "a", None, "b", "b"]), preserve_index=False
    ),
}


@pytest.mark.parametrize("suffix", [".parquet", ".parq"])
@pytest.mark.parametrize("case", sorted(PARQUET_CASES))
def test_parquet_files_give_one_answer_through_every_door(
    tmp_path, monkeypatch, case, suffix
):
    path = str(tmp_path / f"pred{suffix}")
    pq.write_table(PARQUET_CASES[case](), path, row_group_size=2)
    got = predictions_doors(path, monkeypatch)
    assert "score_parquet" in got and "cli streamed" in got
    assert len({repr(v) for v in got.values()}) == 1, got


def test_parquet_errors_name_the_file_row(tmp_path, monkeypatch):
    frame = pd.concat([_frame()] * 3, ignore_index=True)
    frame["user"] = np.repeat([f"q{i}" for i in range(5)], 3)
    frame["item"] = [f"d{i}" for i in range(15)]
    frame.loc[11, "rating"] = None
    path = str(tmp_path / "pred.parquet")
    frame.to_parquet(path, row_group_size=4)
    got = predictions_doors(path, monkeypatch)
    assert len({repr(v) for v in got.values()}) == 1, got
    assert got["api"] == (
        "error",
        f"{path}, row 11: label column 'rating' is empty; every row needs one.",
    )


def test_the_thresholds_send_files_down_the_streamed_path(tmp_path, monkeypatch):
    # The one input the doors treat differently: a streamed file must hold each
    # query's rows together. So an ungrouped file shows which path was taken.
    run = _write(tmp_path, "run.txt", RUN + b"1 Q0 z 9 0.5 t\n")
    qrels = _write(tmp_path, "qrels.txt", QRELS)
    argv = [run, "--qrels", qrels, "--metrics", *METRICS]
    assert _cli(argv, monkeypatch)[0] == "means"
    kind, message = _cli(argv, monkeypatch, {"SKNDCG_STREAM_BYTES": "0"})
    assert kind == "error" and "rows are not grouped" in message
    frame = pd.concat([_frame(), _frame().iloc[[0]].assign(item="w")])
    path = str(tmp_path / "pred.parq")
    frame.to_parquet(path, index=False)
    argv = [path, *CLI_COLUMNS, "--metrics", *METRICS]
    assert _cli(argv, monkeypatch)[0] == "means"
    kind, message = _cli(argv, monkeypatch, {"SKNDCG_STREAM_ROWS": "0"})
    assert kind == "error" and "rows are not grouped" in message
    kind, message = _cli(argv, monkeypatch, {"SKNDCG_STREAM_ROWS": "many"})
    assert message.startswith("the environment variable SKNDCG_STREAM_ROWS must")


# A duplicated (qid, doc) row is refused by the predictions reader, whatever the
# convention: under one that breaks ties by doc id and under one that does not.
DUPLICATE_CONVENTIONS = ["trec_eval", "skndcg", "lightgbm"]


def _duplicated_parquet(tmp_path):
    path = str(tmp_path / "dup.parquet")
    frame = pd.concat([_frame(), _frame().iloc[[4]]], ignore_index=True)
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path,
                   row_group_size=2)  # fmt: skip
    return path


def _duplicate_doors(path, monkeypatch, convention, streamed_cli):
    argv = [path, *CLI_COLUMNS, "--metrics", *METRICS, "--convention", convention]
    doors = {"cli": _cli(argv, monkeypatch)}
    if streamed_cli:
        doors["cli streamed"] = _cli(argv, monkeypatch, {"SKNDCG_STREAM_ROWS": "0"})
    try:
        data = read_predictions(path, **COLUMNS)
        doors["api"] = _means(
            grouped_ranking_scores(
                data.y_true, data.y_score, data.qid, metrics=METRICS,
                convention=convention, doc_id=data.doc_id,
            )
        )  # fmt: skip
    except ValueError as exc:
        doors["api"] = _error(exc)
    for batch_size in (1, 2, 100):
        try:
            doors[f"score_parquet {batch_size}"] = _means(
                score_parquet(
                    path, METRICS, qid_col="user", label_col="rating",
                    score_col="pred", doc_col="item", convention=convention,
                    batch_size=batch_size,
                )
            )  # fmt: skip
        except ValueError as exc:
            doors[f"score_parquet {batch_size}"] = _error(exc)
    return doors


@pytest.mark.parametrize("convention", DUPLICATE_CONVENTIONS)
def test_a_duplicated_doc_row_is_one_error_whatever_the_convention(
    tmp_path, monkeypatch, convention
):
    path = _duplicated_parquet(tmp_path)
    streamed_cli = convention == "trec_eval"  # see the test below for the others
    got = _duplicate_doors(path, monkeypatch, convention, streamed_cli)
    assert set(got.values()) == {
        (
            "error",
            f"{path}, rows 4, 5: document 'v' appears more than once for query "
            "'b'; keep one row per (query, document) pair.",
        )
    }, got


@pytest.mark.parametrize("convention", ["skndcg", "lightgbm"])
def test_the_streamed_command_line_refuses_a_duplicated_doc_row_too(
    tmp_path, monkeypatch, convention
):
    path = _duplicated_parquet(tmp_path)
    got = _duplicate_doors(path, monkeypatch, convention, streamed_cli=True)
    assert len(set(got.values())) == 1, got


def test_a_query_split_in_the_file_is_refused_streamed_naming_its_rows(
    tmp_path, monkeypatch
):
    # In memory a query's rows may be anywhere (documented); streamed, the
    # error names the query, the rows it was on and the row it comes back at.
    frame = pd.concat([_frame(), _frame().iloc[[0]].assign(item="w")])
    path = str(tmp_path / "split.parquet")
    frame.to_parquet(path, index=False, row_group_size=2)
    argv = [path, *CLI_COLUMNS, "--metrics", *METRICS]
    assert _cli(argv, monkeypatch)[0] == "means"
    want = (
        f"{path}: rows are not grouped by query id: user='a' is on rows 0-2, then "
        "again from row 5 on, after rows of other queries."
    )
    streamed = _cli(argv, monkeypatch, {"SKNDCG_STREAM_ROWS": "0"})
    assert streamed[0] == "error" and streamed[1].startswith(want), streamed
    for batch_size in (1, 2, 3, 100):
        with pytest.raises(ValueError) as err:
            score_parquet(
                path, METRICS, qid_col="user", label_col="rating", score_col="pred",
                doc_col="item", batch_size=batch_size,
            )  # fmt: skip
        assert _one_line(err.value) == streamed[1]
