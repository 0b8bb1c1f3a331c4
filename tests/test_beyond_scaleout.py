"""The per-user beyond-accuracy measures by name in Dask and streaming: the
numbers of skndcg.metrics in memory given item_id= and popularity=, and the
same refusals."""

import copy

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.metrics import grouped_ranking_scores
from skndcg.streaming import score_parquet, score_trec_run

NAMES = ["novelty@3", "novelty(n_users=900)@5", "arp@3", "aplt@4",
         "aclt(long_tail=0.4)@3", "long_tail_recall(long_tail=0.3)@5",
         "serendipity@3", "ndcg@3"]  # fmt: skip
COLS = dict(qid_col="qid", label_col="label", score_col="score")


def rows(seed=0, n_users=15, n_items=25):
    """Users in random row order, scores with ties, items of many popularities
    (unique within a user), and a user with nothing relevant."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 11, n_users)
    qid = np.repeat(np.arange(n_users) * 3 + 1, sizes)
    items = np.concatenate([rng.permutation(n_items)[:n] for n in sizes])
    label = rng.integers(0, 3, qid.size)
    label[qid == 1] = 0
    frame = pd.DataFrame({
        "qid": qid, "label": label, "score": np.round(rng.normal(size=qid.size), 1),
        "item": np.char.add("i", items.astype(str)).astype(object),
    })  # fmt: skip
    frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    counts = rng.integers(1, 60, n_items)
    counts[rng.random(n_items) < 0.3] = 5  # ties at the long tail's cut
    return frame, {f"i{i}": int(c) for i, c in enumerate(counts)}


def in_memory(frame, popularity, names=NAMES, **options):
    return grouped_ranking_scores(
        frame["label"].to_numpy(), frame["score"].to_numpy(), frame["qid"],
        names, item_id=frame["item"].to_numpy(), popularity=popularity, **options,
    )  # fmt: skip


def assert_same(got, want):
    assert list(got) == list(want)
    for name, value in want.items():
        if np.isnan(value):
            assert np.isnan(got[name]), name
        else:
            assert abs(got[name] - value) <= 1e-12, (name, got[name], value)


def log_of(popularity):
    """The training log behind counts: one item id per interaction."""
    return [item for item, n in popularity.items() for _ in range(n)]


# Dask.


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None,
    )  # fmt: skip
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def dask_scores(frame, popularity, names=NAMES, npartitions=4, **options):
    import dask.dataframe as dd

    import skndcg.dask as sd

    ddf = dd.from_pandas(frame, npartitions=npartitions)
    return sd.grouped_ranking_scores(ddf, names, **COLS, item_col="item",
                                     popularity=popularity, **options)  # fmt: skip


@pytest.mark.parametrize("ties", [None, "average"])
@pytest.mark.parametrize("as_log", [False, True])
def test_dask_equals_in_memory(client, ties, as_log):
    frame, counts = rows(seed=3)
    popularity = log_of(counts) if as_log else counts
    options = {} if ties is None else {"ties": ties}
    kept = copy.deepcopy(popularity)
    assert_same(dask_scores(frame, popularity, **options),
                in_memory(frame, popularity, **options))  # fmt: skip
    assert popularity == kept  # not mutated


def test_dask_report_equals_in_memory(client):
    import dask.dataframe as dd

    import skndcg.dask as sd
    from skndcg.metrics import ranking_report

    frame, counts = rows(seed=5)
    report = sd.ranking_report(
        dd.from_pandas(frame, npartitions=3), metrics=NAMES, **COLS,
        item_col="item", popularity=counts,
    ).compute()  # fmt: skip
    want = ranking_report(
        frame["label"], frame["score"], frame["qid"], metrics=NAMES,
        item_id=frame["item"], popularity=counts,
    )  # fmt: skip
    got = report.sort_values("qid").reset_index(drop=True)
    want = want.sort_values("qid").reset_index(drop=True)
    pd.testing.assert_frame_equal(got[want.columns], want, check_dtype=False,
                                  rtol=0, atol=1e-12)  # fmt: skip


def test_dask_refuses_clearly(client):
    frame, counts = rows()
    import dask.dataframe as dd

    import skndcg.dask as sd

    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match=r"'arp@2' .* pass item_col= and popularity="):
        sd.grouped_ranking_scores(ddf, ["arp@2"], **COLS)
    with pytest.raises(ValueError, match="pass popularity="):
        sd.grouped_ranking_scores(ddf, ["arp@2"], **COLS, item_col="item")
    with pytest.raises(ValueError, match="pass item_col="):
        sd.ranking_report(ddf, metrics=["arp@2"], **COLS, popularity=counts)
    with pytest.raises(ValueError, match="none of the metrics asked for"):
        sd.grouped_ranking_scores(ddf, ["ndcg@2"], **COLS, item_col="item",
                                  popularity=counts)  # fmt: skip
    with pytest.raises(ValueError, match="item_col='items' is not a column"):
        sd.grouped_ranking_scores(ddf, ["arp@2"], **COLS, item_col="items",
                                  popularity=counts)  # fmt: skip
    # Measures that are not one value per user keep their refusal.
    with pytest.raises(ValueError, match="is a beyond-accuracy measure"):
        sd.grouped_ranking_scores(ddf, ["coverage"], **COLS, item_col="item",
                                  popularity=counts)  # fmt: skip


def test_dask_missing_item_gives_the_in_memory_error(client):
    frame, counts = rows(seed=1)
    lacking = dict(counts)
    del lacking[frame["item"].iloc[0]]
    with pytest.raises(ValueError) as want:
        in_memory(frame, lacking)
    with pytest.raises(ValueError) as got:
        dask_scores(frame, lacking)
    assert str(got.value) == str(want.value)
    assert "missing from popularity" in str(got.value)


# Streaming: Parquet.


def _parquet(tmp_path, frame):
    frame = frame.sort_values("qid", kind="stable").reset_index(drop=True)
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, row_group_size=7)
    return path, frame


@pytest.mark.parametrize("batch_size", [1, 5, 1000])
def test_parquet_equals_in_memory(tmp_path, batch_size):
    path, frame = _parquet(tmp_path, rows(seed=7)[0])
    counts = rows(seed=7)[1]
    got = score_parquet(path, NAMES, **COLS, item_col="item", popularity=counts,
                        batch_size=batch_size)  # fmt: skip
    assert_same(got, in_memory(frame, counts))


def test_parquet_refuses_clearly(tmp_path):
    frame, counts = rows(seed=2)
    path, frame = _parquet(tmp_path, frame)
    with pytest.raises(ValueError, match="pass item_col= and popularity="):
        score_parquet(path, ["novelty@2"], **COLS)
    with pytest.raises(ValueError, match="item_col='it' is not a column"):
        score_parquet(path, ["novelty@2"], **COLS, item_col="it", popularity=counts)
    lacking = {k: v for k, v in counts.items() if k != frame["item"].iloc[0]}
    with pytest.raises(ValueError) as want:
        in_memory(frame, lacking)
    with pytest.raises(ValueError, match="missing from popularity") as got:
        score_parquet(path, NAMES, **COLS, item_col="item", popularity=lacking)
    assert str(want.value) in str(got.value)  # (after the file's rows)


@pytest.mark.parametrize("given", ["item", "popularity", "both"])
def test_an_unused_side_input_is_one_refusal_at_every_door(client, tmp_path, given):
    """Side inputs given while no metric reads them: the same message in
    memory, from ranking_report, a scorer, Dask and a Parquet stream, each
    naming the argument as that door spells it."""
    import dask.dataframe as dd

    import skndcg.dask as sd
    from skndcg.metrics import make_ranking_scorer, ranking_report

    frame, counts = rows(seed=5)
    path, frame = _parquet(tmp_path, frame)
    names = ["ndcg@3", "map"]
    item = frame["item"].to_numpy()
    mem = {"item_id": item if given != "popularity" else None,
           "popularity": counts if given != "item" else None}  # fmt: skip
    col = {"item_col": "item" if given != "popularity" else None,
           "popularity": mem["popularity"]}  # fmt: skip
    y, s, q = frame["label"].to_numpy(), frame["score"].to_numpy(), frame["qid"]
    ddf = dd.from_pandas(frame, npartitions=2)
    calls = {
        "memory": lambda: grouped_ranking_scores(y, s, q, names, **mem),
        "report": lambda: ranking_report(y, s, q, metrics=names, **mem),
        "scorer": lambda: make_ranking_scorer(names, **col),
        "dask": lambda: sd.grouped_ranking_scores(ddf, names, **COLS, **col),
        "parquet": lambda: score_parquet(path, names, **COLS, **col),
    }
    said = {}
    for door, call in calls.items():
        with pytest.raises(ValueError) as info:
            call()
        said[door] = str(info.value)
    tail = (
        " by the beyond-accuracy measures only ('novelty@10', 'arp@10', ...), "
        "and none of the metrics asked for ('ndcg@3', 'map') is one."
    )
    head = {"item": "{} is read", "popularity": "popularity= is read",
            "both": "{} and popularity= are read"}[given]  # fmt: skip
    for door, message in said.items():
        item_arg = "item_id=" if door in ("memory", "report") else "item_col="
        assert message == head.format(item_arg) + tail, door


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), batch=st.integers(1, 30))
def test_parquet_equals_in_memory_on_any_data(tmp_path_factory, seed, batch):
    frame, counts = rows(seed=seed, n_users=6)
    path, frame = _parquet(tmp_path_factory.mktemp("p"), frame)
    got = score_parquet(path, NAMES, **COLS, item_col="item", popularity=counts,
                        batch_size=batch, ties="average")  # fmt: skip
    assert_same(got, in_memory(frame, counts, ties="average"))


# Streaming: TREC runs, the docno being the item.


def trec_files(tmp_path, seed=0):
    """A run (ties in scores, a query nobody judged relevant) and its qrels
    (judged documents the run missed too), and every document's count."""
    rng = np.random.default_rng(seed)
    run, qrels, counts = [], [], {}
    for q in range(1, 9):
        docs = rng.permutation(30)[: rng.integers(2, 12)]
        for rank, d in enumerate(docs, 1):
            run.append(f"q{q} Q0 d{d} {rank} {rng.integers(0, 4)} tag\n")
        for d in rng.permutation(30)[:6]:
            qrels.append(f"q{q} 0 d{d} {0 if q == 2 else rng.integers(0, 3)}\n")
    for d in range(30):
        counts[f"d{d}"] = int(rng.integers(1, 40))
    (tmp_path / "run").write_text("".join(run))
    (tmp_path / "qrels").write_text("".join(qrels))
    return tmp_path / "run", tmp_path / "qrels", counts


