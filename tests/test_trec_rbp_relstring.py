"""trec_eval 10.0's rbp, rbp_resid and relstring: by hand from ``m_rbp.c``,
``m_rbp_resid.c`` and ``m_relstring.c``, on the command line, and relstring
against the engine's own ranking.

The files of the command-line cases are those of ``test_trec_cli.py``: q1
judges a (2), b (0), c (1) and d (-1: in the pool, not judged) and ranks a, u
(unjudged; tied with c, and "u" > "c" comes first), c, b; q2 ranks z
(unjudged), x (1); q3 judges y and has no results; q9 is in the run only.
"""

import numpy as np
import pytest
from test_trec_cli import files, score  # noqa: F401  (the fixture)

from skndcg.metrics import grouped_ranking_scores, ranking_report


def per_query(labels, name, **kw):
    """One query's value of ``name``, its rows ranked in the order given."""
    y = np.array(labels, dtype=float)
    s = np.arange(len(y), 0, -1, dtype=float)
    return ranking_report(y, s, np.zeros(len(y)), metrics=[name], **kw)[name][0]


def test_trec_rbp_scales_grades_by_the_highest():
    # Grades 3 0 1 4 2, highest 4: gains .75 0 .25 1 .5, weights .9**i.
    want = 0.1 * (0.75 + 0.25 * 0.81 + 1 * 0.729 + 0.5 * 0.6561)
    assert per_query([3, 0, 1, 4, 2], "trec_rbp") == pytest.approx(want, abs=1e-15)
    # The highest grade counts when it was not retrieved (the last row here
    # stands for it only through the ideal: a judged row, scored last).
    want = 0.1 * (1 / 4 + 2 / 4 * 0.9)
    y, s = np.array([1.0, 2.0, 4.0]), np.array([2.0, 1.0, np.nan])
    got = grouped_ranking_scores(y, s, np.zeros(3), ["trec_rbp"],
                                 nan_score="unretrieved")["trec_rbp"]  # fmt: skip
    assert got == pytest.approx(want, abs=1e-15)


def test_trec_rbp_on_binary_labels_is_plain_rbp():
    labels = [1, 0, 0, 1, 1, 0, 1]
    for p in (0.5, 0.9, 0.95):
        got = per_query(labels, f"trec_rbp(p={p})")
        assert got == pytest.approx(per_query(labels, f"rbp(p={p})"), abs=1e-15)


def test_trec_rbp_reads_every_grade_whatever_the_level():
    # -l 3 leaves grades 1 and 2 gains (rbp counts only those >= 3).
    labels = [1, 2, 3]
    want = 0.1 * (1 / 3 + 2 / 3 * 0.9 + 0.81)
    got = per_query(labels, "trec_rbp", rel_threshold=3)
    assert got == pytest.approx(want, abs=1e-15)
    assert per_query(labels, "rbp", rel_threshold=3) == pytest.approx(0.8**2 * 3 * 0.2)


def test_trec_rbp_resid_is_zero_without_unjudged_rows():
    y = np.array([1.0, np.nan, 0.0, np.nan])
    s = np.array([4.0, 3.0, 2.0, 1.0])
    got = ranking_report(y, s, np.zeros(4), metrics=["trec_rbp_resid", "rbp_resid"],
                         nan_label="unjudged")  # fmt: skip
    # Unjudged at ranks 2 and 4: .9**4 + .1 * (.9 + .9**3).
    assert got["trec_rbp_resid"][0] == pytest.approx(0.9**4 + 0.1 * (0.9 + 0.729))
    judged = per_query([1, 0, 1], "trec_rbp_resid")
    assert judged == 0.0  # trec_eval's value; skndcg's residual is p**3
    assert per_query([1, 0, 1], "rbp_resid(p=0.9)") == pytest.approx(0.9**3)


def test_trec_rbp_resid_takes_no_cutoff():
    with pytest.raises(ValueError, match="trec_rbp_resid"):
        per_query([1, 0], "trec_rbp_resid@5")


# trec_eval 10.0's output on these files (its default build), derived by hand:
# q1 rbp = .1 * (2/2 + 1/2 * .9**2) = .1405; rbp_resid = .9**4 + .1 * .9;
# q2 rbp = .1 * .9 (one grade: no scaling); rbp_resid = .9**2 + .1;
# q3 (-c) has no results: '' and zeros.
TREC_EVAL_OUTPUT = """\
relstring             \tq1\t'2-10'
rbp                   \tq1\t0.1405
rbp_resid             \tq1\t0.7461
relstring             \tq2\t'-1'
rbp                   \tq2\t0.0900
rbp_resid             \tq2\t0.9100
relstring             \tq3\t''
rbp                   \tq3\t0.0000
rbp_resid             \tq3\t0.0000
rbp                   \tall\t0.0768
rbp_resid             \tall\t0.5520
"""


