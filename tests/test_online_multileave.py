"""multileave and multileaving_result: rules, credit, a known ordering, errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skndcg.online import (
    multileave,
    multileaving_result,
    simulate_click_log,
    simulate_clicks,
)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 9), n_rankers=st.integers(2, 4))
def test_team_draft_multileaving_follows_its_rules(seed, k, n_rankers):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, 8)
    qid = np.repeat(np.arange(8), sizes)
    item = np.concatenate([rng.permutation(s) for s in sizes])
    scores = rng.integers(0, 3, (qid.size, n_rankers)).astype(float)
    out = multileave(qid, item, scores, k=k, random_state=seed)
    for q, lst in out.groupby("qid"):
        rows = np.flatnonzero(qid == q)
        assert len(lst) == min(k, rows.size)
        picked = []
        teams = lst["team"].tolist()
        for j, (row, team) in enumerate(zip(lst["row"], teams, strict=True)):
            own = sorted(rows, key=lambda r, t=team: (-scores[r, t], r))
            assert row == next(r for r in own if r not in picked)
            picked.append(row)
            # rounds of n_rankers turns: each ranker once per round
            start = j - j % n_rankers
            assert teams[start : j + 1].count(team) == 1


def test_the_best_ranker_wins_every_pair():
    sim = simulate_click_log(3000, 20, 10, random_state=0)
    log = sim.log
    rel = log["relevance"].to_numpy()
    rng = np.random.default_rng(0)
    logit = np.log(rel / (1 - rel))
    noise = np.array([0.3, 1.0, 3.0])  # ranker 0 best, ranker 2 worst
    scores = logit[:, None] + rng.normal(size=(rel.size, 3)) * noise
    lists = multileave(log["qid"], log["item"], scores, random_state=1)
    click = simulate_clicks(lists["qid"], lists["position"], rel[lists["row"]],
                            random_state=2)  # fmt: skip
    res = multileaving_result(lists, click)
    assert res[["ranker_a", "ranker_b"]].to_numpy().tolist() == [[0, 1], [0, 2], [1, 2]]
    assert (res["delta"] > 0).all()
    assert (res["p_value"] < 0.01).all()
    assert (res["wins_a"] + res["wins_b"] + res["ties"] == 3000).all()


def test_two_rankers_agree_with_team_draft_credit():
    from skndcg.online import interleaving_result

    lists = pd.DataFrame({"qid": [1, 1, 2, 2, 3, 3], "team": [0, 1, 1, 0, 0, 1]})
    click = [1, 0, 1, 0, 1, 1]
    res = multileaving_result(lists, click).iloc[0]
    two = lists.assign(team=np.where(lists["team"] == 0, "a", "b"))
    ref = interleaving_result(two, click, method="team_draft")
    assert (res["wins_a"], res["wins_b"], res["ties"]) == ref[:3]
    assert res["p_value"] == pytest.approx(ref.p_value)


@pytest.mark.parametrize(
    "scores, match",
    [
        ([1.0, 2.0, 3.0], r"scores must have shape \(n_rows, n_rankers\)"),
        ([[1.0], [2.0], [3.0]], r"= \(3, >= 2\)"),
        ([[1.0, 2], [np.nan, 1], [0, 0]], r"scores\[:, 0\] contains 1 NaN"),
    ],
)
def test_multileave_bad_scores(scores, match):
    with pytest.raises(ValueError, match=match):
        multileave([1, 1, 1], [1, 2, 3], scores)


def test_multileave_refuses_a_mapping_of_scores():
    # It was numpy's "float() argument must be a string or a real number".
    scores = {"a": [1.0, 2.0, 3.0], "b": [3.0, 2.0, 1.0]}
    with pytest.raises(TypeError, match=r"shape \(n_rows, n_rankers\).*got a dict"):
        multileave([1, 1, 1], [1, 2, 3], scores)


def test_multileave_and_result_bad_input():
    with pytest.raises(ValueError, match=r"rows \[0, 1\] share qid 1 and item 5"):
        multileave([1, 1], [5, 5], [[1.0, 2.0], [2.0, 1.0]])
    lists = pd.DataFrame({"qid": [1, 1], "team": [0, 1]})
    with pytest.raises(ValueError, match="click must hold one value per row"):
        multileaving_result(lists, [1])
    with pytest.raises(ValueError, match="ranker indices"):
        multileaving_result(lists.assign(team=["a", "b"]), [1, 0])
    with pytest.raises(ValueError, match="lacks the column 'team'"):
        multileaving_result(lists.drop(columns="team"), [1, 0])
    # a NaN query was one query; a team beyond attrs' rankers a numpy error
    with pytest.raises(ValueError, match="qid is missing at row 0"):
        multileaving_result(lists.assign(qid=[np.nan, np.nan]), [1, 0])
    lists.attrs["n_rankers"] = 1
    with pytest.raises(ValueError, match=r"holds ranker 1, but .*says there are 1"):
        multileaving_result(lists, [1, 0])