TREC_NAMES = ["novelty@5", "arp@3", "aplt@5", "aclt@4", "long_tail_recall@5",
              "serendipity@3", "map"]  # fmt: skip


def trec_in_memory(run, qrels, counts, names=TREC_NAMES):
    from skndcg.io import join_run_qrels, read_trec_qrels, read_trec_run

    data = join_run_qrels(read_trec_run(run), read_trec_qrels(qrels))
    return grouped_ranking_scores(
        data.y_true, data.y_score, data.qid, names, convention="trec_eval",
        nan_score="unretrieved", doc_id=data.doc_id, item_id=data.doc_id,
        popularity=counts,
    )  # fmt: skip


@pytest.mark.parametrize("batch_lines", [1, 7, 10_000])
def test_trec_stream_equals_in_memory(tmp_path, batch_lines):
    run, qrels, counts = trec_files(tmp_path, seed=4)
    got = score_trec_run(run, qrels, TREC_NAMES, popularity=counts,
                         batch_lines=batch_lines)  # fmt: skip
    assert_same(got, trec_in_memory(run, qrels, counts))


def test_trec_stream_refuses_without_popularity(tmp_path):
    run, qrels, counts = trec_files(tmp_path)
    with pytest.raises(ValueError, match=r"'arp@3' .* pass popularity="):
        score_trec_run(run, qrels, ["arp@3"])
    with pytest.raises(ValueError, match="none of the metrics asked for"):
        score_trec_run(run, qrels, ["map"], popularity=counts)


# Torch keeps its refusal: tensors carry no item ids.


def test_torch_still_refuses():
    torch = pytest.importorskip("torch")
    from skndcg.torch import ranking_scores

    s = torch.tensor([0.3, 0.2, 0.1])
    y = torch.tensor([1.0, 0.0, 1.0])
    q = torch.tensor([0, 0, 1])
    with pytest.raises(ValueError, match=r"skndcg\.torch's tensors carry none"):
        ranking_scores(s, y, q, ["novelty@2"])
