"""Plain arguments of the public functions: yes/no flags, counts, metric
names, weights, axes and paths are refused by name when of the wrong kind."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge

from skndcg.datasets import (
    fetch_movielens,
    get_data_home,
    load_movielens,
    make_movielens_like,
    make_ranking_task,
)
from skndcg.demo import run_demo
from skndcg.evaluation import (
    compare_scores,
    estimate_position_bias,
    full_catalogue_report,
    judge_agreement,
    prediction_powered_report,
)
from skndcg.io import (
    join_trec_files,
    open_input,
    read_trec_run_chunks,
    write_trec_run,
)
from skndcg.metrics import (
    define_measure,
    grouped_ranking_scores,
    make_ranking_scorer,
    novelty_score,
    ranking_report,
)
from skndcg.model_selection import (
    GlobalTimeSplit,
    GroupTimeSeriesSplit,
    LeaveLastNSplit,
    UserFractionSplit,
)
from skndcg.online import (
    counterfactual_report,
    interleave,
    interleaving_result,
    multileave,
    simulate_click_log,
    simulate_clicks,
)
from skndcg.plotting import (
    plot_comparison,
    plot_forest,
    plot_group_time_splits,
    plot_metric_at_k,
)
from skndcg.ranker import QueryRanker
from skndcg.recommend import (
    FeatureColumnRanker,
    HistoryFeatures,
    PopularityRecommender,
    catalogue_report,
    make_catalogue_scorer,
)
from skndcg.streaming import score_parquet, score_trec_run

Y = [2, 1, 0, 1, 0, 0]
S = [0.9, 0.5, 0.1, 0.8, 0.3, 0.2]
Q = [1, 1, 1, 2, 2, 2]
LOG = pd.DataFrame(
    {"user_id": [1, 1, 1, 2, 2, 2], "item_id": [10, 11, 12, 10, 12, 13],
     "timestamp": [1, 2, 3, 4, 5, 6]}
)  # fmt: skip


@pytest.fixture(scope="module")
def cmp():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(20), 5)
    y = rng.integers(0, 3, 100)
    scores = {"a": rng.random(100), "b": y + rng.normal(0, 1, 100)}
    return compare_scores(
        y, scores, qid, metrics=["ndcg@3"], baseline="a", n_resamples=50,
        random_state=0,
    )  # fmt: skip


@pytest.fixture
def files(tmp_path):
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    qrels.write_text("q1 0 d2 1\n")
    parquet = tmp_path / "run.parquet"
    pd.DataFrame({"q": Q, "y": Y, "s": S}).to_parquet(parquet)
    return run, qrels, parquet


def _split(cls, **flag):
    extra = {"cuts": [3.5]} if cls is GlobalTimeSplit else {}
    return lambda f: list(cls(**extra, **flag).split(LOG))


FLAGS = {
    "filter_cold_users": _split(LeaveLastNSplit, filter_cold_users="no"),
    "filter_cold_items": _split(UserFractionSplit, filter_cold_items="no"),
    "filter_already_seen": _split(GlobalTimeSplit, filter_already_seen="no"),
    "all_judged": lambda f: score_trec_run(f[0], f[1], "map", all_judged="no"),
    "return_counts": lambda f: score_trec_run(f[0], f[1], "map", return_counts="no"),
    "progress": lambda f: score_parquet(
        f[2], "mrr", qid_col="q", label_col="y", score_col="s", progress="no"
    ),
    "by_docno": lambda f: join_trec_files(f[0], f[1], by_docno="no"),
    "stream": lambda f: open_input(f[0], f[1], stream="no"),
    "return_means": lambda f: ranking_report(Y, S, Q, return_means="no"),
    "per_query": lambda f: novelty_score(
        [1, 2, 3, 1, 2, 3], S, Q, popularity=[1, 2, 3], k=2, per_query="no"
    ),
    "cutoff": lambda f: define_measure("probe_flag", lambda y, k: 0.0, cutoff="no"),
    "return_items": lambda f: load_movielens(f[0], return_items="no"),
    "download_if_missing": lambda f: fetch_movielens(
        data_home=f[0].parent, download_if_missing="no"
    ),
    "quick": lambda f: run_demo(out=f[0].parent / "demo", quick="no"),
    "expected_labels": lambda f: judge_agreement(Y, Y, Q, expected_labels="no"),
    "exclude_seen": lambda f: full_catalogue_report(
        None, LOG, LOG, metrics="ndcg@2", top_n=2, exclude_seen="no"
    ),
    "ascending": lambda f: FeatureColumnRanker("x", ascending="no").fit(
        pd.DataFrame({"x": [1.0]})
    ),
    "exclude_seen ": lambda f: (
        PopularityRecommender().fit(LOG).recommend([1], n_items=1, exclude_seen="no")
    ),
}


@pytest.mark.parametrize("name", FLAGS)
def test_yes_no_arguments_refuse_text(name, files):
    # "no" is truthy: it was read as True.
    with pytest.raises(TypeError, match=rf"^{name.strip()} must be True or False, "):
        FLAGS[name](files)


@pytest.mark.filterwarnings("ignore::skndcg.evaluation.SmallSampleWarning")
def test_yes_no_arguments_of_comparisons_and_plots_refuse_text(cmp):
    with pytest.raises(TypeError, match=r"^pairs must be True or False, got 'no'"):
        cmp.to_frame(pairs="no")
    with pytest.raises(TypeError, match=r"^corrected must be True or False"):
        plot_comparison(cmp, corrected="no")
    with pytest.raises(TypeError, match=r"^expected_labels must be True or False"):
        compare_scores(Y, {"a": S, "b": S}, Q, expected_labels="no")
    with pytest.raises(TypeError, match=r"^expected_labels must be True or False"):
        prediction_powered_report(Y, Y, S, Q, expected_labels=1)
    seg = compare_scores(Y * 4, {"a": S * 4, "b": S[::-1] * 4}, np.repeat(range(8), 3),
                         baseline="a", by={q: q % 2 for q in range(8)},
                         n_resamples=100, random_state=0)  # fmt: skip
    with pytest.raises(TypeError, match=r"^adjusted must be True or False"):
        plot_forest(seg, adjusted="no")
    plt.close("all")


def test_numpy_bools_are_yes_no_arguments():
    train, test = LeaveLastNSplit(filter_cold_users=np.False_).train_test_log(LOG)
    assert len(train) + len(test) == len(LOG)
    _, means = ranking_report(Y, S, Q, return_means=np.True_)
    assert set(means) == {"ndcg@10"}


@pytest.mark.parametrize("count", ["n_users", "n_items", "n_ratings"])
def test_make_movielens_like_refuses_a_bool_count(count):
    with pytest.raises(ValueError, match=rf"'{count}' parameter .* Got True"):
        make_movielens_like(**{count: True})


def test_streamed_doors_name_a_missing_metrics_argument(files):
    message = r"^metrics must be a metric name such as 'ndcg@10' or a list of names"
    with pytest.raises(TypeError, match=message + r", got None"):
        score_parquet(files[2], None, qid_col="q", label_col="y", score_col="s")
    with pytest.raises(TypeError, match=message + r", got 5"):
        score_trec_run(files[0], files[1], 5)
    # ... as the in-memory doors do.
    with pytest.raises(TypeError, match=message + r", got None"):
        grouped_ranking_scores(Y, S, Q, metrics=None)
    with pytest.raises(TypeError, match=message + r", got None"):
        ranking_report(Y, S, Q, metrics=None)
    assert list(grouped_ranking_scores(Y, S, Q, ("mrr", "ndcg@2"))) == ["mrr", "ndcg@2"]


def _empty_metrics_doors(files):
    import dask.dataframe as dd

    from skndcg import dask as sd

    frame = dd.from_pandas(pd.DataFrame({"q": Q, "y": Y, "s": S}), npartitions=1)
    cols = {"qid_col": "q", "label_col": "y", "score_col": "s"}
    return {
        "grouped_ranking_scores": lambda m: grouped_ranking_scores(Y, S, Q, m),
        "ranking_report": lambda m: ranking_report(Y, S, Q, metrics=m),
        "make_ranking_scorer": lambda m: make_ranking_scorer(m),
        "score_parquet": lambda m: score_parquet(files[2], m, **cols),
        "score_trec_run": lambda m: score_trec_run(files[0], files[1], m),
        "dask.grouped_ranking_scores": lambda m: sd.grouped_ranking_scores(
            frame, m, **cols
        ),
        "dask.ranking_report": lambda m: sd.ranking_report(frame, metrics=m, **cols),
        "catalogue_report": lambda m: catalogue_report(
            None, HistoryFeatures(n_candidates=2).fit(LOG), metrics=m
        ),
        "make_catalogue_scorer": lambda m: make_catalogue_scorer(
            HistoryFeatures(n_candidates=2).fit(LOG), metrics=m
        ),
    }


@pytest.mark.parametrize("empty", [[], (), ""])
@pytest.mark.parametrize("door", sorted(_empty_metrics_doors(("r", "q", "p"))))
def test_empty_metrics_get_one_message_at_every_door(door, empty, files):
    # It read "metrics is empty; ask for at least one metric.", "metrics is an
    # empty list; give at least one metric name." or "... got none.", and ""
    # was an unknown metric ''.
    with pytest.raises(ValueError, match=r"^metrics must name at least one metric"):
        _empty_metrics_doors(files)[door](empty)


def test_query_ranker_names_text_sample_weight():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(TypeError, match=r"sample_weight must be numeric.*'a'"):
        QueryRanker(Ridge()).fit(X, Y, qid=Q, sample_weight=["a"] * 6)
    with pytest.raises(TypeError, match=r"sample_weight must be numeric.*'x'"):
        QueryRanker(Ridge()).fit(X, Y, qid=Q, sample_weight=[1, "x", 1, 1, 1, 1])


def test_plots_refuse_an_ax_that_is_not_axes(cmp):
    with pytest.raises(TypeError, match=r"^plot_metric_at_k: ax must be a .*'left'"):
        plot_metric_at_k(cmp, ax="left")
    groups = np.repeat(np.arange(12), 3)
    with pytest.raises(TypeError, match=r"^plot_group_time_splits: ax must be"):
        plot_group_time_splits(GroupTimeSeriesSplit(3), np.zeros((36, 1)), groups,
                               ax="left")  # fmt: skip
    _, ax = plt.subplots()
    assert plot_comparison(cmp, ax=ax) is ax
    plt.close("all")


def test_paths_are_named():
    with pytest.raises(TypeError, match=r"^data_home must be a path .*got 5"):
        get_data_home(5)
    with pytest.raises(TypeError, match=r"^path must be a path .*got 5"):
        score_parquet(5, "mrr", qid_col="q", label_col="y", score_col="s")
    with pytest.raises(TypeError, match=r"^path must be a path .*got 5"):
        load_movielens(5)


ONLINE_COUNTS = {
    "n_queries": lambda v: simulate_click_log(n_queries=v),
    "n_candidates": lambda v: simulate_click_log(n_candidates=v),
    "n_shown": lambda v: simulate_click_log(n_shown=v),
    "impressions_per_query": lambda v: simulate_click_log(impressions_per_query=v),
    "k": lambda v: interleave(Q, S, S, S, k=v),
    "k ": lambda v: multileave(Q, S, {"a": S, "b": S}, k=v),
    "n_resamples": lambda v: interleaving_result(pd.DataFrame(), Y, n_resamples=v),
    "n_resamples ": lambda v: counterfactual_report(Q, S, Y, Y, S, n_resamples=v),
    "k  ": lambda v: counterfactual_report(Q, S, Y, Y, S, k=v),
}


@pytest.mark.parametrize("name", ONLINE_COUNTS)
def test_online_counts_refuse_a_bool(name):
    # True is an Integral: it was read as 1 (or False as 0).
    with pytest.raises(ValueError, match=rf"'{name.strip()}' parameter .* Got True"):
        ONLINE_COUNTS[name](True)


def _log(rs):
    return simulate_click_log(n_queries=30, random_state=rs)


def _interleaving(rs):
    high, low = np.tile([2.0, 1.0], 40), np.tile([1.0, 2.0], 40)
    lists = interleave(np.repeat(np.arange(40), 2), np.tile([0, 1], 40), high, low)
    click = (lists["team"] == "a").to_numpy()
    users = lists["qid"].to_numpy() // 2
    return interleaving_result(lists, click, users=users, n_resamples=50,
                               random_state=rs).p_value  # fmt: skip


def _position_bias(rs, method):
    rng = np.random.default_rng(0)
    pos = np.concatenate([rng.permutation(3) + 1 for _ in range(200)])
    qid, doc = np.repeat(np.arange(200) % 10, 3), np.tile([0, 1, 2], 200)
    click = rng.random(600) < 0.6 / pos
    return estimate_position_bias(pos, click, qid=qid, doc=doc, method=method,
                                  n_resamples=21, random_state=rs).low  # fmt: skip


RANDOM_DOORS = {
    "make_movielens_like": lambda rs: make_movielens_like(20, 30, 300, random_state=rs),
    "make_ranking_task": lambda rs: make_ranking_task(
        make_movielens_like(20, 30, 300, random_state=0),
        n_negatives=5,
        random_state=rs,
    )[0],
    "estimate_position_bias intervention": lambda rs: _position_bias(
        rs, "intervention"
    ),
    "estimate_position_bias em": lambda rs: _position_bias(rs, "em"),
    "simulate_click_log": lambda rs: _log(rs).log,
    "simulate_clicks": lambda rs: simulate_clicks(
        Q, [1, 2, 3] * 2, [1, 0, 1, 0, 0, 1], random_state=rs
    ),
    "interleave": lambda rs: interleave(Q, S, S, S[::-1], random_state=rs),
    "multileave": lambda rs: multileave(Q, S, np.c_[S, S[::-1]], random_state=rs),
    "interleaving_result": _interleaving,
    "counterfactual_report": lambda rs: counterfactual_report(
        *(_log(0).log[c] for c in ("qid", "item", "position", "click", "feature")),
        logging_probability=_log(0).log["logging_probability"],
        examination=_log(0).examination,
        n_resamples=50,
        random_state=rs,
    ),
}


@pytest.mark.parametrize("name", RANDOM_DOORS)
def test_every_random_state_takes_a_numpy_generator(name):
    # compare, bootstrap_ci and paired_bootstrap took a numpy Generator; these
    # refused it ("must be an int ..., an instance of RandomState or None").
    door = RANDOM_DOORS[name]
    first = door(np.random.default_rng(7))
    frame = isinstance(first, pd.DataFrame)
    same = pd.testing.assert_frame_equal if frame else np.testing.assert_equal
    same(door(np.random.default_rng(7)), first)
    # An int draws what the RandomState it seeds draws.
    same(door(3), door(np.random.RandomState(3)))


def test_paths_and_counts_of_the_writers_readers_and_demo_are_named(files, tmp_path):
    # Python's "expected str, bytes or os.PathLike object, not int", after the
    # work was done.
    with pytest.raises(TypeError, match=r"^path must be a path .*got 5"):
        write_trec_run(5, ["q1"], ["d1"], [1.0])
    with pytest.raises(TypeError, match=r"^--out must be a path .*got 5"):
        run_demo(out=5)
    # random_state=True was the seed 1; None failed deep inside the demo.
    for seed in (True, None, -1):
        with pytest.raises(ValueError, match=r"^--seed must be an integer >= 0, got"):
            run_demo(out=tmp_path / "demo", random_state=seed)
    # As chunk_rows and batch_lines: a TypeError naming the kind expected.
    with pytest.raises(TypeError, match=r"^chunk_lines must be an int >= 1, got '2'"):
        read_trec_run_chunks(files[0], chunk_lines="2")
    with pytest.raises(ValueError, match=r"^chunk_lines must be >= 1, got 0"):
        read_trec_run_chunks(files[0], chunk_lines=0)
