"""skndcg.dask against skndcg.metrics in memory, on a two-process LocalCluster."""

import itertools
import re

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from scale_cases import METRICS, assert_same, in_memory, local_cluster, table
from sklearn.exceptions import UndefinedMetricWarning

import skndcg.dask as sd
from skndcg.metrics import CONVENTIONS, grouped_ranking_scores, ranking_report


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def distributed(ddf, metrics=METRICS, weight=None, **options):
    return sd.grouped_ranking_scores(
        ddf,
        metrics,
        qid_col="qid",
        label_col="label",
        score_col="score",
        sample_weight_col=weight,
        **options,
    )


def rows_of(ddf):
    """The rows as in memory: partitions in order, the index back as a column."""
    df = ddf.compute()
    return df.reset_index() if df.index.name == "qid" else df


def by_query_partitions(df, n_parts):
    """Each query whole inside one of n_parts partitions (some left empty)."""
    codes = pd.factorize(df["qid"])[0] % n_parts
    pieces = [df[codes == p] for p in range(n_parts)] + [df.iloc[:0]]
    return dd.from_delayed([dask.delayed(p) for p in pieces], meta=df.iloc[:0])


def layouts(df):
    """Queries split across partitions, one query per partition, empty ones."""
    split = dd.from_pandas(df, npartitions=5)
    ordered = df.sort_values("qid", kind="stable").set_index("qid")
    ids = list(ordered.index.unique())
    single = dd.from_pandas(ordered, npartitions=2).repartition(
        divisions=[*ids, ids[-1]]
    )
    pieces = [df.iloc[:30], df.iloc[:0], df.iloc[30:90], df.iloc[:0], df.iloc[90:]]
    empty = dd.from_delayed([dask.delayed(p) for p in pieces], meta=df.iloc[:0])
    return {"split": split, "single": single, "empty": empty}


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("weight", [None, "w"])
def test_every_convention_matches_in_memory(client, convention, weight):
    df = table(seed=1)
    ddf = dd.from_pandas(df, npartitions=4)
    try:
        expected = in_memory(rows_of(ddf), weight=weight, convention=convention)
    except ValueError as exc:  # e.g. XGBoost refusing a mean above 1
        with pytest.raises(ValueError, match=str(exc)[:40]):
            distributed(ddf, weight=weight, convention=convention)
        return
    assert_same(distributed(ddf, weight=weight, convention=convention), expected)


@pytest.mark.parametrize(
    ("layout", "qid_kind"),
    [
        ("split", "int"),
        ("split", "str"),
        ("split", "category"),
        ("single", "category"),
        ("empty", "str"),
    ],
)
def test_layouts_and_qid_kinds_match_in_memory(client, layout, qid_kind):
    df = table(seed=2, n_queries=25, qid_kind=qid_kind)
    ddf = layouts(df)[layout]
    rows = rows_of(ddf)
    assert_same(distributed(ddf, weight="w"), in_memory(rows, weight="w"))
    assert_same(
        distributed(ddf, ties="stable", empty="zero"),
        in_memory(rows, ties="stable", empty="zero"),
    )
    report = sd.ranking_report(
        ddf, metrics=METRICS, qid_col="qid", label_col="label", score_col="score"
    ).compute()
    got = report.sort_values("qid", ignore_index=True)
    expected = ranking_report(
        rows["label"].to_numpy(), rows["score"].to_numpy(), rows["qid"], metrics=METRICS
    )
    assert got["qid"].tolist() == expected["qid"].tolist()
    pd.testing.assert_frame_equal(
        got.drop(columns="qid"),
        expected.drop(columns="qid"),
        check_exact=False,
        rtol=0,
        atol=1e-12,
    )


def test_options_and_per_query_weights(client):
    df = table(seed=3)
    ddf = dd.from_pandas(df, npartitions=3)
    rows = rows_of(ddf)
    weights = dict(zip(df["qid"], df["w"], strict=True))
    options = dict(gain="exponential", ties="reverse", rel_threshold=2, empty="one")
    got = sd.grouped_ranking_scores(
        ddf,
        METRICS,
        qid_col="qid",
        label_col="label",
        score_col="score",
        sample_weight=weights,
        progress=True,
        **options,
    )
    expected = grouped_ranking_scores(
        rows["label"],
        rows["score"],
        rows["qid"],
        METRICS,
        sample_weight=weights,
        **options,
    )
    assert_same(got, expected)
    ap = dict(ap_denominator="min_k_relevant", p_denominator="min_k_items")
    assert_same(distributed(ddf, **ap), in_memory(rows, **ap))


def test_hand_computed_case(client):
    # Query 1: labels (1, 0, 2) by score; query 2: (0, 1, 1).
    df = pd.DataFrame(
        {
            "qid": [2, 1, 2, 1, 1, 2],
            "label": [1, 1, 0, 0, 2, 1],
            "score": [0.5, 0.9, 0.6, 0.8, 0.7, 0.4],
        }
    )
    got = distributed(dd.from_pandas(df, npartitions=3), ["mrr", "p@2"])
    assert got == pytest.approx({"mrr": (1 + 1 / 2) / 2, "p@2": (1 / 2 + 1 / 2) / 2})


