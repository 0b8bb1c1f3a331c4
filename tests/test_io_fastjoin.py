"""The byte-level run/qrels join that ``skndcg score`` uses: the same arrays as the
DataFrame readers and join, or None (then the DataFrame path runs)."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skndcg.io import (
    _fastjoin,
    _hashing,
    _scan,
    _text,
    join_trec_files,
    read_trec_qrels,
    read_trec_run,
)
from skndcg.io._join import join_codes


def _write(folder, name, text):
    path = folder / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def _tie_order(qid, score, keys):
    """For every pair of rows of one query tied as float32: which key is larger."""
    out = {}
    single = score.astype(np.float32)
    for i in range(len(qid)):
        for j in range(i + 1, len(qid)):
            if qid[i] == qid[j] and single[i] == single[j]:
                out[(i, j)] = keys[i] > keys[j]
    return out


def _check_same(run_path, qrels_path, depth=None):
    fast = _fastjoin.join_files(run_path, qrels_path, depth=depth)
    assert fast is not None
    coded, tag = fast
    ref = join_codes(read_trec_run(run_path), read_trec_qrels(qrels_path), depth=depth)
    # The same rows, grouped by query: each query's run rows in run order, then
    # its unretrieved judgments in qrels order.
    by_query = np.argsort(ref.qid, kind="stable")
    for field in ("qid", "y_true", "y_score", "doc_order"):
        setattr(ref, field, getattr(ref, field)[by_query])
    np.testing.assert_array_equal(coded.names, ref.names)
    np.testing.assert_array_equal(coded.qid, ref.qid)
    np.testing.assert_array_equal(coded.y_true, ref.y_true)
    np.testing.assert_array_equal(coded.y_score, ref.y_score)  # NaN == NaN here
    assert coded.y_score.dtype == ref.y_score.dtype == np.float64
    retrieved = ~np.isnan(ref.y_score)
    got = _tie_order(
        coded.qid[retrieved], coded.y_score[retrieved], coded.doc_order[retrieved]
    )
    want = _tie_order(
        ref.qid[retrieved], ref.y_score[retrieved], ref.doc_order[retrieved]
    )
    assert got == want
    # unretrieved rows: keys unique within their query
    pairs = set(zip(coded.qid.tolist(), coded.doc_order.tolist(), strict=True))
    assert len(pairs) == len(coded.qid)
    assert tag == str(read_trec_run(run_path)["tag"].iloc[-1])
    return coded


RUN = """\
q1 Q0 b 1 2.5 tagA
q1 Q0 a 2 2.5 tagA
q1 Q0 ab 3 2.5 tagA
q1 Q0 x 4 1.0 tagA
# a comment line
q9 Q0 a 1 7 tagA

