"""Invariances of the grouped metrics (hypothesis) and the grouping paths."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_metrics_reference import ranking_data

from skndcg.metrics import grouped_ranking_scores, ranking_report
from skndcg.metrics._core._group import group_rows

NAMES = ["ndcg@3", "dcg@2", "map@3", "mrr", "p@2", "r@3", "hit@1", "ndcg"]


def _scores(y, s, q, **kw):
    return grouped_ranking_scores(y, s, q, NAMES, empty="zero", **kw)


@given(ranking_data(), st.randoms(use_true_random=False))
def test_row_permutation_invariance_with_averaged_ties(data, rnd):
    y, s, q = data
    perm = np.arange(y.size)
    rnd.shuffle(perm)
    a, b = _scores(y, s, q), _scores(y[perm], s[perm], q[perm])
    for name in NAMES:
        assert a[name] == pytest.approx(b[name], rel=1e-13, abs=1e-15)


@given(ranking_data(), st.sampled_from(["str", "shift", "reverse", "float"]))
def test_query_relabelling_invariance(data, how):
    y, s, q = data
    relabel = {
        "str": lambda v: np.char.add("user-", v.astype(str)),
        "shift": lambda v: v * 1_000_003 + 10**12,  # a wide range of ids
        "reverse": lambda v: -v,
        "float": lambda v: v + 0.5,
    }[how]
    a, b = _scores(y, s, q), _scores(y, s, relabel(q))
    for name in NAMES:
        assert a[name] == pytest.approx(b[name], rel=1e-13, abs=1e-15)


@given(
    ranking_data(),
    st.sampled_from([0.5, 4.0, 1024.0]),
    st.sampled_from([-7.0, 0.0, 100.0]),
    st.sampled_from(["average", "stable", "reverse"]),
)
def test_positive_scaling_and_shift_invariance(data, scale, shift, ties):
    y, s, q = data
    # Powers of two scale exactly; shifting is exact on integer scores only
    # (elsewhere it can round distinct scores into ties, as any float code would).
    t = s * scale
    if np.array_equal(s, np.round(s)):
        t = t + shift
    a = _scores(y, s, q, ties=ties)
    b = _scores(y, t, q, ties=ties)
    for name in NAMES:
        assert a[name] == pytest.approx(b[name], rel=1e-13, abs=1e-15)


@given(ranking_data())
def test_bounds_and_report_mean(data):
    y, s, q = data
    scores = _scores(y, s, q)
    for name in NAMES:
        if not name.startswith("dcg"):
            assert -1e-12 <= scores[name] <= 1 + 1e-12
    rep = ranking_report(y, s, q, metrics=["ndcg@3", "map@3"])
    for name in ["ndcg@3", "map@3"]:
        col = rep[name].to_numpy()
        if np.isnan(col).all():
            continue
        want = grouped_ranking_scores(y, s, q, [name])[name]
        assert np.nanmean(col) == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize(
    ("qid", "path"),
    [
        (np.array([1, 1, 2, 2, 2, 5]), "sorted"),
        (np.repeat([5, 2, 9, 1], [4, 5, 6, 4]), "contiguous"),
        (np.array([3, 1, 3, 2, 1, 2]), "counting"),
        (np.array([3, 10**15, 3, -(10**15), 10**15, -(10**15)]), "factorized"),
        (np.array(["b", "a", "b", "c"]), "factorized"),
    ],
)
def test_grouping_paths_agree_with_a_plain_definition(qid, path):
    g = group_rows(qid, qid.size)
    keys = sorted(set(qid.tolist()))
    assert g.keys.tolist() == keys
    rows = np.arange(qid.size)
    grouped = g.take(rows)
    for key, a, b in zip(g.keys, g.starts, g.ends, strict=True):
        members = grouped[a:b]
        # Every row of the query, in input order (the "stable" rule needs it).
        assert members.tolist() == np.flatnonzero(qid == key).tolist()
    moved = g._codes is not None or g._perm is not None
    assert moved == (path not in ("sorted", "contiguous"))


def test_mixed_type_ids_group_in_an_order_independent_of_rows():
    q = np.empty(4, dtype=object)
    q[:] = ["a", 1, "a", 1]
    g = group_rows(q, 4)
    assert set(g.keys.tolist()) == {"a", 1}
    assert group_rows(q[::-1], 4).keys.tolist() == g.keys.tolist()


def _small_is_large(monkeypatch):
    # Take the compiled whole-array paths (and several chunks) for small input.
    from skndcg._native import _threads
    from skndcg.metrics._core import _group, _validate

    monkeypatch.setattr(_group, "PARALLEL_ROWS", 0)
    monkeypatch.setattr(_validate, "PARALLEL_ROWS", 0)
    monkeypatch.setattr(_threads, "PARALLEL_ROWS", 0)  # row_chunks


@pytest.mark.parametrize("n_chunks", [1, 2, 3, 7])
def test_chunked_scatter_is_the_stable_counting_sort(n_chunks):
    # Rows land where a stable sort by key puts them, whatever the number of
    # chunks (threads): rows of one query keep their input order.
    from skndcg.metrics._core import _group_kernels as GK

    rng = np.random.default_rng(n_chunks)
    q = rng.integers(0, 40, size=1_000)
    per_chunk = np.zeros((n_chunks, 40), dtype=np.int64)
    for t in range(n_chunks):
        GK.count_keys(t, q, n_chunks, 0, per_chunk)
    counts = per_chunk.sum(axis=0)
    assert (counts == np.bincount(q, minlength=40)).all()
    bin_start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    offsets = np.cumsum(per_chunk, axis=0) - per_chunk + bin_start
    src = rng.standard_normal(q.size)
    src_b = rng.integers(0, 100, q.size).astype(float)
    out, out_b = np.empty_like(src), np.empty_like(src)
    sub, none = np.empty(0, dtype=np.uint16), np.empty(0)
    for t in range(n_chunks):
        GK.scatter(t, q, n_chunks, 0, 0, offsets, src, none, out, none, sub)
    assert (out == src[np.argsort(q, kind="stable")]).all()
    out[:] = 0
    for t in range(n_chunks):  # two arrays at once, the same places
        GK.scatter(t, q, n_chunks, 0, 0, offsets, src, src_b, out, out_b, sub)
    assert (out == src[np.argsort(q, kind="stable")]).all()
    assert (out_b == src_b[np.argsort(q, kind="stable")]).all()


@pytest.mark.parametrize(
    ("bucket_bits", "max_shift"), [(7, 16), (2, 16), (0, 16), (3, 1), (20, 16)]
)
@pytest.mark.parametrize("keys", ["dense", "gaps", "skewed"])
def test_bucketed_scatter_is_the_stable_counting_sort(
    monkeypatch, bucket_bits, max_shift, keys
):
    # Many bins go through buckets of consecutive bins and a second pass; the
    # result is still the stable sort by key, for any bucket width (one bin per
    # bucket, capped widths, a single bucket).
    from skndcg.metrics._core import _group

    _small_is_large(monkeypatch)
    monkeypatch.setattr(_group, "_BUCKET_BITS", bucket_bits)
    monkeypatch.setattr(_group, "_MAX_SHIFT", max_shift)
    rng = np.random.default_rng(bucket_bits)
    if keys == "dense":
        q = rng.integers(0, 900, size=5_000)
    elif keys == "gaps":
        q = rng.choice(np.arange(0, 2_000, 7), size=3_000) - 500
    else:
        q = np.minimum(rng.zipf(1.3, size=4_000), 1_500)
    g = group_rows(q, q.size)
    assert g._codes is not None
    order = np.argsort(q, kind="stable")
    for src in [rng.standard_normal(q.size), np.arange(q.size), q % 5 == 0]:
        assert (g.take(src) == src[order]).all()
    assert (g.take(q)[g.starts] == g.keys).all()
    labels, scores = rng.integers(0, 4, q.size), rng.standard_normal(q.size)
    got_labels, got_scores = g.take_pair(labels, scores)  # one pass for both
    assert (got_labels == labels[order]).all() and got_labels.dtype == labels.dtype
    assert (got_scores == scores[order]).all() and got_scores.dtype == scores.dtype


def test_parallel_grouping_path_gives_the_numbers_of_sorted_input(monkeypatch):
    # Force the per-thread offsets on for any data size and compare the shuffled
    # input's per-query values with those of the same rows sorted by query.
    from skndcg._native._threads import num_threads
    from skndcg.metrics._core import _group

    _small_is_large(monkeypatch)
    monkeypatch.setattr(_group, "_MAX_OFFSETS_PER_ROW", 0)
    rng = np.random.default_rng(0)
    q = rng.integers(0, 300, size=6_000)
    y = rng.integers(0, 4, size=q.size)
    s = np.round(rng.standard_normal(q.size), 1)
    g = group_rows(q, q.size)
    assert g._offsets.shape[0] == num_threads()
    order = np.argsort(q, kind="stable")
    shuffled = ranking_report(y, s, q, metrics=NAMES, empty="zero", ties="stable")
    ordered = ranking_report(
        y[order], s[order], q[order], metrics=NAMES, empty="zero", ties="stable"
    )
    np.testing.assert_array_equal(shuffled.to_numpy(), ordered.to_numpy())


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("n_chunks", [1, 2, 3, 7])
@pytest.mark.parametrize("layout", ["sorted", "contiguous", "shuffled", "one run"])
def test_chunked_key_scans_match_a_plain_definition(n_chunks, layout, compiled):
    # Runs that cross chunk borders, chunks inside one run, unsorted keys; the
    # kernels compiled and their numpy twins (the no-compile backend).
    from skndcg._native._jit import no_compile
    from skndcg.metrics._core import _group_kernels as GK

    rng = np.random.default_rng(n_chunks)
    if layout == "one run":
        q = np.full(50, 4)
    else:
        q = np.repeat(np.arange(20), rng.integers(1, 9, size=20))
        if layout == "contiguous":
            q = np.repeat(rng.permutation(20), rng.integers(1, 9, size=20))
        elif layout == "shuffled":
            q = rng.permutation(q)
    with no_compile(not compiled):
        parts = [GK.scan_keys(t, q, n_chunks) for t in range(n_chunks)]
    runs = np.array([p[0] for p in parts])
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    assert runs.sum() == starts.size
    assert all(p[1] for p in parts) == bool((np.diff(q) >= 0).all())
    assert (min(p[2] for p in parts), max(p[3] for p in parts)) == (q.min(), q.max())
    first = np.zeros(n_chunks + 1, dtype=np.int64)
    first[1:] = np.cumsum(runs)
    out = np.empty(first[-1] + 1, dtype=np.int64)
    out[0], out[-1] = 0, q.size
    with no_compile(not compiled):
        for t in range(n_chunks):
            GK.run_starts(t, q, n_chunks, first, out)
    assert out.tolist() == [*starts.tolist(), q.size]


@pytest.mark.parametrize("n_chunks", [1, 2, 5])
@pytest.mark.parametrize("bad_at", [None, 0, 17, 99])
def test_chunked_finite_check_finds_the_first_bad_row(n_chunks, bad_at):
    from skndcg.metrics._core._validate import _first_nonfinite

    x = np.linspace(-3.0, 3.0, 100)
    if bad_at is not None:
        x[bad_at] = np.inf
        x[min(bad_at + 30, 99)] = np.nan  # a later bad row does not hide the first
    found = [_first_nonfinite(t, x, n_chunks) for t in range(n_chunks)]
    got = next((b for b in found if b >= 0), -1)
    assert got == (-1 if bad_at is None else bad_at)
