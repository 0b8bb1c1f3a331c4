"""skndcg.spark against skndcg.metrics in memory, on a local[2] Spark session.

Run with ``make test-spark`` (the session needs a Java runtime); ``make test``
leaves this file out.
"""

import os
import sys

import numpy as np
import pandas as pd
import pytest
from scale_cases import METRICS, assert_same, in_memory, table
from sklearn.exceptions import UndefinedMetricWarning

import skndcg.spark as sk_spark
from skndcg.metrics import CONVENTIONS, ranking_report

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("skndcg-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "3")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    yield session
    session.stop()


def to_spark(spark, df, n_partitions=4):
    return spark.createDataFrame(df).repartition(n_partitions)


def scores(sdf, metrics=METRICS, weight=None, **options):
    return sk_spark.grouped_ranking_scores(
        sdf,
        metrics,
        qid_col="qid",
        label_col="label",
        score_col="score",
        sample_weight_col=weight,
        **options,
    )


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("weight", [None, "w"])
def test_every_convention_matches_in_memory(spark, convention, weight):
    sdf = to_spark(spark, table(seed=21)).cache()
    rows = sdf.toPandas()
    try:
        expected = in_memory(rows, weight=weight, convention=convention)
    except ValueError as exc:
        with pytest.raises(Exception, match=str(exc)[:40]):
            scores(sdf, weight=weight, convention=convention)
        return
    assert_same(scores(sdf, weight=weight, convention=convention), expected)


@pytest.mark.parametrize("qid_kind", ["int", "str"])
def test_report_and_options_match_in_memory(spark, qid_kind):
    sdf = to_spark(spark, table(seed=22, qid_kind=qid_kind)).cache()
    rows = sdf.toPandas()
    options = dict(ties="stable", empty="zero", gain="exponential")
    assert_same(
        scores(sdf, weight="w", **options), in_memory(rows, weight="w", **options)
    )
    weights = dict(zip(rows["qid"], rows["w"], strict=False))
    got = sk_spark.grouped_ranking_scores(
        sdf,
        METRICS,
        qid_col="qid",
        label_col="label",
        score_col="score",
        sample_weight=weights,
        n_groups=2,
    )
    assert_same(got, in_memory(rows, weight="w"))
    report = sk_spark.ranking_report(
        sdf, metrics=METRICS, qid_col="qid", label_col="label", score_col="score"
    ).toPandas()
    got = report.sort_values("qid", ignore_index=True)
    expected = ranking_report(
        rows["label"].to_numpy(), rows["score"].to_numpy(), rows["qid"], metrics=METRICS
    )
    assert got["qid"].tolist() == expected["qid"].tolist()
    pd.testing.assert_frame_equal(
        got.drop(columns="qid"),
        expected.drop(columns="qid"),
        check_exact=False,
        check_dtype=False,
        rtol=0,
        atol=1e-12,
    )


def test_hand_computed_case(spark):
    df = pd.DataFrame(
        {
            "qid": [2, 1, 2, 1, 1, 2],
            "label": [1, 1, 0, 0, 2, 1],
            "score": [0.5, 0.9, 0.6, 0.8, 0.7, 0.4],
        }
    )
    got = scores(spark.createDataFrame(df), ["mrr", "p@2"])
    assert got == pytest.approx({"mrr": 0.75, "p@2": 0.5})


def test_errors(spark):
    df = table(seed=23)
    sdf = spark.createDataFrame(df)
    with pytest.raises(
        ValueError, match=r"score_col='s' is not a column of sdf.*'label'"
    ):
        sk_spark.grouped_ranking_scores(
            sdf, "mrr", qid_col="qid", label_col="label", score_col="s"
        )
    with pytest.raises(TypeError, match=r"pyspark\.sql\.DataFrame"):
        scores(df)
    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        got = scores(spark.createDataFrame(df.assign(label=0)), ["ndcg@3"])
    assert np.isnan(got["ndcg@3"])
    bad = df.astype({"score": "float64"})
    bad.loc[5, "score"] = np.nan
    # A group's rows are not numbered as the caller's frame: the query is named.
    want = rf"y_score contains NaN or infinite value\(s\) \(one in query {bad.qid[5]}: "
    with pytest.raises(Exception, match=want):
        scores(spark.createDataFrame(bad))
    # Labels read as text are refused before any group is scored.
    text = spark.createDataFrame(df.astype({"label": str}))
    with pytest.raises(
        TypeError,
        match=r"y_true must be numeric, got label_col='label', a column of string in",
    ):
        scores(text, ["err@3"])


@pytest.mark.parametrize(
    "case",
    [
        "clean",
        "padded string ids",
        "integer ids",
        "tied scores broken by doc id",
        "a missing score",
    ],
)
def test_the_equivalence_corpus_through_spark(spark, tmp_path, case):
    # The Parquet files of tests/test_io_equivalence.py, read by Spark itself:
    # the numbers of every other door (to rounding).
    import pyarrow.parquet as pq
    from test_io_equivalence import METRICS as DOOR_METRICS
    from test_io_equivalence import PARQUET_CASES, _pred_api

    path = str(tmp_path / "pred.parquet")
    pq.write_table(PARQUET_CASES[case](), path, row_group_size=2)
    kind, expected = _pred_api(path)
    assert kind == "means"
    got = sk_spark.grouped_ranking_scores(
        spark.read.parquet(path), DOOR_METRICS, qid_col="user",
        label_col="rating", score_col="pred", doc_col="item",
        convention="trec_eval", nan_score="unretrieved",
    )  # fmt: skip
    assert_same(got, expected)


def test_err_reads_the_largest_label_of_the_whole_frame(spark):
    # Query 1 holds the only grade 4: every bucket scores ERR on that scale.
    df = pd.DataFrame(
        {
            "qid": [1, 1, 1, 2, 2, 2, 3, 3],
            "label": [0.0, 4.0, 1.0, 1.0, 0.0, 1.0, 2.0, 0.0],
            "score": [0.9, 0.5, 0.1, 0.8, 0.7, 0.2, 0.4, 0.6],
        }
    )
    names = ["err", "nerr@2"]
    got = sk_spark.grouped_ranking_scores(
        to_spark(spark, df, 3), names, qid_col="qid", label_col="label",
        score_col="score", n_groups=3,
    )  # fmt: skip
    want = in_memory(df, names)
    assert got == pytest.approx(want, abs=1e-15)


def test_the_beyond_accuracy_names_match_in_memory(spark):
    from test_beyond_scaleout import NAMES, assert_same, rows
    from test_beyond_scaleout import in_memory as side_in_memory

    frame, counts = rows(seed=9)
    kept = dict(counts)
    sdf = to_spark(spark, frame)
    got = sk_spark.grouped_ranking_scores(
        sdf, NAMES, qid_col="qid", label_col="label", score_col="score",
        item_col="item", popularity=counts, ties="average",
    )  # fmt: skip
    assert_same(got, side_in_memory(frame, counts, ties="average"))
    assert counts == kept
    report = sk_spark.ranking_report(
        sdf, metrics=["arp@3"], qid_col="qid", label_col="label",
        score_col="score", item_col="item", popularity=counts,
    ).toPandas()  # fmt: skip
    assert report["arp@3"].mean() == pytest.approx(
        side_in_memory(frame, counts, ["arp@3"])["arp@3"], abs=1e-12
    )
    with pytest.raises(ValueError, match="pass item_col= and popularity="):
        sk_spark.grouped_ranking_scores(
            sdf, ["arp@3"], qid_col="qid", label_col="label", score_col="score"
        )


def test_decimal_labels_and_scores_read_as_numbers(spark):
    from decimal import Decimal

    rows = table(seed=5)[["qid", "label", "score"]].round({"score": 3})
    data = [
        (int(q), Decimal(int(y)), Decimal(f"{s:.3f}"))
        for q, y, s in rows.itertuples(index=False)
    ]
    sdf = spark.createDataFrame(
        data, "qid long, label decimal(5,0), score decimal(10,3)"
    )
    assert_same(scores(sdf), in_memory(rows))