q2\tQ0  c 1 -0 tagB extra fields
q2 Q0 d 2 0.0 tagB\r
q1 Q0 late 9 1e-3 tagC
"""
QRELS = """\
q1 0 b 1
q1 0 ab 2
q1 0 c 3
q2 0 c -1
q2 0 d 1
q3 0 e 1
"""


def test_hand_made_files_equal_the_dataframe_path(tmp_path):
    run = _write(tmp_path, "run.txt", RUN)
    qrels = _write(tmp_path, "qrels.txt", QRELS)
    coded = _check_same(run, qrels)
    # q9 is not judged: dropped; q1's late row joins q1; c and e unretrieved
    assert list(coded.names) == ["q1", "q2", "q3", "q9"]
    assert coded.y_true.tolist() == [1, 0, 2, 0, 0, 3, 0, 1, 1]
    # ties at 2.5: key order is the docno order (a < ab < b)
    k = coded.doc_order
    assert k[1] < k[2] < k[0]
    for depth in (None, 1, 2, 3):
        _check_same(run, qrels, depth=depth)
        _check_by_docno(run, qrels, depth=depth)


def test_gzip_and_a_last_line_without_newline(tmp_path):
    import gzip

    qrels = _write(tmp_path, "qrels.txt", QRELS)
    bare = _write(tmp_path, "bare.txt", RUN.rstrip("\n"))
    _check_same(bare, qrels)
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(RUN.encode()))
    coded = _check_same(str(packed), qrels)
    plain = _fastjoin.join_files(_write(tmp_path, "run.txt", RUN), qrels)[0]
    np.testing.assert_array_equal(coded.y_true, plain.y_true)


_DOC = st.text("abAB0-._", min_size=1, max_size=6)
_SCORE = st.one_of(
    st.sampled_from(
        [
            "1",
            "1.0",
            "-0",
            "0",
            ".5",
            "5.",
            "+2",
            "1e3",
            "1E-3",
            "0.1",
            "0.30000000000000004",
            "123456789012345678",
            "1.2345678901234567890123",
            "9007199254740993",
            "1e-30",
            "2.5e+22",
            "1e23",
            "3.4028235e38",
        ]
    ),
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.integers(-5, 5).map(lambda i: f"{i / 4:.2f}"),
)


def _check_by_docno(run_path, qrels_path, depth=None):
    """by_docno=True: the same rows, each query's in descending doc_order (so
    the engine's docid reordering moves nothing), and the same scores."""
    from skndcg.metrics import grouped_ranking_scores
    from skndcg.metrics._core._group import group_rows
    from skndcg.metrics._core._reorder import order_within_queries

    plain = _fastjoin.join_files(run_path, qrels_path, depth=depth)[0]
    ranked = _fastjoin.join_files(run_path, qrels_path, depth=depth, by_docno=True)[0]
    np.testing.assert_array_equal(ranked.qid, plain.qid)

    def rows(c):  # NaN != NaN: compare scores as text
        cols = (c.qid, c.doc_order, c.y_true, c.y_score.astype(str))
        return sorted(zip(*cols, strict=True))

    assert rows(ranked) == rows(plain)
    for q in np.unique(ranked.qid):
        at = ranked.qid == q
        unret = np.isnan(ranked.y_score[at])
        assert not (unret[:-1] & ~unret[1:]).any()  # unretrieved rows last
        for part in (~unret, unret):
            assert (np.diff(ranked.doc_order[at][part]) < 0).all()
    g = group_rows(ranked.qid, len(ranked.qid))
    perm = order_within_queries(
        g, g.take(ranked.y_score), rule="docid",
        doc_rank=g.take(ranked.doc_order), unretrieved=g.take(np.isnan(ranked.y_score)),
    )  # fmt: skip
    assert perm is None or np.array_equal(perm, np.arange(len(perm)))
    metrics = ["ndcg", "ndcg@3", "map", "mrr", "p@2", "r@5"]
    for convention in ("trec_eval", "pytrec_eval"):
        got = [grouped_ranking_scores(c.y_true, c.y_score, c.qid, metrics=metrics,
                                      convention=convention, doc_id=c.doc_order,
                                      nan_score="unretrieved")
               for c in (plain, ranked)]  # fmt: skip
        assert got[0] == got[1]


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "10", "q1a"]), _DOC, _SCORE),
        min_size=1,
        max_size=30,
        unique_by=lambda t: (t[0], t[1]),
    ),
    judged=st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "q3", "10"]), _DOC, st.integers(-1, 3)),
        min_size=1,
        max_size=20,
        unique_by=lambda t: (t[0], t[1]),
    ),
    sep=st.sampled_from([" ", "\t", "  ", " \x0b"]),
    depth=st.sampled_from([None, 1, 2, 5]),
)
def test_random_files_equal_the_dataframe_path(
    tmp_path_factory, lines, judged, sep, depth
):
    folder = tmp_path_factory.mktemp("fast")
    run = _write(
        folder,
        "run.txt",
        "".join(f"{q}{sep}Q0{sep}{d}{sep}0{sep}{s}{sep}t\n" for q, d, s in lines),
    )
    qrels = _write(
        folder, "qrels.txt", "".join(f"{q} 0 {d} {r}\n" for q, d, r in judged)
    )
    _check_same(run, qrels, depth=depth)
    if np.isnan(join_codes(read_trec_run(run), read_trec_qrels(qrels)).y_score).all():
        return  # nothing retrieved is judged: grouped_ranking_scores skips all
    _check_by_docno(run, qrels, depth=depth)


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_numbers_are_read_exactly_as_float_does(tmp_path_factory, x):
    texts = [repr(x), f"{x:.17g}", f"{x:.6f}", f"{x:.3e}", f"{x:.15g}"]
    texts = [t for t in texts if np.isfinite(float(t))]  # rounding can overflow
    folder = tmp_path_factory.mktemp("num")
    path = _write(
        folder, "run.txt", "".join(f"q Q0 d{i} 1 {t} r\n" for i, t in enumerate(texts))
    )
    scanned = _scan.scan_fast(path, _text.RUN)
    assert scanned.value.tolist() == [float(t) for t in texts]
    assert [np.signbit(v) for v in scanned.value] == [
        np.signbit(float(t)) for t in texts
    ]


