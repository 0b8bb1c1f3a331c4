"""``skndcg score`` as a drop-in for trec_eval 10.0: its flags, its lines, by hand.

The files: q1 judges a (2), b (0), c (1) and d (-1: in the pool, not judged); q2
judges x (1); q3 judges y (1) and has no results; q9 is in the run only.
q1 ranks a, u (unjudged; tied with c at 2.0, and "u" > "c" comes first), c, b;
q2 ranks z (unjudged), x.
"""

import math

import pytest
from cli_calls import call, write_run_qrels

MEASURES = ["-m", "map", "-m", "gm_map", "-m", "num_ret", "-m", "num_rel",
            "-m", "num_rel_ret", "-m", "num_q", "-m", "P.5", "-m", "recip_rank",
            "-m", "runid"]  # fmt: skip


@pytest.fixture
def files(tmp_path):
    return write_run_qrels(tmp_path)


def score(capsys, files, *flags):
    run, qrels = files
    return call(capsys, "score", run, "--qrels", qrels, "--format", "trec", *flags)


def line(name, qid, value):
    text = str(value) if isinstance(value, (int, str)) else f"{value:6.4f}"
    return f"{name:<22}\t{qid}\t{text}"


def per_query(qid, ret, rel, rel_ret, ap, rr, p5):
    return [
        line("num_ret", qid, ret), line("num_rel", qid, rel),
        line("num_rel_ret", qid, rel_ret), line("map", qid, ap),
        line("recip_rank", qid, rr), line("P_5", qid, p5),
    ]  # fmt: skip


def summary(n, ret, rel, rel_ret, aps, rrs, p5s):
    gm = math.exp(sum(math.log(max(a, 1e-5)) for a in aps) / n)
    return [
        line("runid", "all", "tag"), line("num_q", "all", n),
        line("num_ret", "all", ret), line("num_rel", "all", rel),
        line("num_rel_ret", "all", rel_ret), line("map", "all", sum(aps) / n),
        line("gm_map", "all", gm), line("recip_rank", "all", sum(rrs) / n),
        line("P_5", "all", sum(p5s) / n),
    ]  # fmt: skip


def test_complete_with_per_query_lines(capsys, files):
    # -c: q3 scores 0; its num_rel still counts.
    code, out, _ = score(capsys, files, "-c", "-q", *MEASURES)
    assert code == 0
    q1 = per_query("q1", 4, 2, 2, (1 + 2 / 3) / 2, 1.0, 2 / 5)
    q2 = per_query("q2", 2, 1, 1, 1 / 2, 1 / 2, 1 / 5)
    q3 = per_query("q3", 0, 1, 0, 0.0, 0.0, 0.0)
    tail = summary(3, 6, 4, 3, [5 / 6, 1 / 2, 0], [1, 1 / 2, 0], [2 / 5, 1 / 5, 0])
    assert out.splitlines() == q1 + q2 + q3 + tail


def test_without_complete_names_where_trec_eval_stops(capsys, files):
    code, out, err = score(capsys, files, *MEASURES)
    assert code == 0
    assert out.splitlines() == summary(
        2, 6, 3, 3, [5 / 6, 1 / 2], [1, 1 / 2], [2 / 5, 1 / 5]
    )
    assert "first 'q3', where trec_eval 10.0 stops with an error" in err


def test_rel_level(capsys, files):
    # -l 2: only a is relevant; q2 has nothing relevant and scores 0. trec_eval
    # -c sums num_rel from every judgment above 0, whatever -l says.
    code, out, _ = score(capsys, files, "-c", "-l", "2", *MEASURES)
    assert code == 0
    assert out.splitlines() == summary(3, 6, 4, 1, [1, 0, 0], [1, 0, 0], [1 / 5, 0, 0])


def test_judged_only(capsys, files):
    # -J: u and z leave the rankings and the ranks close up.
    code, out, _ = score(capsys, files, "-c", "-J", "-q", *MEASURES)
    assert code == 0
    q1 = per_query("q1", 3, 2, 2, 1.0, 1.0, 2 / 5)
    q2 = per_query("q2", 1, 1, 1, 1.0, 1.0, 1 / 5)
    q3 = per_query("q3", 0, 1, 0, 0.0, 0.0, 0.0)
    tail = summary(3, 4, 4, 3, [1, 1, 0], [1, 1, 0], [2 / 5, 1 / 5, 0])
    assert out.splitlines() == q1 + q2 + q3 + tail


def test_depth_and_families_in_trec_eval_order(capsys, files):
    # -M 1 keeps a (q1) and z (q2); P's first parameters win over official's.
    code, out, _ = score(capsys, files, "-M", "1", "-m", "P.1,2", "-m", "official",
                         "-m", "ndcg_cut.1")  # fmt: skip
    assert code == 0
    names = [row.split("\t")[0].strip() for row in out.splitlines()]
    iprec = [f"iprec_at_recall_{x / 10:3.2f}" for x in range(11)]
    assert names == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", *iprec, "P_1", "P_2", "ndcg_cut_1",
    ]  # fmt: skip
    rows = {r.split("\t")[0].strip(): r.split("\t")[2] for r in out.splitlines()}
    assert rows["num_ret"] == "2" and rows["P_1"] == "0.5000"  # a relevant, z not
    assert rows["P_2"] == "0.2500" and rows["ndcg_cut_1"] == "0.5000"


