"""The command line called in-process, and the small trec run and qrels that
several command-line tests share (test_trec_cli.py checks them by hand)."""

from skndcg.cli import main

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq1 0 d -1\nq2 0 x 1\nq3 0 y 1\n"
RUN = (
    "q1 Q0 a 1 3.0 tag\nq1 Q0 u 2 2.0 tag\nq1 Q0 c 3 2.0 tag\nq1 Q0 b 4 1.0 tag\n"
    "q2 Q0 z 1 1.0 tag\nq2 Q0 x 2 0.5 tag\nq9 Q0 a 1 1.0 tag\n"
)


def write_run_qrels(tmp_path):
    """RUN and QRELS written into ``tmp_path``: their paths, run first."""
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text(RUN)
    qrels.write_text(QRELS)
    return str(run), str(qrels)


def call(capsys, *argv):
    """``skndcg *argv``: its exit code (argparse's too), stdout and stderr."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
