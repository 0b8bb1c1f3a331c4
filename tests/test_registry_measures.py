"""Every registered measure, picked up from the registry: against the brute-force
reference, invariant under row order, the same on the engine's no-compile
backend as on the compiled one, and the same through Dask and streaming.

A measure added to ``skndcg/metrics/_measures/`` is collected here by itself; its
brute-force reference goes in ``tests/reference.py`` (``REFERENCES`` below).
"""

import numpy as np
import pandas as pd
import pytest
from reference import per_query_measure, query_metric
from scale_cases import local_cluster

import skndcg.dask as sd
from skndcg._native._jit import no_compile
from skndcg.metrics import grouped_ranking_scores, ranking_report
from skndcg.metrics._catalogue._registry import measures
from skndcg.metrics._core._engine import evaluate
from skndcg.streaming import score_parquet

BLOCK = {"ndcg", "dcg", "idcg", "map", "mrr", "p", "r", "hit"}
PER_QUERY = {"err", "nerr", "rbp", "rbp_resid", "rprec", "bpref", "judged"}
PER_QUERY |= {"gm_map", "iprec", "gm_bpref", "set_p", "set_recall", "set_map"}
PER_QUERY |= {"set_relative_p", "set_f", "rprec_mult", "iprec_11pt"}
PER_QUERY |= {"unj", "nonrel_judged", "relative_p", "bin_g", "utility", "g"}
PER_QUERY |= {"ndcg_rel", "rndcg", "infap", "trec_rbp", "trec_rbp_resid"}
PER_QUERY |= {"yaap"}
BUILTIN = [m for m in measures() if m.builtin]


def names_of(measure):
    """The names to check a measure under: with and without a cut-off."""
    return [measure.name, f"{measure.name}@3"] if measure.cutoff else [measure.name]


def reference(measure, labels, scores, k, label_max):
    if measure.name in BLOCK:
        return query_metric(labels, scores, measure.name, k)
    if measure.name in PER_QUERY:
        return per_query_measure(labels, scores, measure.name, k, label_max=label_max)
    raise AssertionError(
        f"no brute-force reference for {measure.name!r}: add one to tests/reference.py"
    )


def table(seed, n_queries=30):
    """Small queries (the reference enumerates tied orders) with ties and empty ones."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, n_queries)
    qid = np.repeat(np.arange(n_queries) * 5 + 1, sizes)
    label = rng.integers(0, 4, qid.size).astype(float)
    label[qid == qid[0]] = 0.0
    score = rng.integers(0, 4, qid.size) / 4.0
    perm = rng.permutation(qid.size)
    return pd.DataFrame({"qid": qid, "label": label, "score": score}).iloc[perm]


def test_every_shipped_measure_is_known_here():
    assert {m.name for m in BUILTIN} == BLOCK | PER_QUERY


@pytest.mark.parametrize("measure", BUILTIN, ids=lambda m: m.name)
def test_against_reference(measure):
    df = table(1)
    y, s, q = (df[c].to_numpy() for c in ("label", "score", "qid"))
    for name in names_of(measure):
        k = 3 if "@" in name else None
        report = ranking_report(y, s, q, metrics=[name], empty="zero")
        for key, got in zip(report["qid"], report[name], strict=True):
            rows = q == key
            want, empty = reference(measure, list(y[rows]), list(s[rows]), k, y.max())
            # empty="zero" scores an empty query 0; the report shows DCG and
            # the ideal DCG as computed.
            if empty and measure.name not in ("dcg", "idcg"):
                want = 0.0
            assert got == pytest.approx(want, abs=1e-12), (name, key)


@pytest.mark.parametrize("measure", BUILTIN, ids=lambda m: m.name)
def test_row_order_invariance(measure):
    df = table(2)
    shuffled = df.sample(frac=1.0, random_state=0)
    names = names_of(measure)
    a = grouped_ranking_scores(df["label"], df["score"], df["qid"], names)
    b = grouped_ranking_scores(
        shuffled["label"], shuffled["score"], shuffled["qid"], names
    )
    assert a == pytest.approx(b, abs=1e-13)


# Options that change what the kernels read: every tie rule, the trec_eval
# preset (its label rule, pooled unjudged rows), unjudged and unretrieved rows.
BACKEND_CASES = {
    "average": ({}, None),
    "stable": ({"ties": "stable"}, None),
    "reverse": ({"ties": "reverse", "empty": "zero"}, None),
    "trec_eval": ({"convention": "trec_eval"}, None),
    "unjudged": ({"nan_label": "unjudged"}, "label"),
    "unretrieved": ({"ties": "stable", "nan_score": "unretrieved"}, "score"),
}


@pytest.mark.parametrize("case", BACKEND_CASES)
@pytest.mark.parametrize("measure", BUILTIN, ids=lambda m: m.name)
def test_no_compile_backend_gives_the_compiled_numbers(measure, case, monkeypatch):
    """Small inputs are scored without the compiler (the fast start), large
    ones compiled: the two must agree to the last bit, or a number would
    depend on the size of the input."""
    monkeypatch.setenv("SKNDCG_PLAIN_CELLS", "0")  # outside no_compile: compiled
    options, holes = BACKEND_CASES[case]
    df = table(5, n_queries=40)
    y, s, q = (df[c].to_numpy() for c in ("label", "score", "qid"))
    mask = np.random.default_rng(6).random(y.size) < 0.25
    if holes == "label":
        y = np.where(mask, np.nan, y)
    elif holes == "score":
        s = np.where(mask, np.nan, s)
    names = [*names_of(measure), f"{measure.name}@1"][: 3 if measure.cutoff else 1]
    with no_compile():
        plain = evaluate(y, s, q, names, **options)
    compiled = evaluate(y, s, q, names, **options)
    for field in ("values", "raw", "aux", "n_relevant", "n_relevant_retrieved"):
        a, b = getattr(plain, field), getattr(compiled, field)
        assert np.array_equal(a, b, equal_nan=True), (names, field)


ALL_NAMES = [n for m in BUILTIN for n in names_of(m)]


def test_streaming_matches_in_memory(tmp_path):
    df = table(3).sort_values("qid", kind="stable", ignore_index=True)
    path = tmp_path / "run.parquet"
    df.to_parquet(path, row_group_size=17, index=False)
    got = score_parquet(path, ALL_NAMES, qid_col="qid", label_col="label",
                        score_col="score", batch_size=40)  # fmt: skip
    want = grouped_ranking_scores(df["label"], df["score"], df["qid"], ALL_NAMES)
    assert got == pytest.approx(want, abs=1e-12)


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def test_dask_matches_in_memory(client):
    import dask.dataframe as dd

    df = table(4)
    ddf = dd.from_pandas(df, npartitions=4)
    got = sd.grouped_ranking_scores(
        ddf, ALL_NAMES, qid_col="qid", label_col="label", score_col="score"
    )
    want = grouped_ranking_scores(df["label"], df["score"], df["qid"], ALL_NAMES)
    assert got == pytest.approx(want, abs=1e-12)


def test_docs_table_lists_every_measure():
    from skndcg.metrics._catalogue._table import measure_table_rst

    table = measure_table_rst()
    for m in measures():
        assert f"   * - ``{m.name}``" in table
        assert m.description in table