def test_utility_and_num_docs(capsys, files):
    # q1: n = 4 retrieved, h = 2 relevant, R = 2; q2: n = 2, h = 1, R = 1.
    code, out, _ = score(capsys, files, "-q", "-m", "utility", "-m", "set_F.0.5")
    assert code == 0
    rows = {(r.split("\t")[0].strip(), r.split("\t")[1]): r.split("\t")[2]
            for r in out.splitlines()}  # fmt: skip
    assert rows[("utility", "q1")] == f"{2 - 2:6.4f}"
    assert rows[("utility", "q2")] == f"{1 - 1:6.4f}"
    # P = 2/4, R = 2/2: (0.5 + 1) P R / (0.5 P + R)
    assert rows[("set_F_0.5", "q1")] == f"{1.5 * 0.5 * 1 / (0.5 * 0.5 + 1):6.4f}"
    # As trec_eval, the first -m of a family that gives parameters wins.
    code, out, _ = score(capsys, files, "-q", "-N", "20", "-m", "utility",
                         "-m", "utility.1,-1,0,0.5")  # fmt: skip
    rows = {(r.split("\t")[0].strip(), r.split("\t")[1]): r.split("\t")[2]
            for r in out.splitlines()}  # fmt: skip
    assert ("utility", "q1") not in rows
    # 0.5 * (N + h - n - R): q1 0.5 * 16, q2 0.5 * 18.
    assert rows[("utility_1,-1,0,0.5", "q1")] == f"{0.5 * 16:6.4f}"
    assert rows[("utility_1,-1,0,0.5", "q2")] == f"{0.5 * 18:6.4f}"
    code, _, err = score(capsys, files, "-N", "3", "-m", "utility")
    assert code == 2
    assert "-N 3 is fewer documents than query 'q1' alone judges or retrieves" in err


def test_ndcg_custom_gains(capsys, files):
    # ndcg.1=5: level 1 gains 5, level 2 keeps 2. q1 ranks a (2), u, c (1), b;
    # its judged levels: 2 (a), 1 (c), 0 (b), so the ideal is a 5 first.
    code, out, _ = score(capsys, files, "-q", "-m", "ndcg.1=5", "-m", "ndcg")
    assert code == 0
    rows = {(r.split("\t")[0].strip(), r.split("\t")[1]): r.split("\t")[2]
            for r in out.splitlines()}  # fmt: skip
    L2, L3, L4 = (math.log2(i) for i in (2, 3, 4))
    assert rows[("ndcg_1=5", "q1")] == f"{(2 / L2 + 5 / L4) / (5 / L2 + 2 / L3):6.4f}"
    # -m ndcg.1=5 wins over -m ndcg (trec_eval's first parameters).
    assert ("ndcg", "q1") not in rows
    code, out, _ = score(capsys, files, "-m", "ndcg.1=5", "-m", "ndcg_cut.2")
    names = [r.split("\t")[0].strip() for r in out.splitlines()]
    assert names == ["ndcg_1=5", "ndcg_cut_2"]  # ndcg_cut keeps the levels


def test_skndcg_names_print_as_trec_eval_names(capsys, files):
    code, out, _ = score(capsys, files, "--metrics", "ndcg@10", "p@5", "mrr", "err@5")
    assert code == 0
    names = [row.split("\t")[0].strip() for row in out.splitlines()]
    # runid and num_q first as before; err@5 has no trec_eval name and comes last.
    assert names == ["runid", "num_q", "recip_rank", "P_5", "ndcg_cut_10", "err@5"]


@pytest.mark.parametrize("name", ["ndcg@10", "mrr", "err", "nDCG@10", "p@5"])
def test_m_takes_the_registry_names(capsys, files, name):
    code, out, err = score(capsys, files, "-m", name)
    assert code == 0, err
    _, expected, _ = score(capsys, files, "--metrics", name)
    # --metrics adds the runid and num_q lines; -m prints what it names.
    assert out.splitlines() == expected.splitlines()[2:]


