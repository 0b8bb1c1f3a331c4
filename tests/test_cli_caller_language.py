"""The command line neither ignores what it is asked nor speaks Python to its
caller: -q and -n outside --format trec, default column names, messages in
flag spelling, the sub-command's own name, swapped qrels and run."""

import pytest
from test_trec_cli import QRELS, RUN

from skndcg.cli import main


@pytest.fixture
def files(tmp_path):
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text(RUN)
    qrels.write_text(QRELS)
    return str(run), str(qrels)


def call(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
@pytest.mark.parametrize("flag", ["-q", "-n"])
def test_trec_flags_outside_format_trec_are_refused(capsys, files, fmt, flag):
    run, qrels = files
    code, out, err = call(capsys, "score", run, "--qrels", qrels, "-m", "map",
                          flag, "--format", fmt)  # fmt: skip
    assert code == 2 and out == ""
    assert f"{flag} " in err and "needs --format trec" in err
    assert "--per-query" in err
    # The same call in --format trec is honoured: per-query lines with -q,
    # no 'all' line with -n.
    code, out, _ = call(capsys, "score", run, "--qrels", qrels, "-m", "map",
                        flag, "--format", "trec")  # fmt: skip
    assert code == 0
    qids = {row.split("\t")[1] for row in out.splitlines()}
    assert qids == ({"q1", "q2", "all"} if flag == "-q" else set())