def test_partitioned_flag_skips_the_shuffle_and_is_checked(client):
    df = table(seed=4)
    whole = by_query_partitions(df, 3)
    report = sd.ranking_report(
        whole,
        qid_col="qid",
        label_col="label",
        score_col="score",
        partitioned_by_qid=True,
    )
    assert not any("shuffle" in str(k) for k in report.__dask_graph__())
    assert_same(distributed(whole, partitioned_by_qid=True), in_memory(rows_of(whole)))
    shuffled = sd.ranking_report(
        whole, qid_col="qid", label_col="label", score_col="score"
    )
    assert any("shuffle" in str(k) for k in shuffled.__dask_graph__())
    split = dd.from_pandas(df, npartitions=4)
    with pytest.raises(ValueError, match="split across partitions"):
        distributed(split, partitioned_by_qid=True)
    # A numpy True is True (it was taken as False: the frame was shuffled).
    with pytest.raises(ValueError, match="split across partitions"):
        distributed(split, partitioned_by_qid=np.True_)


def test_known_divisions_on_the_qid_index_skip_the_shuffle(client):
    df = table(seed=5).sort_values("qid", kind="stable").set_index("qid")
    ddf = dd.from_pandas(df, npartitions=4, sort=True)
    assert ddf.known_divisions
    report = sd.ranking_report(ddf, qid_col="qid", label_col="label", score_col="score")
    assert not any("shuffle" in str(k) for k in report.__dask_graph__())
    assert_same(distributed(ddf), in_memory(rows_of(ddf)))


def test_known_divisions_that_split_a_query_are_not_trusted(client, tmp_path):
    # Two sorted Parquet shards that both hold query 5: dask reports divisions
    # (0, 5, 11), as if every query sat in one partition.
    rng = np.random.default_rng(7)
    qid = np.repeat(np.arange(12), 5)
    df = pd.DataFrame(
        {"qid": qid, "label": rng.integers(0, 3, qid.size),
         "score": rng.normal(size=qid.size)}
    )  # fmt: skip
    df.iloc[:28].to_parquet(tmp_path / "part.0.parquet", index=False)
    df.iloc[28:].to_parquet(tmp_path / "part.1.parquet", index=False)
    ddf = dd.read_parquet(tmp_path, index="qid", calculate_divisions=True)
    assert ddf.divisions == (0, 5, 11)
    metrics = ["ndcg@3", "map"]
    expected = in_memory(df, metrics)
    assert_same(distributed(ddf, metrics), expected)
    # Trusting the divisions scores query 5 as two queries: a different number.
    split = {
        name: in_memory(
            df.assign(qid=np.where(np.arange(qid.size) < 28, qid, qid + 100)),
            metrics,
        )[name]
        for name in metrics
    }
    assert any(abs(split[m] - expected[m]) > 1e-3 for m in metrics)


def test_all_skipped_warns_as_in_memory(client):
    df = table(seed=6).assign(label=0)
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        got = distributed(ddf, ["ndcg@3", "mrr"])
    assert np.isnan(got["ndcg@3"]) and np.isnan(got["mrr"])
    assert distributed(ddf, ["ndcg@3"], convention="torchmetrics") == {"ndcg@3": 0.0}


def test_missing_column_lists_the_columns(client):
    ddf = dd.from_pandas(table(seed=7), npartitions=2)
    with pytest.raises(ValueError, match=r"score_col='s' is not a column.*'label'"):
        sd.grouped_ranking_scores(
            ddf, "ndcg@3", qid_col="qid", label_col="label", score_col="s"
        )
    with pytest.raises(ValueError, match="qid_col='query'"):
        sd.ranking_report(ddf, qid_col="query", label_col="label", score_col="score")


def test_nan_scores_raise_the_in_memory_error(client):
    df = table(seed=8)
    df.loc[17, "score"] = np.nan
    with pytest.raises(ValueError, match="y_score contains 1 NaN") as memory:
        in_memory(df)
    ddf = dd.from_pandas(df, npartitions=3)
    with pytest.raises(
        ValueError, match=r"y_score contains NaN .*\(one at row"
    ) as dist:
        distributed(ddf)
    assert str(dist.value).endswith(str(memory.value).split(")")[-1])
    # The row named is the caller's: a row of one of ddf's partitions.
    row, part = re.search(
        r"row (\d+) of ddf\.partitions\[(\d+)\]", str(dist.value)
    ).groups()
    assert ddf.partitions[int(part)].compute().index[int(row)] == 17


