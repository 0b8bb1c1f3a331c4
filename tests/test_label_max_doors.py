"""ERR's default ``g_max`` is the largest label of all the data, through every door.

A measure that reads ``label_max`` depends on the whole table, not on one query:
a front end that scores pieces must give every piece the table's largest label,
or a piece without the top grade scores its queries on a smaller scale.
"""

import numpy as np
import pandas as pd
import pytest
from scale_cases import local_cluster

import skndcg.dask as sd
from skndcg.metrics import grouped_ranking_scores, ranking_report
from skndcg.streaming import score_parquet, score_trec_run

NAMES = ["err", "err@2", "nerr", "nerr@2", "ndcg@3"]


def frame():
    """Query 1 holds the only grade 4; the others top out at 1 or 2."""
    return pd.DataFrame(
        {
            "qid": [1, 1, 1, 2, 2, 2, 3, 3],
            "doc": ["a", "b", "c", "a", "b", "c", "a", "b"],
            "label": [0.0, 4.0, 1.0, 1.0, 0.0, 1.0, 2.0, 0.0],
            "score": [0.9, 0.5, 0.1, 0.8, 0.7, 0.2, 0.4, 0.6],
        }
    )


def in_memory(df, **options):
    return grouped_ranking_scores(df["label"], df["score"], df["qid"], NAMES, **options)


def test_hand_computed_err_of_query_2_uses_grade_4():
    df = frame()
    report = ranking_report(df["label"], df["score"], df["qid"], metrics=["err"])
    # Query 2 ranks labels 1, 0, 1: the stop chance of grade 1 is (2 - 1) / 2**4.
    r = 1 / 16
    want = r + (1 - r) * 0 / 2 + (1 - r) * r / 3
    got = report.loc[report["qid"] == 2, "err"].item()
    assert got == pytest.approx(want, abs=1e-15)


def test_streamed_parquet_uses_the_largest_label_of_the_file(tmp_path):
    df = frame()
    path = tmp_path / "run.parquet"
    df.to_parquet(path, row_group_size=3, index=False)
    got = score_parquet(path, NAMES, qid_col="qid", label_col="label",
                        score_col="score", batch_size=3)  # fmt: skip
    assert got == pytest.approx(in_memory(df), abs=1e-15)
    # The largest label is really read off the whole file: without query 1 the
    # other queries score higher.
    rest = df[df["qid"] != 1]
    assert in_memory(rest)["err"] > got["err"] - 1e-9


def test_streamed_trec_run_uses_the_largest_label_of_the_joined_rows(tmp_path):
    df = frame()
    run = tmp_path / "run.txt"
    qrels = tmp_path / "qrels.txt"
    rows = list(zip(df.qid, df.doc, df.score, df.label, strict=True))
    run.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s, _ in rows))
    qrels.write_text("".join(f"{q} 0 {d} {int(y)}\n" for q, d, _, y in rows))
    got = score_trec_run(run, qrels, ["err", "nerr@2"], batch_lines=2)
    ids = df["qid"].astype(str)
    want = grouped_ranking_scores(
        df["label"], df["score"], ids, ["err", "nerr@2"], convention="trec_eval",
        doc_id=df["doc"],
    )  # fmt: skip
    assert got == pytest.approx(want, abs=1e-15)


def test_an_explicit_g_max_is_used_as_given(tmp_path):
    df = frame()
    path = tmp_path / "run.parquet"
    df.to_parquet(path, row_group_size=3, index=False)
    got = score_parquet(path, ["err(g_max=6)"], qid_col="qid", label_col="label",
                        score_col="score", batch_size=3)  # fmt: skip
    want = grouped_ranking_scores(df["label"], df["score"], df["qid"], ["err(g_max=6)"])
    assert got == pytest.approx(want, abs=1e-15)
    assert got["err(g_max=6)"] != pytest.approx(in_memory(df)["err"])


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def test_dask_uses_the_largest_label_of_all_partitions(client):
    import dask.dataframe as dd

    df = frame()
    ddf = dd.from_pandas(df, npartitions=3, sort=False)
    got = sd.grouped_ranking_scores(
        ddf, NAMES, qid_col="qid", label_col="label", score_col="score",
        partitioned_by_qid=True,
    )  # fmt: skip
    assert got == pytest.approx(in_memory(df), abs=1e-15)


def test_unjudged_rows_through_dask(client):
    import dask.dataframe as dd

    df = frame()
    df.loc[1, "label"] = np.nan  # the grade-4 row is unjudged: the top is 2
    opts = {"nan_label": "unjudged"}
    ddf = dd.from_pandas(df, npartitions=3, sort=False)
    got = sd.grouped_ranking_scores(
        ddf, ["err"], qid_col="qid", label_col="label", score_col="score",
        partitioned_by_qid=True, **opts,
    )  # fmt: skip
    want = grouped_ranking_scores(df["label"], df["score"], df["qid"], ["err"], **opts)
    assert got == pytest.approx(want, abs=1e-15)
    assert want["err"] != pytest.approx(in_memory(frame())["err"])
