"""skndcg.streaming.score_parquet against skndcg.metrics on the whole file."""

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scale_cases import METRICS, assert_same, in_memory, table
from sklearn.exceptions import UndefinedMetricWarning

from skndcg.metrics import CONVENTIONS, grouped_ranking_scores
from skndcg.streaming import score_parquet


def grouped(df, sort=True, seed=0):
    """Rows of each query together: sorted by id, or queries in random order."""
    if sort:
        return df.sort_values("qid", kind="stable", ignore_index=True)
    order = pd.Series(np.random.default_rng(seed).permutation(df["qid"].nunique()))
    rank = df["qid"].map(dict(zip(pd.unique(df["qid"]), order, strict=True)))
    return df.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)


def write(df, path, row_group_size=37):
    df.to_parquet(path, row_group_size=row_group_size, index=False)
    return path


def stream(path, metrics=METRICS, weight=None, **kw):
    return score_parquet(
        path,
        metrics,
        qid_col="qid",
        label_col="label",
        score_col="score",
        sample_weight_col=weight,
        **kw,
    )


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("weight", [None, "w"])
def test_every_convention_matches_in_memory(tmp_path, convention, weight):
    df = grouped(table(seed=11))
    path = write(df, tmp_path / "run.parquet")
    try:
        expected = in_memory(df, weight=weight, convention=convention)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)[:40]):
            stream(path, weight=weight, convention=convention, batch_size=50)
        return
    got = stream(path, weight=weight, convention=convention, batch_size=50)
    assert_same(got, expected)


@pytest.mark.parametrize("qid_kind", ["int", "str", "category"])
@pytest.mark.parametrize("batch_size", [1, 7, 64, 1 << 20])
def test_batches_and_qid_kinds_match_in_memory(tmp_path, qid_kind, batch_size):
    df = grouped(table(seed=12, qid_kind=qid_kind), sort=False, seed=3)
    path = write(df, tmp_path / "run.parquet", row_group_size=23)
    expected = in_memory(df, weight="w", ties="stable", empty="zero")
    got = stream(path, weight="w", ties="stable", empty="zero", batch_size=batch_size)
    assert_same(got, expected)


@settings(max_examples=25)
@given(
    seed=st.integers(0, 10_000),
    batch_size=st.integers(1, 80),
    row_group_size=st.integers(1, 120),
)
def test_result_does_not_depend_on_batches_or_row_groups(
    tmp_path_factory, seed, batch_size, row_group_size
):
    df = grouped(table(seed=seed, n_queries=15, max_size=9), sort=seed % 2 == 0)
    path = write(df, tmp_path_factory.mktemp("p") / "r.parquet", row_group_size)
    options = dict(empty="zero", ties="stable")
    assert_same(
        stream(path, batch_size=batch_size, **options), in_memory(df, **options)
    )


def test_hand_computed_case(tmp_path):
    df = pd.DataFrame(
        {
            "qid": [1, 1, 1, 2, 2, 2],
            "label": [1, 0, 2, 0, 1, 1],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
        }
    )
    path = write(df, tmp_path / "r.parquet", row_group_size=2)
    # Query 1 ranks labels (1, 0, 2): RR 1, P@2 1/2; query 2 (0, 1, 1): RR 1/2.
    got = stream(path, ["mrr", "p@2"], batch_size=1)
    assert got == pytest.approx({"mrr": 0.75, "p@2": 0.5})


def test_per_query_weights_and_options(tmp_path):
    df = grouped(table(seed=13, qid_kind="str"))
    path = write(df, tmp_path / "r.parquet")
    weights = dict(zip(df["qid"], df["w"], strict=True))
    options = dict(gain="exponential", ties="reverse", rel_threshold=2, empty="one")
    got = stream(path, sample_weight=weights, batch_size=30, progress=True, **options)
    expected = in_memory(df.assign(w2=df["qid"].map(weights)), weight="w2", **options)
    assert_same(got, expected)


def test_unsorted_file_points_to_dask(tmp_path):
    df = grouped(table(seed=14))
    df = pd.concat([df.iloc[:40], df.iloc[60:], df.iloc[40:60]], ignore_index=True)
    path = write(df, tmp_path / "bad.parquet")
    with pytest.raises(ValueError, match=r"bad\.parquet: rows are not grouped") as err:
        stream(path, batch_size=16)
    message = str(err.value)
    assert "skndcg.dask.grouped_ranking_scores" in message
    found = re.search(
        r"qid=(\d+) is on rows? (\d+)(?:-(\d+))?, then again from row (\d+) on", message
    )
    key, start, row = int(found.group(1)), int(found.group(2)), int(found.group(4))
    stop = int(found.group(3) or start)
    ids = df["qid"].to_numpy()
    # The row starts a new run of a query already seen before another query,
    # and the rows named first are that query's first run, whole.
    assert ids[row] == key and ids[row - 1] != key and key in ids[:row]
    assert (ids[start : stop + 1] == key).all()
    assert start == 0 or ids[start - 1] != key
    assert ids[stop + 1] != key and key not in ids[stop + 1 : row]