def test_qid_dtype_differing_between_partitions(client):
    df = table(seed=9)
    first, second = df.iloc[:50], df.iloc[50:].astype({"qid": "float64"})
    ddf = dd.from_delayed(
        [dask.delayed(first), dask.delayed(second)],
        meta=first.iloc[:0],
        verify_meta=False,
    )
    for flag in (None, True):
        with pytest.raises(TypeError, match="dtype float64 in partition 1 but int64"):
            distributed(ddf, partitioned_by_qid=flag)


def test_bad_arguments():
    df = table(seed=10)
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(TypeError, match=r"dask\.dataframe\.DataFrame"):
        sd.grouped_ranking_scores(
            df, "ndcg", qid_col="qid", label_col="label", score_col="score"
        )
    # As every yes/no argument (it raised a ValueError, and let 1 through).
    for flag in ("yes", 1):
        with pytest.raises(TypeError, match=r"^partitioned_by_qid must be True or"):
            distributed(ddf, partitioned_by_qid=flag)
    with pytest.raises(ValueError, match="not both"):
        distributed(ddf, weight="w", sample_weight={1: 1.0})
    with pytest.raises(ValueError, match="duplicate"):
        distributed(ddf, ["mrr", "mrr"])
    with pytest.raises(ValueError, match="unknown metric"):
        distributed(ddf, ["nope@3"])
    with pytest.raises(TypeError, match="'qid' is not an option"):
        sd.ranking_report(
            ddf, qid_col="qid", label_col="label", score_col="score", qid=[1]
        )


def _judged_rows(seed=5):
    # A run joined with its judgments: some judged rows were not returned (NaN
    # score), some queries returned nothing; ties broken by document id.
    df = table(seed=seed)
    rng = np.random.default_rng(seed)
    df.loc[rng.random(len(df)) < 0.25, "score"] = np.nan
    lost = df["qid"].drop_duplicates().sample(4, random_state=seed)
    df.loc[df["qid"].isin(lost), "score"] = np.nan
    df["doc"] = "d" + df["doc"].astype(str)
    return df


@pytest.mark.parametrize("queries", ["retrieved", "judged"])
@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval", None])
def test_judged_but_not_retrieved_rows_and_doc_ids_match_in_memory(
    client, queries, convention
):
    df = _judged_rows()
    kw = {"nan_score": "unretrieved", "queries": queries, "convention": convention}
    expected = grouped_ranking_scores(
        df["label"].to_numpy(), df["score"].to_numpy(), df["qid"], METRICS,
        doc_id=df["doc"].to_numpy(), **kw,
    )  # fmt: skip
    for ddf in layouts(df).values():
        got = distributed(ddf, doc_col="doc", **kw)
        assert_same(got, expected)


def _slow_piece(df, lo, hi, pause):
    import time

    time.sleep(pause)  # a slow read, so the run is still going when a worker dies
    return df.iloc[lo:hi]


def test_a_worker_killed_mid_run_still_gives_the_exact_result():
    import os
    import signal
    import threading
    import time

    from scale_cases import local_cluster

    df = table(seed=21, n_queries=120)
    cuts = np.linspace(0, len(df), 9).astype(int)
    pieces = [
        dask.delayed(_slow_piece)(df, lo, hi, 0.4)
        for lo, hi in itertools.pairwise(cuts)
    ]
    ddf = dd.from_delayed(pieces, meta=df.iloc[:0])
    expected = in_memory(df)
    with local_cluster() as c:
        out = {}
        job = threading.Thread(
            target=lambda: out.update(scores=distributed(ddf)), daemon=True
        )
        job.start()
        deadline = time.monotonic() + 60
        busy = {}
        while time.monotonic() < deadline and not any(busy.values()):
            busy = c.processing()
            time.sleep(0.05)
        victim = next(w for w, tasks in busy.items() if tasks)
        pid = c.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)  # the worker process dies, its tasks with it
        job.join(timeout=120)
        assert not job.is_alive()
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the worker really died (and was reaped)
    assert_same(out["scores"], expected)


def test_nullable_dtypes_match_in_memory(client):
    # pandas' nullable columns (Int64, Float64) score as their NumPy twins; a
    # missing value is refused with the row it sits at, as in memory: a
    # missing value, not a NaN.
    df = table(seed=12).astype({"label": "int64"})
    nullable = df.astype(
        {"qid": "Int64", "label": "Int64", "score": "Float64", "w": "Float64"}
    )
    ddf = dd.from_pandas(nullable, npartitions=3)
    assert_same(distributed(ddf, weight="w"), in_memory(df, weight="w"))
    report = sd.ranking_report(
        ddf, metrics=METRICS, qid_col="qid", label_col="label", score_col="score"
    ).compute()
    assert len(report) == df["qid"].nunique()
    nullable.loc[17, "label"] = pd.NA
    with pytest.raises(ValueError, match=r"y_true has 1 missing value.*row 17"):
        grouped_ranking_scores(
            nullable["label"], nullable["score"], nullable["qid"], METRICS
        )
    with pytest.raises(ValueError, match=r"y_true has missing value.*\(one at row"):
        distributed(dd.from_pandas(nullable, npartitions=3))