@pytest.mark.parametrize(
    "text",
    [
        "9007199254740993",  # 2**53 + 1: halfway, rounds to even (down)
        "9007199254740995",  # halfway, rounds to even (up)
        "4503599627370496.5",
        "4503599627370497.5",
        "0.1",
        "0.30000000000000004",
        "1e23",  # needs the 128-bit product
        "2.2250738585072014e-308",  # the smallest normal double
        "2.2250738585072011e-308",  # subnormal: float() reads it
        "4.9e-324",
        "1.7976931348623157e308",
        "1.7976931348623158e308",  # rounds down to the largest double
        "8.98846567431158e307",
        "1.00000000000000011102230246251565404236316680908203125",  # 55 digits
        "123456789012345678.9",
        "-0.000000000000000000000000000000000000000001",
        "00000000000000000000000000012.5e-1",
    ],
)
def test_hard_numbers_are_read_exactly(tmp_path, text):
    path = _write(tmp_path, "run.txt", f"q Q0 d 1 {text} r\n")
    got = _scan.scan_fast(path, _text.RUN).value[0]
    assert got == float(text) and np.signbit(got) == np.signbit(float(text))


@settings(max_examples=300, deadline=None)
@given(
    digits=st.integers(1, 10**19 - 1),
    point=st.integers(0, 19),
    exponent=st.integers(-360, 330),
)
def test_nineteen_digit_decimals_anywhere_in_range(
    tmp_path_factory, digits, point, exponent
):
    text = str(digits)
    text = f"{text[:point]}.{text[point:]}e{exponent}"
    if not np.isfinite(float(text)):
        return  # an overflow is an error, tested elsewhere
    folder = tmp_path_factory.mktemp("dec")
    path = _write(folder, "run.txt", f"q Q0 d 1 {text} r\n")
    assert _scan.scan_fast(path, _text.RUN).value[0] == float(text)


def test_powers_of_five_table_is_five_to_the_q_in_128_bits():
    """Every entry is 5**q scaled by a power of two to 128 bits, within one unit
    (truncated for q >= 0; the method's rounded-up reciprocal below)."""
    from fractions import Fraction

    from skndcg.io import _decimal

    for i, q in enumerate(range(_decimal._SMALLEST_Q, _decimal._LARGEST_Q + 1)):
        c = (int(_decimal._P5_HI[i]) << 64) | int(_decimal._P5_LO[i])
        assert 1 << 127 <= c < 1 << 128
        exact = Fraction(5) ** q
        scale = Fraction(c) / exact  # a power of two, times (1 +- tiny)
        k = scale.numerator.bit_length() - scale.denominator.bit_length()
        assert min(abs(c - exact * Fraction(2) ** e) for e in (k - 1, k, k + 1)) <= 1


