"""trec_eval's and ir_measures' names for the registry's measures, both ways."""

import re

import pytest

from skndcg.metrics import grouped_ranking_scores
from skndcg.metrics._catalogue._names import parse_metric
from skndcg.metrics._catalogue._trec_names import (
    NICKNAMES,
    TABLE_ORDER,
    closest,
    expand,
    resolve,
    split_rel,
    to_trec,
    translate,
)

SAME = [
    # trec_eval
    ("P_10", "p@10"), ("P_5", "p@5"), ("p_5", "p@5"), ("recall_100", "r@100"),
    ("ndcg_cut_10", "ndcg@10"), ("ndcg_cut.10", "ndcg@10"), ("map_cut_5", "map@5"),
    ("recip_rank", "mrr"), ("map", "map"), ("ndcg", "ndcg"), ("Rprec", "rprec"),
    ("bpref", "bpref"), ("gm_map", "gm_map"), ("success_1", "hit@1"),
    ("iprec_at_recall_0.10", "iprec(recall=0.1)"),
    ("iprec_at_recall_0.00", "iprec"),
    # ir_measures
    ("nDCG@10", "ndcg@10"), ("AP", "map"), ("RR", "mrr"), ("R@100", "r@100"),
    ("Judged@10", "judged@10"), ("RBP(p=0.8)", "rbp"), ("RBP(p=0.9)", "rbp(p=0.9)"),
    ("Bpref", "bpref"), ("IPrec@0.2", "iprec(recall=0.2)"), ("Success@5", "hit@5"),
]  # fmt: skip


@pytest.mark.parametrize("name, canonical", SAME)
def test_names_read_as_the_registry_measure(name, canonical):
    assert parse_metric(name) == parse_metric(canonical)


@pytest.mark.parametrize(
    "canonical, trec",
    [("p@10", "P_10"), ("r@5", "recall_5"), ("ndcg@10", "ndcg_cut_10"),
     ("ndcg", "ndcg"), ("map", "map"), ("map@100", "map_cut_100"),
     ("mrr", "recip_rank"), ("rprec", "Rprec"), ("bpref", "bpref"),
     ("hit@5", "success_5"), ("gm_map", "gm_map"),
     ("iprec(recall=0.3)", "iprec_at_recall_0.30")],
)  # fmt: skip
def test_names_out_and_back(canonical, trec):
    name, _ = to_trec(parse_metric(canonical))
    assert name == trec
    assert parse_metric(translate(trec)) == parse_metric(canonical)


def test_no_trec_eval_name():
    assert to_trec(parse_metric("err@10")) is None
    assert to_trec(parse_metric("rbp")) is None  # trec_eval's rbp reads gains otherwise


def test_families_and_parameters():
    found, missing = expand("P.5,10")
    assert [(m.trec_name, m.metric) for m in found] == [
        ("P_5", "p@5"),
        ("P_10", "p@10"),
    ]
    assert missing == []
    assert [m.trec_name for m in expand("P.10,5")[0]] == ["P_5", "P_10"]  # sorted
    assert [m.trec_name for m in expand("success")[0]] == [
        "success_1", "success_5", "success_10",
    ]  # fmt: skip
    levels = [m.trec_name for m in expand("iprec_at_recall.0.5,1")[0]]
    assert levels == ["iprec_at_recall_0.50", "iprec_at_recall_1.00"]


def test_official_is_trec_eval_s_list():
    found, missing = expand("official")
    assert missing == []
    names = [m.trec_name for m in found]
    assert names[:10] == list(NICKNAMES["official"][:10])
    assert names[-9:] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert len(names) == 10 + 11 + 9


def test_resolve_follows_trec_eval():
    # One line per measure, in trec_eval's table order; a family's first -m
    # with parameters wins over its defaults.
    found, _ = resolve(["ndcg_cut.5", "P.10", "official", "P.1", "map"])
    names = [m.trec_name for m in found]
    assert names.count("map") == 1 and "P_1" not in names and "P_5" not in names
    ranks = [m.order for m in found]
    assert ranks == sorted(ranks)
    assert [TABLE_ORDER[r[0]] for r in ranks][:2] == ["runid", "num_q"]


