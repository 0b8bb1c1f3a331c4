"""The per-user popularity measures by name (``"novelty@10"``, ``"arp@10"``, ...):
equal to their functions, exact under ties="average", refused where they cannot
be computed, and the non-per-query measures refused with the reason."""

import itertools
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import skndcg.metrics as M
from skndcg.metrics import grouped_ranking_scores, ranking_report, registry

LOG = ["a"] * 4 + ["b"] * 2 + ["c", "d"]
ITEM = ["a", "b", "c", "a", "d", "b"]
Y = [1, 0, 1, 0, 1, 1]
SCORE = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
QID = [1, 1, 1, 2, 2, 2]


def public(name, y, s, q, item, pop, k, ties="average", per_query=False):
    """The value of the function behind a name such as ``"aplt(long_tail=0.3)"``."""
    base, _, arg = name.partition("(")
    arg = float(arg.split("=")[1].rstrip(")")) if arg else None
    kw = dict(popularity=pop, k=k, ties=ties, per_query=per_query)
    if base == "novelty":
        return M.novelty_score(item, s, q, n_users=None if arg is None else int(arg),
                               **kw)  # fmt: skip
    if base in ("arp", "aplt", "aclt"):
        tail = {} if arg is None else {"long_tail": arg}
        return M.average_popularity_score(item, s, q, measure=base, **tail, **kw)
    if base == "long_tail_recall":
        tail = {} if arg is None else {"long_tail": arg}
        return M.long_tail_recall_score(y, s, q, item_id=item, **tail, **kw)
    return M.serendipity_score(y, s, q, item_id=item, **kw)


NAMES = ["novelty", "novelty(n_users=9)", "arp", "aplt", "aclt(long_tail=0.4)",
         "long_tail_recall(long_tail=0.3)", "serendipity"]  # fmt: skip


def by_name(names, y, s, q, item, pop, **options):
    return grouped_ranking_scores(y, s, q, names, item_id=item, popularity=pop,
                                  **options)  # fmt: skip


# Hand-computed cases.


def test_the_docstring_example_by_hand():
    # Log counts a:4 b:2 c:1 d:1 of 8. Top 2: user 1 (a, b), user 2 (a, d).
    # Self-information: a 1 bit, b 2, d 3. Long tail (head: the ceil(0.25 * 4)
    # = 1 most popular, a): b, c and d. Relevant long-tail rows: user 1 c,
    # user 2 d and b.
    got = by_name(
        ["novelty@2", "arp@2", "aplt(long_tail=0.25)@2", "aclt(long_tail=0.25)@2",
         "long_tail_recall(long_tail=0.25)@2", "serendipity@2", "ndcg@2"],
        Y, SCORE, QID, ITEM, LOG,
    )  # fmt: skip
    assert got == pytest.approx(
        {
            "novelty@2": ((1 + 2) / 2 + (1 + 3) / 2) / 2,
            "arp@2": ((4 + 2) / 2 + (4 + 1) / 2) / 2,
            "aplt(long_tail=0.25)@2": (0.5 + 0.5) / 2,
            "aclt(long_tail=0.25)@2": (1 + 1) / 2,
            # user 1's c is ranked 3rd: 0 of 1; user 2's d 2nd, b 3rd: 1 of 2.
            "long_tail_recall(long_tail=0.25)@2": (0 + 0.5) / 2,
            # The 2 most popular are a and b: user 2's d is relevant and
            # unexpected, 1 of k=2; user 1 has none.
            "serendipity@2": (0 + 0.5) / 2,
            "ndcg@2": grouped_ranking_scores(Y, SCORE, QID, ["ndcg@2"])["ndcg@2"],
        },
        abs=1e-15,
    )


def test_a_tie_across_the_cut_counts_each_row_by_its_chance():
    # a (1 bit) and c (3 bits) tied for the single place: 2 bits expected.
    args = ([1, 1], [0.5, 0.5], [7, 7], ["a", "c"], LOG)
    assert by_name(["novelty@1"], *args)["novelty@1"] == pytest.approx(2.0)
    assert by_name(["novelty@1"], *args, ties="stable")["novelty@1"] == 1.0
    assert by_name(["novelty@1"], *args, ties="reverse")["novelty@1"] == 3.0
    assert by_name(["aclt(long_tail=0.25)@1"], *args)[
        "aclt(long_tail=0.25)@1"
    ] == pytest.approx(0.5)


