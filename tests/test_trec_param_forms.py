"""trec_eval's -m parameter forms read as trec_eval 10.0 reads them: cut-offs
with C's ``atol`` (``23.4`` is 23), numbers with ``atof`` (``.25`` is 0.25),
and ``11pt_avg`` with its own recall levels (``11pt_avg..25,.5,.75``)."""

from pathlib import Path

import numpy as np
import pytest
from cli_calls import call, write_run_qrels

from skndcg.metrics._catalogue._trec_params import c_number


@pytest.fixture
def paths(tmp_path):
    run, qrels = write_run_qrels(tmp_path)
    return qrels, run


def trec_eval(capsys, *argv):
    return call(capsys, "trec_eval", *argv)


def rows(out):
    return [tuple(part.strip() for part in r.split("\t")) for r in out.splitlines()]


def test_11pt_avg_with_levels_by_hand(capsys, paths):
    code, out, err = trec_eval(capsys, "-q", "-m", "11pt_avg..25,.5,.75", *paths)
    assert code == 0, err
    # q1: relevant a (rank 1) and c (rank 3), R = 2: the levels need
    # round(0.5) = 1, round(1) = 1 and round(1.5) = 2 relevant documents,
    # reached at precision 1, 1 and 2/3. q2: x at rank 2, R = 1: round(0.25)
    # = 0, 1 and 1 documents, the best precision from there on being 1/2.
    q1, q2 = (1 + 1 + 2 / 3) / 3, 0.5
    assert rows(out) == [
        ("11pt_avg_.25,.5,.75", "q1", f"{q1:6.4f}"),
        ("11pt_avg_.25,.5,.75", "q2", f"{q2:6.4f}"),
        ("11pt_avg_.25,.5,.75", "all", f"{(q1 + q2) / 2:6.4f}"),
    ]


def test_11pt_avg_levels_are_the_mean_of_iprec_at_them(capsys, paths):
    code, out, _ = trec_eval(capsys, "-q", "-c", "-m", "11pt_avg.0.2,0.5,0.8", *paths)
    assert code == 0
    code, iprec, _ = trec_eval(
        capsys, "-q", "-c", "-m", "iprec_at_recall.0.2,0.5,0.8", *paths
    )
    assert code == 0
    got = {q: float(v) for _, q, v in rows(out)}
    per = {}
    for _, q, v in rows(iprec):
        per.setdefault(q, []).append(float(v))
    for q, values in per.items():
        if q != "all":
            assert got[q] == pytest.approx(np.mean(values), abs=1e-4)
    # Without levels, 11pt_avg keeps its 11 default ones.
    code, out, _ = trec_eval(capsys, "-m", "11pt_avg", *paths)
    assert code == 0 and rows(out)[0][0] == "11pt_avg"


def test_cut_offs_read_as_atol(capsys, paths):
    code, out, err = trec_eval(capsys, "-q", "-m", "ndcg_cut.1,2,3.7", *paths)
    assert code == 0, err
    code, same, _ = trec_eval(capsys, "-q", "-m", "ndcg_cut.1,2,3", *paths)
    assert out == same and "ndcg_cut_3 " in out and "3.7" not in out
    # 2.9 is the cut-off 2, given twice: refused, as trec_eval refuses it.
    code, _, err = trec_eval(capsys, "-m", "P.2,2.9", *paths)
    assert code == 2 and "twice" in err and "read as 2" in err


@pytest.mark.parametrize(
    "arg, needle",
    [
        ("11pt_avg..75,.25", "increasing order (as in 11pt_avg..25,.75)"),
        ("11pt_avg.1.5", "recall levels in [0, 1]"),
        ("11pt_avg.x", "recall levels in [0, 1]"),
        ("P.x", "integer cut-offs"),
        ("P.0", "must be >= 1"),
    ],
)
def test_refused_forms_say_why(capsys, paths, arg, needle):
    code, out, err = trec_eval(capsys, "-m", arg, *paths)
    assert code == 2 and out == ""
    assert needle in err and arg in err


@pytest.mark.parametrize(
    "text, integer, expected",
    [("23.4", True, 23), (" 7", True, 7), ("+5x", True, 5), ("-3", True, -3),
     ("x", True, None), ("", True, None), (".25", False, 0.25),
     ("1e-1,", False, 0.1), ("5.", False, 5.0), ("e5", False, None),
     # C reads no digit and no space beyond ASCII: atol("\uff15") is 0.
     ("\uff15", True, None), ("2\uff15", True, 2), ("\xa05", True, None),
     ("\uff10.5", False, None), ("1_0", True, 1)],
)  # fmt: skip
def test_c_number(text, integer, expected):
    assert c_number(text, integer) == expected


def test_compare_scores_the_same_lines(capsys, tmp_path, paths):
    import json

    qrels, run = paths
    other = tmp_path / "other"
    other.write_text(Path(run).read_text().replace("3.0 tag", "0.1 tag"))
    measures = ["-m", "11pt_avg..25,.5,.75", "-m", "ndcg.1=5", "-c"]
    code, out, err = call(capsys, "compare", run, str(other), "--qrels",
                               qrels, *measures, "--min-queries", "0",
                               "--format", "json")  # fmt: skip
    assert code == 0, err
    means = {
        (r["model"], r["metric"]): r["mean"] for r in json.loads(out)["model_rows"]
    }
    for path, name in ((run, "run"), (str(other), "other")):
        code, out, _ = call(capsys, "score", path, "--qrels", qrels,
                                 *measures, "--format", "json")  # fmt: skip
        assert code == 0
        for metric, value in json.loads(out)["mean"].items():
            assert means[name, metric] == pytest.approx(value, abs=1e-12)