def test_command_line_prints_what_trec_eval_prints(capsys, files):  # noqa: F811
    code, out, _ = score(capsys, files, "-q", "-c", "-m", "rbp", "-m",
                           "rbp_resid", "-m", "relstring")  # fmt: skip
    assert code == 0
    assert out == TREC_EVAL_OUTPUT


def test_parameters_and_judged_only(capsys, files):  # noqa: F811
    # -J keeps a, c, b in q1 (ranks close up) and x in q2: no unjudged row is
    # left, so rbp_resid is 0; rbp with p = .5: .5 * (1 + .5 * .5) and .5 * 1.
    code, out, _ = score(capsys, files, "-q", "-J", "-m", "rbp.p=0.5", "-m",
                         "rbp_resid", "-m", "relstring.1")  # fmt: skip
    assert code == 0
    rows = out.splitlines()
    assert rows[:3] == [
        "relstring_1           \tq1\t'2'",
        "rbp_p=0.5             \tq1\t0.6250",
        "rbp_resid             \tq1\t0.0000",
    ]
    assert "rbp_p=0.5             \tall\t0.5625" in rows


def test_relstring_is_per_query_only(capsys, files):  # noqa: F811
    code, out, err = score(capsys, files, "-m", "relstring", "-m", "map")
    assert code == 0
    assert "relstring" not in out
    assert "relstring is shown per query only" in err
    # A nickname's relstring goes unsaid, as trec_eval says nothing.
    code, out, err = score(capsys, files, "-m", "all_trec")
    assert "relstring" not in out + err


def test_relstring_column_of_the_per_query_file(capsys, files, tmp_path):  # noqa: F811
    out_csv = tmp_path / "per_query.csv"
    code, _, _ = score(capsys, files, "-m", "relstring.3", "--per-query",
                       str(out_csv))  # fmt: skip
    assert code == 0
    text = out_csv.read_text().splitlines()
    column = text[0].split(",").index("relstring_3")
    assert [r.split(",")[column] for r in text[1:]] == ["2-1", "-1"]


@pytest.mark.parametrize(
    "flag, message",
    [
        ("rbp.q=1", "rbp takes p=VALUE here"),
        ("rbp.1=0.5", "level=gain pairs for rbp are not read by skndcg"),
        ("rbp.p=1", "parameter p=1 is out of range; expected a number in (0, 1)"),
        ("rbp_resid.p=x", "must be a number"),
        ("rbp.p=0.5,p=0.6", "gives p twice"),
        ("relstring.x", "relstring takes the number of documents to show"),
    ],
)
def test_bad_parameters(capsys, files, flag, message):  # noqa: F811
    code, _, err = score(capsys, files, "-m", flag)
    assert code == 2
    assert message in err


def test_relstring_needs_qrels(capsys, tmp_path):
    from skndcg.cli import main

    path = tmp_path / "p.csv"
    path.write_text("q,l,s\n1,1,0.5\n")
    code = main(["score", str(path), "--qid", "q", "--label", "l", "--score", "s",
                 "-m", "relstring", "-q", "--format", "trec"])  # fmt: skip
    assert code == 2
    assert "give the run with --qrels" in capsys.readouterr().err