def test_the_report_has_each_users_value_and_skips_users_without_long_tail():
    name = "long_tail_recall(long_tail=0.25)@2"
    report = ranking_report(Y, SCORE, QID, metrics=["novelty@2", name],
                            item_id=ITEM, popularity=LOG)  # fmt: skip
    assert report["novelty@2"].tolist() == [1.5, 2.0]
    assert report[name].tolist() == [0.0, 0.5]
    # A user whose relevant rows are all in the head is skipped, as by the
    # function; empty="zero" scores it 0 instead.
    y = [1, 1, 0, 1, 0, 0]
    got = by_name([name], y, SCORE, QID, ITEM, LOG)[name]
    assert got == public("long_tail_recall(long_tail=0.25)", y, SCORE, QID, ITEM,
                         LOG, 2) == 1.0  # fmt: skip
    assert by_name([name], y, SCORE, QID, ITEM, LOG, empty="zero")[name] == 0.5
    report = ranking_report(y, SCORE, QID, metrics=[name], item_id=ITEM,
                            popularity=LOG)  # fmt: skip
    assert report["skipped"].tolist() == ["", "no relevant item"]


# Against the functions, and the brute-force expectation over tie orders.


def data(seed, n_queries=25, ties=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_queries)
    q = np.repeat(np.arange(n_queries), sizes)[rng.permutation(sizes.sum())]
    n = q.shape[0]
    s = rng.integers(0, 4, n) / 4 if ties else rng.permutation(n) / n
    item = rng.choice(list("abcdefghij"), n)
    y = rng.integers(0, 3, n)
    pop = {i: int(c) for i, c in zip("abcdefghij", rng.integers(1, 9, 10), strict=True)}
    return y, s, q, item, pop


@pytest.mark.parametrize("ties", ["average", "stable", "reverse"])
@pytest.mark.parametrize("seed", [0, 1])
def test_by_name_equals_the_functions(ties, seed):
    y, s, q, item, pop = data(seed, ties=ties != "stable")
    for k in (1, 3, None):
        names = [n if k is None else f"{n}@{k}" for n in NAMES]
        if k is None:
            names.remove("serendipity")
        got = by_name(names, y, s, q, item, pop, ties=ties)
        for full, base in zip(names, NAMES, strict=False):
            want = public(base, y, s, q, item, pop, k, ties)
            assert got[full] == pytest.approx(want, rel=1e-12, abs=1e-12), full
        report = ranking_report(y, s, q, metrics=names, item_id=item,
                                popularity=pop, ties=ties)  # fmt: skip
        for full, base in zip(names, NAMES, strict=False):
            frame = public(base, y, s, q, item, pop, k, ties, per_query=True)
            np.testing.assert_allclose(report[full], frame.iloc[:, 1], rtol=1e-12,
                                       atol=1e-12, err_msg=full)  # fmt: skip


def test_without_ties_the_floats_are_the_functions():
    y, s, q, item, pop = data(5, ties=False)
    names = [f"{n}@3" for n in NAMES]
    got = by_name(names, y, s, q, item, pop)
    for full, base in zip(names, NAMES, strict=True):
        assert got[full] == pytest.approx(public(base, y, s, q, item, pop, 3),
                                          rel=1e-14, abs=1e-15)  # fmt: skip


@pytest.mark.parametrize("plain", [True, False])
def test_the_compiled_kernels_and_their_python_agree(plain):
    from skndcg._native._jit import no_compile

    y, s, q, item, pop = data(3, n_queries=300)
    names = [f"{n}@4" for n in NAMES]
    # The functions load numba: without no_compile the engine then compiles.
    want = [public(base, y, s, q, item, pop, 4) for base in NAMES]
    with no_compile(plain):
        got = by_name(names, y, s, q, item, pop)
    for full, value in zip(names, want, strict=True):
        assert got[full] == pytest.approx(value, rel=1e-12, abs=1e-12), full


