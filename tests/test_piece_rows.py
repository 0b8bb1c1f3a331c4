"""A refused row is named where the caller's table has it, at every door.

The engine numbers rows from 0 in the arrays it is given. Dask, Spark and a
Parquet stream score pieces of the table, so the engine's row is
the piece's: each door names the row as the caller can find it (a row of a
partition, a row of the file, a query), and leaves out the count, which would
be the piece's alone.
"""

import pickle
import re

import numpy as np
import pandas as pd
import pytest
from scale_cases import local_cluster

import skndcg.dask as sd
from skndcg.metrics import grouped_ranking_scores
from skndcg.metrics._core._validate import RowsError
from skndcg.streaming import score_parquet

COLS = dict(qid_col="qid", label_col="label", score_col="score")


def frame(seed=0, n_queries=12):
    rng = np.random.default_rng(seed)
    qid = rng.permutation(np.repeat(np.arange(n_queries), 4))  # interleaved
    return pd.DataFrame(
        {"qid": qid, "label": rng.integers(0, 3, qid.size).astype(float),
         "score": rng.random(qid.size)}
    )  # fmt: skip


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def test_in_memory_message_counts_and_numbers_from_zero():
    df = frame()
    df.loc[[13, 30], "label"] = np.nan
    with pytest.raises(ValueError) as got:
        grouped_ranking_scores(df["label"], df["score"], df["qid"], ["ndcg@3"])
    assert str(got.value).startswith(
        "y_true contains 2 NaN or infinite value(s) (first at row 13: nan); "
        "every y_true value must be finite. A NaN label can mark a row nobody "
        "judged: pass nan_label='unjudged'."
    )


def test_the_refusal_travels_whole_between_processes():
    err = RowsError("x has {count}bad value(s) ({at}).", 3, 7)
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), str(back), back.row, back.count) == (
        RowsError, "x has 3 bad value(s) (first at row 7).", 7, 3,
    )  # fmt: skip
    assert str(back.placed("one at row 2 of a piece")) == (
        "x has bad value(s) (one at row 2 of a piece)."
    )
    assert (
        str(err.hinted("Use {braces}."))
        == "x has 3 bad value(s) (first at row 7). Use {braces}."
    )


@pytest.mark.parametrize("by_qid", [False, True])
@pytest.mark.parametrize("column, value", [("label", np.nan), ("score", np.inf)])
def test_dask_names_the_partition_row(client, by_qid, column, value):
    import dask.dataframe as dd

    df = frame(seed=1)
    if by_qid:  # each query in one partition, no shuffle
        df = df.sort_values("qid", kind="stable", ignore_index=True)
    bad = 29
    df.loc[bad, column] = value
    ddf = dd.from_pandas(df, npartitions=3)
    with pytest.raises(ValueError) as got:
        sd.grouped_ranking_scores(ddf, ["ndcg@3"], **COLS, partitioned_by_qid=by_qid)
    text = str(got.value)
    name = "y_true" if column == "label" else "y_score"
    assert text.startswith(f"{name} contains NaN or infinite value(s) (one at row ")
    row, number = map(
        int, re.search(r"row (\d+) of ddf\.partitions\[(\d+)\]", text).groups()
    )
    # The row named is the bad row of the frame the caller gave.
    part = ddf.partitions[number].compute()
    assert part.index[row] == bad


def test_the_lazy_dask_report_names_the_partition_row(client):
    import dask.dataframe as dd

    df = frame(seed=3)
    df.loc[17, "score"] = np.nan
    ddf = dd.from_pandas(df, npartitions=4)
    report = sd.ranking_report(ddf, metrics=["ndcg@3"], **COLS)
    with pytest.raises(ValueError) as got:
        report.compute()
    found = re.search(r"one at row (\d+) of ddf\.partitions\[(\d+)\]", str(got.value))
    row, number = map(int, found.groups())
    assert ddf.partitions[number].compute().index[row] == 17


@pytest.mark.parametrize("column, name", [("label", "y_true"), ("score", "y_score")])
def test_dask_refuses_a_text_column_before_scoring(column, name):
    # A column of strings (a CSV read without dtypes) is refused from the
    # frame's dtypes, before any partition is computed or the largest label
    # is looked for (err reads it); it used to fail building the report's
    # template, with "Cannot interpret '<StringDtype>' as a data type".
    import dask.dataframe as dd

    df = frame(seed=4)
    df[column] = df[column].astype(str)
    ddf = dd.from_pandas(df, npartitions=2)
    want = (
        f"{name} must be numeric, got {column}_col={column!r}, a column of "
        f"{ddf.dtypes[column]} in ddf; convert it to numbers explicitly."
    )
    for call in (sd.grouped_ranking_scores, sd.ranking_report):
        with pytest.raises(TypeError) as got:
            call(ddf, metrics=["ndcg@3", "err@3"], **COLS)
        assert str(got.value) == want