def test_all_trec_is_computed_whole():
    found, missing = expand("all_trec")
    assert missing == []
    names = {m.trec_name for m in found}
    assert names >= {"map", "ndcg", "success_10", "P_1000", "rbp", "relstring"}


def test_rbp_names():
    assert [(m.trec_name, m.metric) for m in expand("rbp.p=0.95")[0]] == [
        ("rbp_p=0.95", "trec_rbp(p=0.95)")
    ]
    assert to_trec(parse_metric("trec_rbp")) == ("rbp", (37, 0))
    assert to_trec(parse_metric("trec_rbp_resid(p=0.5)"))[0] == "rbp_resid_p=0.5"
    assert translate("rbp_resid.p=0.5") == "trec_rbp_resid(p=0.5)"
    # skndcg's rbp keeps its own name: ranx's and Moffat & Zobel's definition.
    assert parse_metric("rbp").measure == "rbp"
    relstring = expand("relstring.5")[0][0]
    assert (relstring.trec_name, relstring.metric, relstring.length) == (
        "relstring_5", None, 5,
    )  # fmt: skip


@pytest.mark.parametrize(
    "name, near",
    [("ndgc_cut_10", "ndcg_cut_10"), ("recip_rnk", "recip_rank"),
     ("ndgc@10", "ndcg@10"), ("ndcg_cutt.10", "ndcg_cut.10"),
     ("offical", "official"), ("Rprex", "Rprec")],
)  # fmt: skip
def test_closest_name(name, near):
    assert closest(name) == near


def test_unknown_name_suggests():
    with pytest.raises(ValueError, match="Did you mean 'recip_rank'"):
        parse_metric("recip_rnk")
    with pytest.raises(ValueError, match=r"names 2 metrics \(P_5, P_10\)"):
        parse_metric("P.5,10")
    with pytest.raises(ValueError, match="unknown measure 'foo'"):
        expand("foo")


def test_rel_parameter():
    assert split_rel("P(rel=2)@5") == ("P@5", 2.0)
    assert split_rel("RBP(p=0.9, rel=2)") == ("RBP(p=0.9)", 2.0)
    assert split_rel("nDCG@10") == ("nDCG@10", None)
    with pytest.raises(ValueError, match="rel_threshold=2"):
        parse_metric("P(rel=2)@5")


def test_trec_names_score_in_the_python_api():
    y, s, q = [2, 0, 1, 1], [0.9, 0.8, 0.1, 0.5], ["a", "a", "a", "b"]
    got = grouped_ranking_scores(y, s, q, ["P_1", "recip_rank", "ndcg_cut_2"],
                                 convention="trec_eval")  # fmt: skip
    want = grouped_ranking_scores(y, s, q, ["p@1", "mrr", "ndcg@2"],
                                  convention="trec_eval")  # fmt: skip
    assert list(got.values()) == list(want.values())
    assert list(got) == ["P_1", "recip_rank", "ndcg_cut_2"]


def test_trec_eval_convention_takes_a_relevance_level():
    y, s, q = [2, 1, 0], [0.9, 0.8, 0.1], ["a", "a", "a"]
    got = grouped_ranking_scores(y, s, q, ["map", "p@2"], convention="trec_eval",
                                 rel_threshold=2)  # fmt: skip
    assert got == {"map": 1.0, "p@2": 0.5}