def test_errors_name_the_file(tmp_path):
    df = grouped(table(seed=15))
    path = write(df, tmp_path / "r.parquet")
    with pytest.raises(
        ValueError, match=r"score_col='s' is not a column of .*r\.parquet"
    ):
        score_parquet(path, "mrr", qid_col="qid", label_col="label", score_col="s")
    bad = df.copy()
    bad.loc[70, "score"] = np.nan
    nan_path = write(bad, tmp_path / "nan.parquet")
    with pytest.raises(
        ValueError, match=r"nan\.parquet, rows \d+-\d+: y_score contains"
    ):
        stream(nan_path, batch_size=32)
    empty = write(df.iloc[:0], tmp_path / "empty.parquet")
    with pytest.raises(ValueError, match="has no rows"):
        stream(empty)
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        stream(path, batch_size=0)
    with pytest.raises(ValueError, match="not both"):
        stream(path, weight="w", sample_weight={1: 1.0})


def test_all_skipped_warns(tmp_path):
    path = write(grouped(table(seed=16)).assign(label=0), tmp_path / "r.parquet")
    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        got = stream(path, ["ndcg@3"])
    assert np.isnan(got["ndcg@3"])


def test_dictionary_encoded_ids(tmp_path):
    df = grouped(table(seed=17, qid_kind="str"))
    arrow = pa.Table.from_pandas(df, preserve_index=False)
    arrow = arrow.set_column(0, "qid", arrow.column("qid").dictionary_encode())
    pq.write_table(arrow, tmp_path / "d.parquet", row_group_size=29)
    assert_same(stream(tmp_path / "d.parquet", batch_size=40), in_memory(df))


@pytest.mark.parametrize("queries", ["retrieved", "judged"])
def test_judged_but_not_retrieved_rows_and_doc_ids_match_in_memory(tmp_path, queries):
    df = grouped(table(seed=8))
    rng = np.random.default_rng(8)
    df.loc[rng.random(len(df)) < 0.25, "score"] = np.nan
    df.loc[df["qid"].isin(df["qid"].unique()[:3]), "score"] = np.nan
    df["doc"] = "d" + df["doc"].astype(str)
    kw = {"nan_score": "unretrieved", "queries": queries, "convention": "trec_eval"}
    expected = grouped_ranking_scores(
        df["label"].to_numpy(), df["score"].to_numpy(), df["qid"], METRICS,
        doc_id=df["doc"].to_numpy(), **kw,
    )  # fmt: skip
    path = write(df, tmp_path / "judged.parquet")
    assert_same(stream(path, doc_col="doc", batch_size=40, **kw), expected)


@pytest.mark.parametrize("labels", ["float", "object"])
def test_unjudged_labels_match_in_memory(tmp_path, labels):
    # Empty labels are rows nobody judged under nan_label="unjudged", as in
    # memory, beside empty scores (nan_score="unretrieved"); a measure that
    # reads the largest label (err) reads it past them.
    df = grouped(table(seed=9))
    rng = np.random.default_rng(9)
    df["label"] = df["label"].astype(float)
    df.loc[rng.random(len(df)) < 0.2, "label"] = np.nan
    df.loc[rng.random(len(df)) < 0.2, "score"] = np.nan
    if labels == "object":
        df["label"] = df["label"].astype(object).where(df["label"].notna(), None)
    metrics = [*METRICS, "bpref", "judged@5", "err@3"]
    kw = {"nan_label": "unjudged", "nan_score": "unretrieved"}
    expected = in_memory(df.astype({"label": float}), metrics, **kw)
    path = write(df, tmp_path / "unjudged.parquet")
    assert_same(stream(path, metrics, batch_size=40, **kw), expected)
    # Without the option an empty label is refused, naming its row.
    first = int(np.flatnonzero(df["label"].isna().to_numpy())[0])
    with pytest.raises(ValueError, match=rf"row {first}: label column 'label' is emp"):
        stream(path, metrics, batch_size=40, nan_score="unretrieved")