def test_m_unknown_name_offers_one_it_takes(capsys, files):
    code, _, err = score(capsys, files, "-m", "ndcgg@10")
    assert code == 2
    assert "unknown measure 'ndcgg@10'. Did you mean 'ndcg@10'?" in err
    code, out, _ = score(capsys, files, "-m", "ndcg@10")
    assert code == 0 and out.startswith("ndcg_cut_10")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("ndcg@0", "metric 'ndcg@0' has cut-off 0; it must be >= 1"),
        ("ndcg@-1", "metric 'ndcg@-1' has cut-off -1; it must be >= 1"),
        ("ndcg@10x", "unknown measure 'ndcg@10x'. trec_eval's names"),
    ],
)
def test_m_name_the_registry_refuses_gets_its_reason(capsys, files, name, message):
    # (it was "unknown measure 'ndcg@0'. Did you mean 'ndcg@0'?": itself)
    code, out, err = score(capsys, files, "-m", name)
    assert code == 2 and out == ""
    assert message in err and "Did you mean" not in err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["-l", "0"], "relevance level must be >= 1"),
        (["-l", "x"], "expected an integer relevance level"),
        (["-m", "ndcg_cutt.10"], "Did you mean 'ndcg_cut.10'?"),
        (["-m", "P.0"], "parameter '0' must be >= 1"),
        (["-m", "P.5,5"], "gives the parameter '5' twice"),
        (["-m", "utility.1,2"], "utility takes 4 numbers"),
        (["-m", "ndcg.0=1"], "skndcg takes gains >= 0 for levels >= 1"),
        (["-m", "ndcg.1=-2"], "skndcg takes gains >= 0 for levels >= 1"),
        (["-m", "ndcg.1=2,1=3"], "gives level 1 twice"),
        (["-m", "ndcg.x"], "level=gain pairs"),
        (["-N", "0"], "expected the number of documents in the collection"),
        (["--metrics", "recip_rnk"], "Did you mean 'recip_rank'?"),
        (["--metrics", "P(rel=2)@5", "-l", "3"], "asks for relevance level 2"),
    ],
)
def test_errors(capsys, files, flags, message):
    code, _, err = score(capsys, files, *flags)
    assert code == 2
    assert message in err


def test_ir_measures_rel_sets_the_level(capsys, files):
    code, out, _ = score(capsys, files, "--metrics", "P(rel=2)@5", "-c")
    assert code == 0
    rows = {r.split("\t")[0].strip(): r.split("\t")[2] for r in out.splitlines()}
    assert rows["P_5"] == f"{(1 / 5) / 3:6.4f}"  # only a is relevant at level 2


def test_all_trec_prints_every_measure(capsys, files):
    code, out, err = score(capsys, files, "-c", "-q", "-m", "all_trec")
    assert code == 0
    assert "not computed" not in err
    names = {row.split("\t")[0].strip() for row in out.splitlines()}
    assert {"success_1", "map_cut_5", "recall_1000", "ndcg"} <= names
    assert {"rbp", "rbp_resid", "relstring", "infAP", "gm_bpref"} <= names


def test_other_formats_and_fail_under_take_trec_eval_names(capsys, files):
    import json

    code, out, err = score(capsys, files, "-m", "P.5", "-m", "map", "--format",
                           "json", "--fail-under", "P_5=0.5")  # fmt: skip
    assert code == 1  # P_5 = 0.3 < 0.5
    assert "P_5 = 0.3000 < 0.5" in err
    assert json.loads(out)["mean"] == {"map": pytest.approx(2 / 3),
                                       "P_5": pytest.approx(0.3)}  # fmt: skip


def test_streamed_run_prints_the_same_lines(capsys, files, monkeypatch):
    code, whole, _ = score(capsys, files, "--metrics", "map", "P_5", "ndcg")
    assert code == 0
    monkeypatch.setenv("SKNDCG_STREAM_BYTES", "0")  # stream every run
    code, streamed, _ = score(capsys, files, "--metrics", "map", "P_5", "ndcg")
    assert code == 0
    # The streamed reader keeps no run tag: the same lines without runid.
    assert streamed.splitlines() == whole.splitlines()[1:]
    assert [r.split("\t")[0].strip() for r in streamed.splitlines()] == [
        "num_q", "map", "P_5", "ndcg",
    ]  # fmt: skip


@pytest.mark.parametrize("fmt", ["trec", "table", "json"])
def test_counts_alone_of_a_streamed_run_are_counted_in_memory(
    capsys, files, monkeypatch, fmt
):
    # Streaming keeps means, not the per-query counts: -m num_ret alone reads
    # the run in memory, whatever its size, and prints what that door prints.
    flags = ("-m", "num_ret", "--format", fmt)
    code, whole, _ = score(capsys, files, *flags)
    assert code == 0
    monkeypatch.setenv("SKNDCG_STREAM_BYTES", "0")  # stream every run
    code, streamed, _ = score(capsys, files, *flags)
    assert code == 0
    assert streamed == whole
    if fmt == "trec":  # q1's 4 and q2's 2 documents (q9 has no judgments)
        assert streamed.splitlines() == [line("num_ret", "all", 6)]


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_counts_named_outside_the_trec_format_are_said_not_dropped(capsys, files, fmt):
    run, qrels = files
    args = ["score", run, "--qrels", qrels, "--format", fmt]
    code, out, err = call(capsys, *args, "-m", "num_ret", "-m", "map")
    assert code == 0
    assert "map" in out and "num_ret" not in out
    assert "num_ret: trec_eval's counts are printed with --format trec" in err
    # A nickname's counts go unsaid, as with relstring.
    code, out, err = call(capsys, *args, "-m", "official")
    assert code == 0 and "counts" not in err
    # The trec format prints them, with nothing to say of them.
    code, out, err = call(capsys, "score", run, "--qrels", qrels, "--format",
                          "trec", "-m", "num_ret")  # fmt: skip
    assert code == 0 and out.startswith("num_ret") and "counts" not in err