def test_a_value_of_the_wrong_type_is_named_where_the_table_has_it(client):
    # An object column holding one string among numbers (Dask keeps it as
    # objects when it does not convert them to text).
    import dask
    import dask.dataframe as dd

    df = frame(seed=5)
    df["label"] = df["label"].astype(object)
    df.loc[21, "label"] = "2"
    with pytest.raises(TypeError) as got:
        grouped_ranking_scores(df["label"], df["score"], df["qid"], ["ndcg@3"])
    assert str(got.value) == (
        "y_true must be numeric, got '2' (str) (first at row 21); convert it to "
        "numbers explicitly."
    )
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=3)
        assert ddf.dtypes["label"].kind == "O"
        with pytest.raises(TypeError) as got:
            sd.grouped_ranking_scores(ddf, ["ndcg@3"], **COLS)
    text = str(got.value)
    assert text.startswith("y_true must be numeric, got '2' (str) (one at row ")
    row, number = map(
        int, re.search(r"row (\d+) of ddf\.partitions\[(\d+)\]", text).groups()
    )
    assert ddf.partitions[number].compute().index[row] == 21


@pytest.mark.parametrize("by_qid", [False, True])
def test_the_largest_label_reads_an_object_column_as_the_pieces_do(client, by_qid):
    # err reads the largest label of all the rows: it is taken from the labels
    # as the pieces read them, so a string among them is refused by its row
    # as for every other measure (it failed inside pandas with "'>=' not
    # supported"), whether the frame is shuffled or not.
    import dask
    import dask.dataframe as dd

    df = frame(seed=5)
    if by_qid:
        df = df.sort_values("qid", kind="stable", ignore_index=True)
    df["label"] = df["label"].astype(object)
    df.loc[21, "label"] = "2"
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=3)
        messages = []
        for metrics in (["ndcg@3"], ["err@3"], ["ndcg@3", "err@3"]):
            with pytest.raises(TypeError, match="y_true must be numeric") as got:
                sd.grouped_ranking_scores(
                    ddf, metrics, **COLS, partitioned_by_qid=by_qid
                )
            messages.append(str(got.value))
    assert len(set(messages)) == 1
    row, number = map(
        int, re.search(r"row (\d+) of ddf\.partitions\[(\d+)\]", messages[0]).groups()
    )
    assert ddf.partitions[number].compute().index[row] == 21


@pytest.mark.parametrize("by_qid", [False, True])
def test_dask_reads_a_missing_object_value_as_memory_does(client, by_qid):
    # None in an object label or score column: refused naming its row
    # without nan_label / nan_score, read as the NaN they accept with them,
    # whether the frame is shuffled (the columns become float64 before the
    # shuffle) or not.
    import dask
    import dask.dataframe as dd

    from skndcg.dask._frame import lay_out

    df = frame(seed=6)
    if by_qid:
        df = df.sort_values("qid", kind="stable", ignore_index=True)
    df = df.astype({"label": object, "score": object})
    df.loc[9, "label"] = df.loc[30, "score"] = None
    metrics = ["ndcg@3", "bpref"]
    nan = dict(nan_label="unjudged", nan_score="unretrieved")
    want = grouped_ranking_scores(
        df["label"].astype(float), df["score"].astype(float), df["qid"], metrics,
        **nan,
    )  # fmt: skip
    assert grouped_ranking_scores(df["label"], df["score"], df["qid"], metrics,
                                  **nan) == want  # fmt: skip
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=3)
        got = sd.grouped_ranking_scores(
            ddf, metrics, **COLS, partitioned_by_qid=by_qid, **nan
        )
        assert got == pytest.approx(want, rel=1e-15)
        with pytest.raises(ValueError) as info:
            sd.grouped_ranking_scores(ddf, metrics, **COLS, partitioned_by_qid=by_qid)
        if not by_qid:
            layout = lay_out(ddf, dict(COLS, doc_col=None, sample_weight_col=None,
                                       item_col=None), False, nan)  # fmt: skip
            assert layout.frame.dtypes[["label", "score"]].tolist() == [float] * 2
    # The partition that fails first names its own bad row.
    name, row, number = re.match(
        r"(y_true|y_score) has missing value\(s\) \(one at row (\d+) of "
        r"ddf\.partitions\[(\d+)\]\); every row needs a value\.$",
        str(info.value),
    ).groups()
    at = ddf.partitions[int(number)].compute().index[int(row)]
    assert at == {"y_true": 9, "y_score": 30}[name]


@pytest.mark.parametrize("case", ["item", "weight"])
def test_parquet_names_the_file_row(tmp_path, case):
    # The reader checks labels and scores itself; item ids and weights are
    # checked by the engine, piece by piece.
    df = frame(seed=2).sort_values("qid", kind="stable", ignore_index=True)
    df["item"] = [f"i{j % 7}" for j in range(len(df))]
    df["w"] = df["qid"] + 1.0
    if case == "item":
        df.loc[[22, 40], "item"] = None
        extra = dict(item_col="item", popularity={f"i{j}": j + 1 for j in range(7)})
        metrics, want = (
            ["arp@3"],
            "item_id has missing value(s) (first at row 22 of the file)",
        )
    else:
        df.loc[[22, 23, 40], "w"] = np.nan
        extra = dict(sample_weight_col="w")
        metrics = ["ndcg@3"]
        want = (
            "sample_weight contains NaN or infinite value(s) (first at row 22 of "
            "the file: nan)"
        )
    path = tmp_path / "rows.parquet"
    df.to_parquet(path, row_group_size=5)
    with pytest.raises(ValueError) as got:
        score_parquet(path, metrics, **COLS, **extra, batch_size=8)
    assert str(got.value).startswith(f"{path}, rows 20-23: {want}")