def brute(base, y, s, q, item, pop, k):
    """Mean over every order of each query's rows of the function's value with
    ties="stable": every order of the tied rows, equally often."""
    y, s, q, item = map(np.asarray, (y, s, q, item))
    groups = [np.flatnonzero(q == g) for g in np.unique(q)]
    values = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        rows = np.concatenate(orders)
        values.append(public(base, y[rows], s[rows], q[rows], item[rows], pop, k,
                             "stable"))  # fmt: skip
    return float(np.mean(values))


@pytest.mark.parametrize("base", NAMES)
def test_ties_average_is_the_exact_expectation_over_tie_orders(base):
    y = [1, 0, 2, 1, 0, 1, 1]
    s = [0.5, 0.5, 0.5, 0.2, 0.9, 0.9, 0.1]
    q = [1, 1, 1, 1, 2, 2, 2]
    item = ["a", "c", "d", "b", "c", "a", "e"]
    pop = {"a": 5, "b": 3, "c": 1, "d": 2, "e": 1}
    for k in (1, 2, 3):
        want = brute(base, y, s, q, item, pop, k)
        name = f"{base}@{k}"
        assert by_name([name], y, s, q, item, pop)[name] == pytest.approx(
            want, rel=1e-12, abs=1e-12
        ), name


rows = st.integers(1, 12).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
        st.lists(st.sampled_from("abcde"), min_size=n, max_size=n),
    )
)


@settings(max_examples=40, deadline=None)
@given(rows, st.integers(1, 4), st.sampled_from(NAMES))
def test_property_by_name_equals_the_function(table, k, base):
    y, s, q, item = table
    pop = {"a": 6, "b": 3, "c": 2, "d": 1, "e": 1}
    name = f"{base}@{k}"
    with warnings.catch_warnings():  # (no user with a relevant long-tail item)
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = by_name([name], y, s, q, item, pop)[name]
        want = public(base, y, s, q, item, pop, k)
    if np.isnan(want):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


# Errors.


def test_a_missing_side_input_is_named_with_the_function():
    with pytest.raises(ValueError, match="needs item_id and popularity") as err:
        grouped_ranking_scores(Y, SCORE, QID, ["novelty@2"], popularity=LOG)
    assert "this call lacks item_id" in str(err.value)
    assert "skndcg.metrics.novelty_score" in str(err.value)
    with pytest.raises(ValueError, match="lacks popularity"):
        ranking_report(Y, SCORE, QID, metrics=["arp@2"], item_id=ITEM)


