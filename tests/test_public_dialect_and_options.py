"""The public read and extension modules other packages build on:
``skndcg.metrics.conventions`` (a call's options, for backends) and
``skndcg.metrics.trec_dialect`` (trec_eval's names)."""

import numpy as np
import pytest

from skndcg.metrics import (
    conventions,
    get_convention,
    grouped_ranking_scores,
    registry,
    trec_dialect,
)

Y = [2, 0, 1, 0, 1, 3]
S = [0.3, 0.1, 0.2, 0.5, 0.4, 0.1]
Q = [1, 1, 1, 2, 2, 2]


# ------------------------------------------------------------------ conventions
def test_options_are_the_engine_options_read_only():
    assert list(conventions.OPTIONS)[:3] == ["gain", "discount", "ties"]
    assert conventions.OPTIONS["discount"] == "log2"
    with pytest.raises(TypeError):
        conventions.OPTIONS["ties"] = "stable"


@pytest.mark.parametrize(
    "bad",
    [{"ties": "random"}, {"empty": "nope"}, {"convention": "nope"},
     {"rel_threshold": float("nan")}, {"nan_score": "drop"}],
)  # fmt: skip
def test_call_options_refuses_as_the_engine_does(bad):
    with pytest.raises(ValueError) as engine:
        grouped_ranking_scores(Y, S, Q, metrics=["ndcg", "map"], **bad)
    with pytest.raises(ValueError) as public:
        conventions.call_options(**bad)
    assert str(public.value) == str(engine.value)


def test_call_options_refuses_an_unknown_keyword():
    with pytest.raises(TypeError, match=r"unexpected option colour='red'"):
        conventions.call_options(colour="red")


def test_call_options_resolves_a_preset_as_get_convention():
    options = conventions.call_options(convention="trec_eval")
    assert isinstance(options, conventions.CallOptions)
    assert options.conv == get_convention("trec_eval")
    assert options.tie_rule(doc_id_given=True).by_doc_id
    assert conventions.call_options(gain="linear").conv.gain == "linear"


def test_torch_options_go_through_the_public_checker():
    # skndcg.torch's checker is built on the public module (torch need not be
    # installed to read it).
    import ast
    from pathlib import Path

    import skndcg

    source = Path(skndcg.__file__).parent / "torch" / "_options.py"
    tree = ast.parse(source.read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "metrics.conventions" in modules


# ------------------------------------------------------------------ trec_dialect
@pytest.mark.parametrize(
    "trec, ours",
    [("P_10", "p@10"), ("recip_rank", "mrr"), ("ndcg_cut_10", "ndcg@10"),
     ("map", "map"), ("iprec_at_recall_0.10", "iprec(recall=0.1)")],
)  # fmt: skip
def test_a_trec_name_resolves_to_the_registry_measure(trec, ours):
    (measure,), missing = trec_dialect.resolve([trec])
    assert missing == []
    assert isinstance(measure, trec_dialect.TrecMeasure)
    assert measure.trec_name == trec
    assert registry.parse(measure.metric) == registry.parse(ours)
    assert trec_dialect.to_trec(ours)[0] == trec
    assert trec_dialect.to_trec(registry.parse(ours)) == trec_dialect.to_trec(ours)


def test_a_trec_name_scores_as_the_registry_name():
    (measure,), _ = trec_dialect.resolve(["ndcg_cut_2"])
    ours = grouped_ranking_scores(Y, S, Q, metrics=[measure.metric])
    assert ours == grouped_ranking_scores(Y, S, Q, metrics=["ndcg@2"])


def test_nicknames_and_counts():
    found, missing = trec_dialect.expand("official")
    names = [m.trec_name for m in found]
    assert names[: len(trec_dialect.COUNTS)] == list(trec_dialect.COUNTS)
    assert all(m.metric is None for m in found if m.trec_name in trec_dialect.COUNTS)
    assert set(trec_dialect.NICKNAMES) == {"official", "all_trec", "set"}
    assert missing == []
    with pytest.raises(TypeError):
        trec_dialect.NICKNAMES["mine"] = ("map",)
    assert [m.order for m in found] == sorted(m.order for m in found)
    assert trec_dialect.TABLE_ORDER[0] == "runid"


def test_an_unknown_trec_name_is_refused_with_a_suggestion():
    with pytest.raises(ValueError, match=r"Did you mean 'recip_rank'"):
        trec_dialect.resolve(["recip_rnk"])


def test_rel_and_custom_gains():
    assert trec_dialect.split_rel("P(rel=2)@5") == ("P@5", 2.0)
    (measure,), _ = trec_dialect.expand("ndcg.1=0.5,2=3")
    gain = trec_dialect.gain_function(measure.gains)
    assert np.array_equal(gain(np.array([-1, 0, 1, 2, 3])), [0, 0, 0.5, 3, 3])
    assert trec_dialect.to_trec("err@5") is None


def test_the_public_modules_list_their_names():
    for module in (conventions, trec_dialect):
        # sorted as ruff sorts __all__: constants, classes, functions
        kinds = [(not n.isupper(), not n[0].isupper(), n) for n in module.__all__]
        assert kinds == sorted(kinds)
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj):
                assert "Examples" in obj.__doc__, f"{module.__name__}.{name}"