def test_pieces_give_the_same_arrays_and_line_numbers(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    n = 3000
    q = rng.integers(0, 40, n)  # queries interleaved across pieces
    lines = [
        f"q{q[i]} Q0 d{i % 997} {i} {rng.integers(0, 50) / 8} run\n" for i in range(n)
    ]
    lines = [
        ln
        for i, ln in enumerate(lines)
        if (q[i], i % 997) not in {(q[j], j % 997) for j in range(i)}
    ]
    run = _write(tmp_path, "run.txt", "".join(lines))
    qrels = _write(
        tmp_path,
        "qrels.txt",
        "".join(f"q{i % 40} 0 d{i} {i % 3}\n" for i in range(500)),
    )
    one = _fastjoin.join_files(run, qrels)[0]
    monkeypatch.setattr(_scan, "_PARALLEL_BYTES", 0)
    monkeypatch.setenv("SKNDCG_NUM_THREADS", "3")
    monkeypatch.setattr(_fastjoin, "row_chunks", lambda n: 3)  # queries in 3 chunks
    with open(run, "rb") as fh:
        assert len(_scan._pieces(np.frombuffer(fh.read(), np.uint8), 3)) == 3
    three = _check_same(run, qrels)
    for field in ("qid", "y_true", "y_score", "doc_order"):
        np.testing.assert_array_equal(getattr(one, field), getattr(three, field))
    # a bad number in the last piece is reported on its own line
    bad = lines[:]
    bad[-2] = bad[-2].replace(" run\n", "x run\n")
    run = _write(tmp_path, "bad.txt", "".join(bad))
    with pytest.raises(ValueError, match=rf"bad\.txt, line {len(bad) - 1}: the score"):
        _fastjoin.join_files(run, qrels)


@pytest.mark.parametrize(
    ("run_text", "why"),
    [
        ("q1 Q0 d1 1 1.0 r\nq1 Q0 d1 2 0.5 r\n", "a document twice in a query"),
        ("q1 Q0 d\u00e9 1 1.0 r\n", "non-ASCII text"),
        ("q1 Q0 d1 1 1.0\n", "five fields"),
        ("", "an empty file"),
        ("# nothing\n\n", "only a comment"),
    ],
)
def test_irregular_runs_take_the_dataframe_path(tmp_path, run_text, why):
    run = _write(tmp_path, "run.txt", run_text)
    qrels = _write(tmp_path, "qrels.txt", "q1 0 d1 1\n")
    assert _fastjoin.join_files(run, qrels) is None, why


@pytest.mark.parametrize(
    "qrels_text",
    ["q1 0 d1 1\nq1 0 d1 2\n", "q1 0 d1 1 5\n", "q1 0 d1 99999999999999999999\n"],
)
def test_irregular_qrels_take_the_dataframe_path(tmp_path, qrels_text):
    run = _write(tmp_path, "run.txt", "q1 Q0 d1 1 1.0 r\n")
    qrels = _write(tmp_path, "qrels.txt", qrels_text)
    assert _fastjoin.join_files(run, qrels) is None


def test_errors_of_the_number_name_file_and_line(tmp_path):
    run = _write(tmp_path, "run.txt", "q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 nan r\n")
    qrels = _write(tmp_path, "qrels.txt", "q1 0 d1 1\n")
    with pytest.raises(ValueError, match=r"run\.txt, line 2: the score 'nan' is not"):
        _fastjoin.join_files(run, qrels)
    qrels = _write(tmp_path, "qrels.txt", "q1 0 d1 1\n\nq1 0 d2 1.5\n")
    with pytest.raises(ValueError, match=r"qrels\.txt, line 3: the relevance '1\.5'"):
        _fastjoin.join_files(run, qrels)


def test_hash_collisions_give_up_instead_of_matching(tmp_path):
    # A judgment is given the hash of a different retrieved document, as a
    # real collision would: the join must give up, never label the wrong row.
    # (Two retrieved documents with one hash give up like a repeated document,
    # which test_irregular_runs_take_the_dataframe_path covers.)
    data = np.frombuffer(b"aaXbbY", np.uint8)
    start = np.array([0, 3], np.int64)
    length = np.array([2, 2], np.int32)
    none = np.empty(0, np.int64)
    hashes = _hashing.doc_hashes(data, start, length)

    def join(judged, judged_hash):
        keys, label, match = np.arange(1), np.zeros(1, np.int64), np.full(1, -1)
        status = _fastjoin._join_blocks(
            0, 1, none, np.array([0, 1]), np.array([1.0]), data, start[:1],
            length[:1], np.array([0]), none, np.array([0, 1]), data,
            start[judged : judged + 1], length[judged : judged + 1],
            np.array([judged_hash], np.uint64), np.array([3], np.int64), keys,
            label, match,
        )  # fmt: skip
        return status, label.tolist(), match.tolist()

    assert join(1, hashes[0])[0] == _fastjoin._GIVE_UP  # "bb" posing as "aa"
    assert join(0, hashes[0]) == (_fastjoin._OK, [3], [0])  # "aa" itself
    assert join(1, hashes[1]) == (_fastjoin._OK, [0], [-1])  # "bb": not retrieved
    # two query ids, one hash: the scanner's interning gives up too. Code 0
    # is stored with the hash of "bb" but the bytes of "aa", as a collision
    # between the two would leave it.
    table = np.full(16, -1, np.int64)
    q = [np.empty(4, np.int64), np.empty(4, np.int64), np.empty(4, np.uint64)]
    code, table, q_start, q_len, q_hash, n = _scan._intern(data, 3, 2, table, *q, 0)
    assert (code, n) == (0, 1)
    q_start[0] = 0
    code = _scan._intern(data, 3, 2, table, q_start, q_len, q_hash, n)[0]
    assert code == -1


def test_score_command_uses_it_and_agrees(tmp_path, capsys):
    from skndcg.cli import main

    run = _write(tmp_path, "run.txt", RUN)
    qrels = _write(tmp_path, "qrels.txt", QRELS)
    args = ["score", run, "--qrels", qrels, "--format", "json", "--all-judged"]
    assert main(args) == 0
    fast = capsys.readouterr().out
    # the same command on a file the byte path refuses (a UTF-8 tag)
    slow = _write(tmp_path, "slow.txt", RUN.replace("tagC", "t\u00e4g"))
    assert _fastjoin.join_files(slow, qrels) is None
    assert main(["score", slow, *args[2:]]) == 0
    assert capsys.readouterr().out == fast


def test_many_numbers_for_python_leave_the_file_to_the_slow_path(tmp_path, monkeypatch):
    text = "q Q0 a 1 1e-310 r\nq Q0 b 2 0.1000000000000000000001 r\nq Q0 c 3 2 r\n"
    run = _write(tmp_path, "run.txt", text)
    qrels = _write(tmp_path, "qrels.txt", "q 0 a 1\n")
    scanned = _scan.scan_fast(run, _text.RUN)
    assert scanned.value.tolist() == [1e-310, 0.1, 2.0]  # float()'s reading
    monkeypatch.setattr(_scan, "_MAX_SLOW", 1)
    assert _scan.scan_fast(run, _text.RUN) is None
    assert _fastjoin.join_files(run, qrels) is None


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # reset by hand
)
@given(
    lines=st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2"]),
            st.sampled_from(["a", "b", "ab", "c", "d10", "d9", "e"]),
            st.sampled_from(["1", "2", "2.0", "1.00000001"]),
        ),
        min_size=1,
        max_size=14,
        unique_by=lambda t: (t[0], t[1]),
    ),
    judged=st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2"]),
            st.sampled_from(["a", "b", "c", "d9", "f", "g"]),
            st.integers(-1, 3),
        ),
        min_size=1,
        max_size=10,
        unique_by=lambda t: (t[0], t[1]),
    ),
    convention=st.sampled_from(["trec_eval", "pytrec_eval", "TREC-EVAL"]),
    flags=st.sampled_from([[], ["--all-judged"], ["--depth", "2"]]),
)
def test_score_with_docno_ties_equals_the_dataframe_path(
    tmp_path_factory, monkeypatch, capsys, lines, judged, convention, flags
):
    # The byte path hands the engine each query's rows in descending docno
    # order and lets ties keep row order; the DataFrame path passes the docnos
    # and lets the engine reorder. Per query, both must give the same numbers.
    from skndcg.cli import main

    folder = tmp_path_factory.mktemp("ties")
    run_text = "".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in lines)
    run = _write(folder, "run.txt", run_text)
    qrels_text = "".join(f"{q} 0 {d} {r}\n" for q, d, r in judged)
    qrels = _write(folder, "qrels.txt", qrels_text)
    outputs = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(_fastjoin, "join_files", lambda *a, **k: None)
            per_query = str(folder / f"per_query_{fast}.csv")
            argv = ["score", run, "--qrels", qrels, "--convention", convention,
                    "--metrics", "ndcg", "ndcg@2", "map", "p@1", "mrr", "r@3",
                    "--per-query", per_query, "--format", "json", *flags]  # fmt: skip
            capsys.readouterr()
            code = main(argv)
            out = capsys.readouterr()
            written = Path(per_query).read_text() if code == 0 else None
            outputs.append((code, out.out, out.err, written))
    assert outputs[0] == outputs[1]


def test_files_are_mapped_not_copied(tmp_path):
    import gzip
    import mmap

    plain = _write(tmp_path, "run.txt", RUN)
    view = _text.map_bytes(plain)
    assert isinstance(view, mmap.mmap) and view[:] == RUN.encode()
    packed = _write(tmp_path, "run.txt.gz", gzip.compress(RUN.encode()))
    assert _text.map_bytes(packed) == RUN.encode()
    assert _text.map_bytes(_write(tmp_path, "empty.txt", "")) == b""


def test_a_path_with_a_nul_byte_is_named_as_missing(tmp_path):
    # os.path.getsize raised "embedded null byte" before the path was checked.
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n")
    with pytest.raises(FileNotFoundError, match=r"run file 'a\\x00b' does not exist"):
        join_trec_files("a\x00b", qrels)