@pytest.mark.parametrize(
    "name, message",
    [("ndcg@\uff15", "unknown metric 'ndcg@\uff15'; valid forms are \"ndcg@10\""),
     ("nDCG@\uff15", "unknown metric"), ("ndcg@1_0", "unknown metric 'ndcg@1_0'"),
     ("rbp(p=0.8_0)", "metric 'rbp(p=0.8_0)': parameter p='0.8_0' must be a number"),
     ("rbp(p=\uff10.8)", "parameter p='\uff10.8' must be a number"),
     ("P(rel=\uff12)@5", "metric 'P(rel=\uff12)@5': rel='\uff12' must be a number"),
     ("P(rel=1_0)@5", "rel='1_0' must be a number"),
     ("P_\uff11\uff10", "unknown metric 'P_\uff11\uff10'"),
     ("iprec_at_recall_\uff10.10", "unknown metric")],
)  # fmt: skip
def test_skndcg_names_read_ascii_digits_only(name, message):
    # int() and float() read '1_0' as 10 and fullwidth digits as digits.
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_metric(name)


@pytest.mark.parametrize(
    "arg, message",
    [("P.\uff15", "P takes integer cut-offs separated by ','"),
     ("ndcg_cut.\uff15,10", "got '\uff15'"),
     ("iprec_at_recall.\uff10.5", "iprec_at_recall takes numbers"),
     ("11pt_avg.\uff10.5", "recall levels in [0, 1]"),
     ("utility.\uff11,-1,0,0", "utility takes 4 numbers"),
     ("utility.1_0,-1,0,0", "utility takes 4 numbers"),
     ("rbp.p=\uff10.9", "parameter p='\uff10.9' must be a number"),
     ("rbp.p=0.9_5", "parameter p='0.9_5' must be a number"),
     ("ndcg.\uff11=5", "level=gain pairs"), ("ndcg.1=1_0", "level=gain pairs"),
     ("relstring.\uff12", "relstring takes the number of documents")],
)  # fmt: skip
def test_trec_eval_names_read_no_non_ascii_digit(arg, message):
    # trec_eval's atol() and atof() read no digit there, as in P.x; skndcg
    # refuses what they read as 0, and numbers its float() would misread.
    with pytest.raises(ValueError, match=re.escape(message)):
        expand(arg)


def test_trec_eval_reads_a_cut_off_up_to_its_first_non_digit():
    # atol("1_0") is 1, atol("2\uff15") is 2: trec_eval's P_1 and P_2.
    assert [m.trec_name for m in expand("P.1_0,2\uff15")[0]] == ["P_1", "P_2"]
    assert parse_metric("P.1_0").name == "p@1"


@pytest.mark.parametrize(
    "name, match",
    [
        ("iprec@1.2.3", r"unknown metric 'iprec@1\.2\.3'"),
        ("success@５", r"unknown metric 'success@５'"),
        ("success@0", r"metric 'success@0' has cut-off 0"),
    ],
)
def test_translated_names_are_refused_as_given(name, match):
    # iprec@1.2.3 failed in float(); success@５ was refused as 'hit@５'.
    with pytest.raises(ValueError, match=match):
        grouped_ranking_scores([1, 0], [0.2, 0.1], [1, 1], metrics=[name])


@pytest.mark.parametrize("name", ["rbp_5", "rbp_resid_0.10", "RBP_5"])
def test_a_pairs_family_has_no_single_value_name(name):
    # rbp and rbp_resid take p=VALUE pairs: 'rbp_5' is no measure of theirs
    # (it crashed with KeyError 'pairs' inside the name reader).
    with pytest.raises(ValueError, match=re.escape(f"unknown measure {name!r}")):
        resolve([name])
    with pytest.raises(ValueError, match="unknown metric"):
        parse_metric(name)


@pytest.mark.parametrize("name", ["novelty@10", "serendipity@5", "arp@10"])
def test_a_measure_named_by_name_says_what_a_run_lacks(name):
    # The refusal read "cannot be named among the metrics of a call: ." for
    # the measures that can be named, given item_id and popularity.
    with pytest.raises(ValueError) as err:
        resolve([name])
    text = str(err.value)
    assert ": ." not in text and "cannot be named" not in text
    assert "needs item_id and popularity, which a run and its judgments" in text
    assert "item_id=, popularity=" in text
