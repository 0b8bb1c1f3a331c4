"""The engine under fork, threads, read-only installs and hostile input."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skndcg.metrics import (
    grouped_ndcg_score,
    grouped_precision_score,
    grouped_ranking_scores,
    make_ranking_scorer,
    ranking_report,
)

PKG_ROOT = Path(__file__).resolve().parents[1]


def _run(code, *, timeout=240, env=None, **kwargs):
    """Run ``code`` in a fresh interpreter; fail (not hang) past ``timeout``."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        **kwargs,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def test_fork_started_children_score_after_the_parent_did():
    # Today's design must not leave a threading runtime that dies in a forked
    # child: the parent scores (with several threads), then forked children do.
    code = """
        import multiprocessing as mp
        import numpy as np
        from skndcg.metrics import grouped_ndcg_score

        def job(seed):
            rng = np.random.default_rng(seed)
            q = rng.integers(0, 3000, 200_000)
            y = rng.integers(0, 4, q.size)
            s = rng.random(q.size)
            return grouped_ndcg_score(y, s, q, k=10)

        if __name__ == "__main__":
            parent = job(0)
            with mp.get_context("fork").Pool(2) as pool:
                got = pool.map(job, [0, 1, 2])
            assert got[0] == parent, (got, parent)
            assert len(set(got)) == 3
            print("ok")
    """
    path = Path(__file__).parent / "_fork_probe_tmp.py"
    # multiprocessing needs an importable main module for its workers' target.
    script = textwrap.dedent(code)
    try:
        path.write_text(script)
        out = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, timeout=240
        )
    finally:
        path.unlink(missing_ok=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"
    assert "unsafe" not in out.stderr


def test_fork_after_bootstrap_and_diversity_in_the_parent():
    # compare_scores' resampling and intra-list diversity run on the same
    # thread pool as the engine: a forked child works after them too.
    code = """
        import multiprocessing as mp
        import numpy as np
        from skndcg.evaluation import compare_scores
        from skndcg.metrics import grouped_ndcg_score, intra_list_diversity_score

        rng = np.random.default_rng(0)
        q = np.repeat(np.arange(2000), 10)
        y = rng.integers(0, 3, q.size)
        items = rng.integers(0, 50, q.size)
        genres = {i: [f"g{i % 7}", f"g{i % 3}"] for i in range(50)}

        def job(seed):
            s = np.random.default_rng(seed).random(q.size)
            return grouped_ndcg_score(y, s, q, k=5)

        if __name__ == "__main__":
            scores = {"a": rng.random(q.size), "b": rng.random(q.size)}
            # 1,000 resamples of 2,000 queries: the threaded resampling path
            cmp = compare_scores(y, scores, q, metrics=["ndcg@5"], baseline="a",
                                 n_resamples=1000, random_state=0)
            ild = intra_list_diversity_score(items, scores["a"], q, k=5,
                                             item_categories=genres)
            with mp.get_context("fork").Pool(2) as pool:
                got = pool.map(job, [0, 1])
            assert got[0] == job(0)
            print("ok", round(ild, 6))
    """
    path = Path(__file__).parent / "_fork_probe2_tmp.py"
    try:
        path.write_text(textwrap.dedent(code))
        out = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, timeout=240
        )
    finally:
        path.unlink(missing_ok=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("ok")
    assert "unsafe" not in out.stderr


def test_bootstrap_counts_do_not_depend_on_the_thread_count():
    code = """
        import hashlib
        import numpy as np
        from skndcg.evaluation._stats._resampling import multinomial_counts
        c = multinomial_counts(np.random.default_rng(3), 600, 2000)
        digest = hashlib.sha256(c.tobytes()).hexdigest()
        print(c.sum(axis=1).min(), c.sum(axis=1).max(), digest)
    """
    one = _run(code, env={"SKNDCG_NUM_THREADS": "1"}).stdout
    three = _run(code, env={"SKNDCG_NUM_THREADS": "3"}).stdout
    assert one == three
    assert one.split()[:2] == ["2000.0", "2000.0"]


def test_calls_from_several_python_threads_at_once_give_identical_results():
    code = """
        from concurrent.futures import ThreadPoolExecutor
        import numpy as np
        from skndcg.metrics import grouped_ranking_scores

        rng = np.random.default_rng(0)
        data = []
        for seed in range(8):
            rng = np.random.default_rng(seed)
            q = rng.integers(0, 2000, 80_000)  # above PARALLEL_ROWS: threaded
            y = rng.integers(0, 4, q.size)
            data.append((y, np.round(rng.random(q.size), 2), q))
        names = ["ndcg@10", "map@10", "mrr", "p@5"]
        alone = [grouped_ranking_scores(y, s, q, names) for y, s, q in data]
        with ThreadPoolExecutor(4) as ex:
            for _ in range(3):
                run = lambda a: grouped_ranking_scores(*a, names)
                together = list(ex.map(run, data))
                assert together == alone
        print("ok")
    """
    assert _run(code).stdout.strip() == "ok"


def test_read_only_install_without_any_writable_cache_still_scores(tmp_path):
    # The package imported from a zip archive (read-only by nature, also for
    # root, who writes through file permissions), with HOME and the cache home
    # under a regular file and no NUMBA_CACHE_DIR: numba has nowhere to cache.
    # Import and scoring work, compiling in memory, with at most one warning.
    import zipfile

    archive = tmp_path / "site.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted((PKG_ROOT / "skndcg").rglob("*.py")):
            zf.write(path, path.relative_to(PKG_ROOT).as_posix())
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(
        HOME=str(blocker / "home"),
        XDG_CACHE_HOME=str(blocker / "cache"),
        PYTHONPATH=str(archive),
        PYTHONDONTWRITEBYTECODE="1",
        # the compiled road even for these four rows (small inputs run as Python)
        SKNDCG_PLAIN_CELLS="0",
    )
    code = textwrap.dedent(
        """
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from skndcg.metrics import grouped_ndcg_score
            v = grouped_ndcg_score([3, 2, 0, 1], [0.1, 0.9, 0.5, 0.3], [1, 1, 2, 2])
        import skndcg
        assert skndcg.__file__.startswith(ARCHIVE), skndcg.__file__
        # By hand: query 1 ranks its label-2 row, then its label-3 row:
        # (2 + 3/log2(3)) / (3 + 2/log2(3)) = 0.91336; query 2: 1/log2(3) = 0.63093.
        assert abs(v - (0.91336 + 0.63093) / 2) < 1e-4, v
        mine = [w for w in caught if "cache" in str(w.message)]
        assert len(mine) == 1, [str(w.message) for w in caught]
        print("ok")
    """.replace("ARCHIVE", repr(str(archive)))
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=str(tmp_path),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"


def test_a_call_compiles_only_what_it_uses_and_other_dtypes_nothing_new(tmp_path):
    code = """
        import numpy as np, pandas as pd
        from skndcg.metrics import grouped_ndcg_score, grouped_ranking_scores
        from skndcg._native._jit import compile_times

        rng = np.random.default_rng(0)
        q = np.repeat(np.arange(500), 20)
        y = rng.integers(0, 4, q.size)
        s = rng.normal(size=q.size)
        _, first = compile_times(grouped_ndcg_score, y, s, q, k=10)
        names = set(first)
        assert any("evaluate_chunk" in n for n in names), names
        for unused in ("ap_blocks", "rr_blocks", "hit_blocks", "hits_blocks",
                       "_quicksort_orders"):
            assert unused not in names, (unused, names)
        # Float labels take the float kernels, compiled once: an int64 copy
        # for the integer ones would add a third of the inputs to the peak
        # memory (benchmarks/bench_memory.py).
        _, floats = compile_times(grouped_ndcg_score, y.astype(float), s, q, k=10)
        assert any("evaluate_chunk" in n for n in floats), floats
        variants = [
            (y.astype(float) * 1, s, q), (y.astype(bool), s, q),
            (y.astype(np.int32), s.astype(np.float32), q),
            (y, s, q.astype(str)), (y, s, pd.Series(q).astype("category")),
            (y, s.astype(np.float32), q.astype(np.uint16)),
        ]
        for args in variants:
            _, more = compile_times(grouped_ndcg_score, *args, k=10)
            assert not more, (args[0].dtype, args[1].dtype, more)
        _, fam = compile_times(grouped_ranking_scores, y, s, q, ["map@10"])
        assert "ap_blocks" in fam and "dcg_blocks" not in fam, fam
        print("ok")
    """
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    assert _run(code, env=env).stdout.strip() == "ok"
    # A later process loads all of it from the cache: nothing is compiled.
    warm = """
        import numpy as np
        from skndcg.metrics import grouped_ndcg_score
        from skndcg._native._jit import compile_times

        rng = np.random.default_rng(0)
        q = np.repeat(np.arange(500), 20)
        args = rng.integers(0, 4, q.size), rng.normal(size=q.size), q
        _, again = compile_times(grouped_ndcg_score, *args, k=10)
        assert not again, again
        print("ok")
    """
    assert _run(warm, env=env).stdout.strip() == "ok"


Y = np.array([3, 2, 0, 1, 0, 2])
S = np.array([0.5, 0.9, 0.1, 0.3, 0.3, 0.8])
Q = np.array([1, 1, 1, 2, 2, 2])


def test_big_endian_arrays_give_the_native_numbers():
    native = ranking_report(Y, S, Q, metrics=["ndcg@2", "map", "p@1"])
    big = ranking_report(
        Y.astype(">i8"),
        S.astype(">f8"),
        Q.astype(">i8"),
        metrics=["ndcg@2", "map", "p@1"],
    )
    pd.testing.assert_frame_equal(native, big, check_dtype=False)
    assert grouped_ndcg_score(
        Y.astype(">f4"), S.astype(">f4"), Q.astype(">u2"), k=2
    ) == grouped_ndcg_score(Y, S, Q, k=2)


@pytest.mark.parametrize("arg", ["y_true", "y_score"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_big_endian_nan_or_inf_is_refused_by_name(arg, bad):
    a = {"y_true": Y.astype(">f8"), "y_score": S.astype(">f8")}
    a[arg] = a[arg].copy()
    a[arg][2] = bad
    with pytest.raises(ValueError, match=rf"{arg} contains 1 NaN.*row 2"):
        grouped_ndcg_score(a["y_true"], a["y_score"], Q)


def test_negative_labels_are_refused_by_default_and_scored_on_request():
    with pytest.raises(ValueError, match=r"y_true has negative labels \(first -5"):
        grouped_ndcg_score([1, -5], [0.1, 0.9], [1, 1], k=1)
    # The opt-in: a gain function says what a negative label is worth.
    got = grouped_ndcg_score([1, -5], [0.1, 0.9], [1, 1], k=1, gain=lambda y: y)
    assert got == -5.0
    # Presets with their own reading of negative labels keep it.
    assert grouped_ndcg_score([1, -1], [0.1, 0.9], [1, 1], k=1, convention="ranx") == 0


@pytest.mark.parametrize("label", [54, 1023, 5000])
def test_exponential_gain_refuses_labels_it_cannot_hold_exactly(label):
    with pytest.raises(ValueError, match=f"labels up to {label}.*above 53"):
        grouped_ndcg_score([label, 0], [0.1, 0.9], [1, 1], gain="exponential")
    v = grouped_ndcg_score([53, 0], [0.1, 0.9], [1, 1], gain="exponential", k=1)
    assert v == 0.0


@pytest.mark.parametrize("k", [10**9, 2**63, 10**30])
def test_any_k_beyond_every_query_is_the_whole_list(k):
    assert grouped_ndcg_score(Y, S, Q, k=k) == grouped_ndcg_score(Y, S, Q, k=None)
    # Precision keeps k itself as its denominator: 3 relevant rows out of k.
    p = grouped_precision_score([1, 1, 0, 1], [4, 3, 2, 1], [1, 1, 1, 1], k=k)
    assert p == 3 / k


@pytest.mark.parametrize("arg", ["y_true", "y_score", "sample_weight"])
@pytest.mark.parametrize("kind", ["str", "bytes", "object"])
def test_numeric_strings_and_bytes_are_refused(arg, kind):
    values = {"y_true": Y, "y_score": S, "sample_weight": np.ones(6)}[arg]
    if kind == "str":
        bad = values.astype(str)
    elif kind == "bytes":
        bad = values.astype(bytes)
    else:
        bad = np.array([*values[:-1].tolist(), str(values[-1])], dtype=object)
    kwargs = {"y_true": Y, "y_score": S, "qid": Q, arg: bad}
    with pytest.raises(TypeError, match=f"{arg} must be numeric"):
        grouped_ndcg_score(**kwargs)


def test_mixed_type_query_ids_stay_distinct():
    report = ranking_report([1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], [1, 1, "1", "1"])
    assert len(report) == 2
    assert sorted(map(repr, report["qid"])) == ["'1'", "1"]


@pytest.mark.parametrize("metrics", [["ndcg@10", "NDCG@10"], ["map@5", "ap@5"]])
def test_duplicated_metrics_are_refused_everywhere(metrics):
    with pytest.raises(ValueError, match="duplicate"):
        ranking_report(Y, S, Q, metrics=metrics)
    with pytest.raises(ValueError, match="duplicate"):
        grouped_ranking_scores(Y, S, Q, metrics)
    with pytest.raises(ValueError, match="duplicate"):
        make_ranking_scorer(metrics)


def test_pandas_missing_values_are_named_as_missing():
    y = pd.Series([True, False, pd.NA, True, False, True], dtype="boolean")
    with pytest.raises(ValueError, match=r"y_true has 1 missing value\(s\).*row 2"):
        grouped_ndcg_score(y, S, Q)
    s = pd.Series([0.5, 0.9, None, 0.3, 0.3, 0.8], dtype="Float64")
    with pytest.raises(ValueError, match=r"y_score has 1 missing value\(s\).*row 2"):
        grouped_ndcg_score(Y, s, Q)


@pytest.mark.parametrize("missing", [None, pd.NA, np.nan], ids=["None", "NA", "nan"])
@pytest.mark.parametrize("nullable", [False, True], ids=["object", "Float64"])
def test_a_missing_value_is_the_nan_the_options_accept(missing, nullable):
    # None (or pandas' NA) in an object or nullable column is a missing
    # value: refused naming its row, or, with nan_label="unjudged" and
    # nan_score="unretrieved", read as the NaN those options accept.
    def column(values):
        values = pd.Series(values, dtype=object)
        values[2] = missing
        return values.astype("Float64") if nullable else values

    y, s = column(Y), column(S)
    for name, args in (("y_true", (y, S)), ("y_score", (Y, s))):
        with pytest.raises(ValueError, match=rf"{name} has 1 missing value.*row 2"):
            grouped_ranking_scores(*args, Q, ["ndcg", "bpref"])
    nan = dict(nan_label="unjudged", nan_score="unretrieved")
    with_nan = np.array(Y, dtype=float), np.array(S, dtype=float)
    with_nan[0][2] = with_nan[1][2] = np.nan
    want = grouped_ranking_scores(*with_nan, Q, ["ndcg", "bpref"], **nan)
    assert grouped_ranking_scores(y, s, Q, ["ndcg", "bpref"], **nan) == want


@pytest.mark.parametrize(
    "kwargs",
    [
        {"y_score": np.array([0.5, 0.9, np.nan, 0.3, 0.3, 0.8])},
        {"y_true": np.array([3.0, -2.0, 0, 1, 0, 2])},
        {"k": np.int64(0)},
        {"sample_weight": np.array([1.0, 1, 1, -1, -1, -1])},
        {"y_true": np.array([3, 2.5, 0, 1, 0, 2]), "convention": "lightgbm"},
    ],
)
def test_messages_print_plain_values(kwargs):
    args = {"y_true": Y, "y_score": S, "qid": Q, **kwargs}
    with pytest.raises((ValueError, TypeError)) as info:
        grouped_ndcg_score(**args)
    assert "np." not in str(info.value), str(info.value)