def _random_files(tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(12):
        n = int(rng.integers(1, 25))
        for d in range(n):
            if rng.random() < 0.7:
                qrels.append(f"q{q} 0 d{d} {rng.integers(-1, 12)}")
            if rng.random() < 0.8:  # integer scores: many ties, broken by docno
                run.append(f"q{q} Q0 d{d} 0 {rng.integers(0, 4)} r")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return str(tmp_path / "run"), str(tmp_path / "qrels")


@pytest.mark.parametrize("seed", range(4))
def test_relstring_follows_the_engine_s_ranking(capsys, tmp_path, seed):
    """Each relstring read back as labels gives the engine's P@k and
    judged@k, query by query, for every k it covers."""
    paths = _random_files(tmp_path, seed)
    ks = (1, 3, 8, 20)
    metrics = [f"p@{k}" for k in ks] + [f"judged@{k}" for k in ks]
    code, out, _ = score(capsys, paths, "-q", "-m", "relstring.20",
                         "--metrics", *metrics)  # fmt: skip
    assert code == 0
    text = {}
    values = {}
    for row in out.splitlines():
        name, qid, value = (f.strip() for f in row.split("\t"))
        if name == "relstring_20":
            text[qid] = value.strip("'")
        elif qid != "all":
            values[(name, qid)] = float(value)
    assert text
    for qid, chars in text.items():
        assert set(chars) <= set("0123456789>-.")
        for k in ks:
            top = chars[:k]
            relevant = sum(c in "123456789>" for c in top)
            judged = sum(c not in "-." for c in top)
            assert values[(f"P_{k}", qid)] == pytest.approx(relevant / k, abs=5e-5)
            shown = values[(f"judged@{k}", qid)]
            assert shown == pytest.approx(judged / max(len(top), 1), abs=5e-5)


def test_judged_only_keeps_a_query_it_leaves_empty(capsys, tmp_path):
    # q2's only judgment is negative: -J drops its one document, and the query
    # is still scored (trec_eval: num_ret 0, every measure 0).
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b -1\n")
    (tmp_path / "run").write_text("q1 Q0 a 0 1.0 r\nq2 Q0 b 0 1.0 r\n")
    paths = (str(tmp_path / "run"), str(tmp_path / "qrels"))
    code, out, err = score(capsys, paths, "-q", "-J", "-m", "num_q", "-m",
                           "num_ret", "-m", "map", "-m", "relstring")  # fmt: skip
    assert code == 0
    assert "num_q                 \tall\t2" in out
    assert "num_ret               \tq2\t0" in out
    assert "relstring             \tq2\t''" in out
    assert "map                   \tall\t0.5000" in out
    assert "not scored" not in err


def test_yaap_by_hand():
    # Ranked 1 0 1 and one relevant row not retrieved: S = 1/1 + 2/3, R = 3.
    y = np.array([1.0, 0.0, 1.0, 1.0])
    s = np.array([3.0, 2.0, 1.0, np.nan])
    got = grouped_ranking_scores(y, s, np.zeros(4), ["yaap"],
                                 nan_score="unretrieved")["yaap"]  # fmt: skip
    big_s = 1 + 2 / 3
    assert got == pytest.approx(np.log((1 + big_s) / (1 + 3 - big_s)), abs=1e-15)
    # Monotonic with AP on one query: a better order, a larger value.
    better = grouped_ranking_scores(y, np.array([3.0, 1.0, 2.0, np.nan]),
                                    np.zeros(4), ["yaap"],
                                    nan_score="unretrieved")["yaap"]  # fmt: skip
    assert better > got


def test_yaap_scores_a_query_with_no_results():
    # trec_eval -c: S = 0, so log(1 / (1 + R)), where other measures give 0.
    y = np.array([1.0, 1.0])
    s = np.array([np.nan, np.nan])
    report = ranking_report(y, s, np.zeros(2), metrics=["yaap", "map"],
                            nan_score="unretrieved", queries="judged")  # fmt: skip
    assert report["yaap"][0] == pytest.approx(-np.log(3), abs=1e-15)
    assert report["map"][0] == 0.0


# trec_eval 10.0's output on the files above (-c): q1 ranks a (2), u, c (1),
# b (0); dcg = 2/log2(2) + 1/log2(4) = 2.5 and ideal 2 + 1/log2(3); q2's x at
# rank 2: 1/log2(3), ideal 1; q3 has no results. yaap: q1 S = 1 + 2/3, R = 2,
# log(2); q2 S = 1/2, R = 1, log(1); q3 S = 0, R = 1, log(1/2). Their mean is
# a rounding error below 0, which trec_eval prints as -0.0000.
DCG_OUTPUT = """\
dcg                   \tq1\t2.5000
ideal_dcg             \tq1\t2.6309
yaap                  \tq1\t0.6931
dcg                   \tq2\t0.6309
ideal_dcg             \tq2\t1.0000
yaap                  \tq2\t0.0000
dcg                   \tq3\t0.0000
ideal_dcg             \tq3\t1.0000
yaap                  \tq3\t-0.6931
dcg                   \tall\t1.0436
ideal_dcg             \tall\t1.5436
yaap                  \tall\t-0.0000
"""


def test_dcg_ideal_dcg_and_yaap_as_trec_eval_prints_them(capsys, files):  # noqa: F811
    code, out, _ = score(capsys, files, "-q", "-c", "-m", "yaap", "-m", "dcg",
                         "-m", "ideal_dcg")  # fmt: skip
    assert code == 0
    assert out == DCG_OUTPUT
    # dcg takes ndcg's level=gain parameters: level 1 gains 5 here.
    code, out, _ = score(capsys, files, "-q", "-m", "dcg.1=5")
    assert out.splitlines()[0] == f"{'dcg_1=5':<22}\tq1\t{2 + 5 / 2:6.4f}"
