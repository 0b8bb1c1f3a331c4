"""The beyond-accuracy measures in the registry's read API, their names refused
with a message naming the function, and their ranking through the engine's."""

import inspect

import numpy as np
import pytest

import skndcg.metrics as M
from skndcg.metrics import registry
from skndcg.metrics._beyond._topk import rank
from skndcg.metrics._core._perquery import ranked_order

BEYOND_MODULES = {"_beyond._coverage", "_beyond._popularity", "_beyond._exposure",
                  "_beyond._calibration"}  # fmt: skip


def _function(entry):
    return getattr(M, entry.function.split("(")[0])


def test_every_beyond_accuracy_score_is_listed():
    scores = {
        name
        for name, module in M._LAZY.items()
        if module in BEYOND_MODULES and name.endswith("_score")
    }
    listed = {m.function.split("(")[0] for m in registry.beyond_accuracy()}
    assert listed == scores


def test_the_listing_says_what_each_needs_and_whether_it_is_per_query():
    for m in registry.beyond_accuracy():
        params = inspect.signature(_function(m)).parameters
        for need in m.needs:
            for name in need.replace(" (optional)", "").split(" or "):
                assert name in params, (m.name, name)
        if "per_query" in params:
            assert m.per_query, m.name
    by_name = {m.name: m for m in registry.beyond_accuracy()}
    assert by_name["ild"].per_query and by_name["novelty"].per_query
    assert not by_name["coverage"].per_query
    assert not by_name["exposure_gini"].per_query


def test_only_the_per_query_sums_are_registered_with_side_inputs():
    registered = {n for m in registry.measures() for n in (m.name, *m.aliases)}
    for m in registry.beyond_accuracy():
        assert not {m.name, *m.aliases} & registered, m.name
        if m.by_name:
            assert m.per_query and not m.why, m.name
            assert registry.describe(m.name).side_inputs == ("item_id", "popularity")
        else:
            assert m.why, m.name


@pytest.mark.parametrize(
    "name, function",
    [
        ("ild", "intra_list_diversity_score"),
        ("calibration@5", "calibration_score"),
        ("coverage@10", "catalog_coverage_score"),
        ("exposure_gini@10", "exposure_gini_score"),
    ],
)
def test_a_beyond_accuracy_name_is_refused_with_its_function(name, function):
    y, s, q = [1, 0, 1], [0.3, 0.2, 0.1], [1, 1, 2]
    calls = [
        lambda: M.grouped_ranking_scores(y, s, q, metrics=[name]),
        lambda: M.ranking_report(y, s, q, metrics=[name]),
        lambda: M.make_ranking_scorer(name),
        lambda: registry.parse(name),
        lambda: registry.describe(name.split("@")[0]),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=f"skndcg.metrics.{function}") as err:
            call()
        assert "(y_true, y_score, qid) do not carry" in str(err.value)


def test_a_measure_that_is_not_per_query_says_so():
    with pytest.raises(ValueError, match="not a mean over queries"):
        registry.parse("exposure_entropy@10")
    with pytest.raises(ValueError, match="a mean over queries of a per-query"):
        registry.parse("ild@10")


def test_top_k_rank_is_the_engines_ranked_order():
    rng = np.random.default_rng(3)
    n = 400
    qid = rng.integers(0, 30, n)
    score = rng.integers(0, 5, n).astype(float)
    r = rank(score, qid, n, "stable")
    # Per query (canonical order): the engine's order of the grouped rows.
    s_g = r.grouping.take(score)
    rows_g = r.grouping.take(np.arange(n))
    engine, _ = ranked_order(s_g, r.grouping)
    for g in range(r.grouping.n_groups):
        lo, hi = r.grouping.starts[g], r.grouping.ends[g]
        assert np.array_equal(r.rows[r.gid == g], rows_g[engine[lo:hi]])
    # Best score first, ties in row order; reversed under ties="reverse".
    for g in range(r.grouping.n_groups):
        rows = r.rows[r.gid == g]
        assert np.all(np.diff(score[rows]) <= 0)
        back = rank(score, qid, n, "reverse").rows[r.gid == g]
        for v in np.unique(score[rows]):
            tied = rows[score[rows] == v]
            assert np.all(np.diff(tied) > 0)
            assert np.array_equal(back[score[back] == v], tied[::-1])


def test_average_ties_form_blocks():
    r = rank([0.5, 0.5, 0.9, 0.5], [1, 1, 1, 1], 4, "average")
    assert r.rows.tolist() == [2, 0, 1, 3]
    assert r.block_pos.tolist() == [0, 1, 1, 1]
    assert r.block_len.tolist() == [1, 3, 3, 3]


def test_an_unknown_tie_rule_says_which_ones_are_taken():
    with pytest.raises(ValueError, match="rank by score alone"):
        M.novelty_score(
            [1, 2], [0.2, 0.1], [1, 1], popularity={1: 3, 2: 1}, ties="docid"
        )