@pytest.mark.parametrize(
    "name, why, function",
    [
        ("ild@5", "pairs of items", "intra_list_diversity_score"),
        ("calibration@5", "category distribution", "calibration_score"),
        ("coverage@5", "not a mean of one value per query", "catalog_coverage_score"),
        ("exposure_gini", "not a mean of one value per query", "exposure_gini_score"),
    ],
)
def test_the_others_are_refused_with_why_and_their_function(name, why, function):
    for call in (
        lambda: registry.parse(name),
        lambda: by_name([name], Y, SCORE, QID, ITEM, LOG),
    ):
        with pytest.raises(ValueError, match=why) as err:
            call()
        assert f"skndcg.metrics.{function}" in str(err.value)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(metrics=["serendipity"]), r"needs a cut-off, as in 'serendipity@10'"),
        (dict(metrics=["novelty(n_users=3)@2"]), r"n_users=3 is below the largest"),
        (dict(metrics=["aplt(long_tail=1)@2"]), r"long_tail=1 is out of range"),
        (dict(metrics=["arp@2"], item_id=ITEM[:5]), "item_id has 5 rows but y_true"),
        (dict(metrics=["arp@2"], popularity={"a": 1}),
         r"missing from popularity.*Give each one a count in popularity, or call "
         r"the measure's function \(skndcg.metrics.novelty_score"),
        (dict(metrics=["novelty@2"], popularity={**dict.fromkeys("abcd", 1), "c": 0}),
         "item 'c' has popularity 0"),
        (dict(metrics=["arp(p=1)@2"]), "arp has no parameter 'p'"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_with_a_clear_message(kwargs, match):
    kwargs = {"item_id": ITEM, "popularity": LOG, **kwargs}
    with pytest.raises(ValueError, match=match):
        grouped_ranking_scores(Y, SCORE, QID, **kwargs)


# Scorers, the command line, and the scale-out paths.


class _Model:
    def fit(self, X, y):
        self.feature_names_in_ = np.array(["f"])
        return self

    def predict(self, X):
        assert list(X.columns) == ["f"]
        return X["f"].to_numpy()


def test_a_scorer_reads_the_item_column_and_drops_it():
    X = pd.DataFrame({"qid": QID, "item": ITEM, "f": SCORE})
    names = ["novelty@2", "ndcg@2"]
    scorer = M.make_ranking_scorer(names, item_col="item", popularity=LOG)
    assert repr(scorer) == (
        "make_ranking_scorer(['novelty@2', 'ndcg@2'], item_col='item', "
        "popularity=<list>)"
    )
    want = by_name(names, Y, SCORE, QID, ITEM, LOG)
    assert scorer(_Model().fit(X, Y), X, Y) == want
    assert pickle.loads(pickle.dumps(scorer))(_Model().fit(X, Y), X, Y) == want
    # arp is better lower: negated, as scikit-learn's "neg_*" scorers.
    arp = M.make_ranking_scorer("arp@2", item_col="item", popularity=LOG)
    assert arp(_Model().fit(X, Y), X, Y) == -2.75
    with pytest.raises(ValueError, match="no column 'items'"):
        M.make_ranking_scorer("arp@2", item_col="items", popularity=LOG)(
            _Model().fit(X, Y), X, Y
        )


def test_a_scorer_without_the_side_inputs_is_refused_when_made():
    with pytest.raises(ValueError, match="pass item_col= and popularity="):
        M.make_ranking_scorer("novelty@10")
    with pytest.raises(ValueError, match="pass popularity="):
        M.make_ranking_scorer(["ndcg@10", "arp@10"], item_col="item")
    with pytest.raises(ValueError, match="none of the metrics asked for"):
        M.make_ranking_scorer("ndcg@10", item_col="item", popularity=LOG)


def test_the_command_line_asks_for_the_popularity_file(tmp_path):
    run = tmp_path / "run.tsv"
    run.write_text("qid\tlabel\tscore\n1\t1\t0.5\n1\t0\t0.2\n")
    out = subprocess.run(
        [sys.executable, "-m", "skndcg", "score", str(run), "-m", "novelty@10"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 2
    assert "'novelty@10' reads the item of each row" in out.stderr
    assert "--popularity FILE" in out.stderr


@pytest.mark.parametrize("command", ["score", "trec_eval"])
@pytest.mark.parametrize(
    "name, function",
    [
        ("ild@10", "intra_list_diversity_score"),
        ("coverage", "catalog_coverage_score"),
        ("calibration@10", "calibration_score"),
    ],
)
def test_the_command_line_names_the_function_of_a_measure_it_cannot_take(
    tmp_path, command, name, function
):
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    files = [str(run), "--qrels", str(qrels)]
    if command == "trec_eval":
        files = [str(qrels), str(run)]
    out = subprocess.run(
        [sys.executable, "-m", "skndcg", command, *files, "-m", name],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 2
    assert "is a beyond-accuracy measure" in out.stderr
    assert f"skndcg.metrics.{function}" in out.stderr
    assert "a run and its judgments do not carry" in out.stderr
    assert "unknown measure" not in out.stderr


def test_streaming_and_dask_ask_for_the_side_inputs(tmp_path):
    frame = pd.DataFrame({"qid": QID, "label": Y, "score": SCORE})
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path)
    from skndcg.streaming import score_parquet

    cols = dict(qid_col="qid", label_col="label", score_col="score")
    with pytest.raises(ValueError, match="pass item_col= and popularity="):
        score_parquet(path, ["novelty@2"], **cols)
    dd = pytest.importorskip("dask.dataframe")
    import skndcg.dask as sd

    with pytest.raises(ValueError, match="pass item_col= and popularity="):
        sd.grouped_ranking_scores(dd.from_pandas(frame, npartitions=2),
                                  ["arp@2"], **cols)  # fmt: skip


def test_an_entry_point_without_item_ids_names_torch():
    from skndcg.metrics._shared import evaluate

    with pytest.raises(ValueError, match=r"skndcg\.torch's tensors carry none"):
        evaluate(Y, SCORE, QID, ["arp@2"])
