"""``skndcg score`` end to end in a subprocess: exit codes, signals, safe files."""

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\n"


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def _cmd(*argv, launcher=("-m", "skndcg")):
    return [sys.executable, *launcher, "score", *map(str, argv)]


def _score(*argv, timeout=120, **env):
    return subprocess.run(
        _cmd(*argv), capture_output=True, text=True, timeout=timeout, env=_env(**env)
    )


@pytest.fixture
def trec(tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(RUN)
    qrels.write_text(QRELS)
    return run, qrels


def _one_line_error(proc, *needles):
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("skndcg score: error: "), lines
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_data_errors_exit_2_with_one_line(trec, tmp_path):
    run, qrels = trec
    proc = _score(run, "--qrels", qrels, "--depth", 2**64)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--depth" in proc.stderr and "9223372036854775807" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1

    corrupt = tmp_path / "run.gz"
    import gzip

    corrupt.write_bytes(gzip.compress(RUN.encode() * 50)[:40])
    _one_line_error(_score(corrupt, "--qrels", qrels), "run.gz")

    huge = tmp_path / "huge_qrels.txt"
    huge.write_text("q1 0 d1 99999999999999999999\n")
    _one_line_error(_score(run, "--qrels", huge), "huge_qrels.txt")


def test_missed_threshold_is_the_only_exit_1(trec):
    run, qrels = trec
    proc = _score(run, "--qrels", qrels, "--metrics", "map", "--fail-under", "map=2")
    assert proc.returncode == 1
    assert proc.stderr.startswith("skndcg score: below threshold")


def _big_predictions(path, n_queries):
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(n_queries), 2)
    y = rng.integers(0, 2, q.size)
    y[::2] = 1  # every query has a relevant item
    s = rng.random(q.size).round(4)
    lines = [f"{a},{b},{c}" for a, b, c in zip(q, y, s, strict=True)]
    path.write_text("q,y,s\n" + "\n".join(lines) + "\n")
    return ["--qid", "q", "--label", "y", "--score", "s"]


def test_head_on_stdout_exits_quietly(tmp_path):
    path = tmp_path / "p.csv"
    cols = _big_predictions(path, 20_000)
    proc = subprocess.Popen(
        _cmd(path, *cols, "--per-query", "-"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert first.startswith(b"qid,")
    assert err == b"" and proc.returncode == 141


def test_per_query_dash_is_stdout(trec, tmp_path):
    run, qrels = trec
    proc = subprocess.run(
        _cmd(run, "--qrels", qrels, "--metrics", "map", "--per-query", "-"),
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("qid,")
    assert proc.stdout.splitlines()[1].startswith("q1,")
    assert "map" in proc.stderr and "1.0000" in proc.stderr
    assert not (tmp_path / "-").exists()


def test_per_query_symlink_out_of_the_folder_is_refused(trec, tmp_path):
    run, qrels = trec
    outside, out = tmp_path / "outside", tmp_path / "out"
    outside.mkdir()
    out.mkdir()
    victim = outside / "precious.txt"
    victim.write_text("keep me")
    (out / "pq.csv").symlink_to(victim)
    proc = _score(run, "--qrels", qrels, "--per-query", out / "pq.csv")
    _one_line_error(proc, "symbolic link", "precious.txt")
    assert victim.read_text() == "keep me"
    # A link within the folder is followed; the file is replaced whole.
    inside = out / "real.csv"
    inside.write_text("old")
    (out / "link.csv").unlink(missing_ok=True)
    (out / "link.csv").symlink_to(inside)
    proc = _score(run, "--qrels", qrels, "--per-query", out / "link.csv")
    assert proc.returncode == 0, proc.stderr
    assert inside.read_text().startswith("qid,")
    assert (out / "link.csv").is_symlink()
    assert sorted(p.name for p in out.iterdir()) == ["link.csv", "pq.csv", "real.csv"]


def test_per_query_into_a_missing_folder_names_the_file_asked_for(trec, tmp_path):
    run, qrels = trec
    target = tmp_path / "no_such_folder" / "pq.csv"
    proc = _score(run, "--qrels", qrels, "--per-query", target)
    _one_line_error(
        proc, f"cannot write --per-query file {str(target)!r}: No such file or"
    )
    assert ".part" not in proc.stderr
    assert not target.parent.exists()


# Run ``skndcg`` with its first fsync of a ``.part`` file held: it writes the
# marker file named by argv[1], then sleeps until a signal ends it. The test
# signals it from outside at that point, not at a moment found by polling.
_HOLD_PART_WRITE = """
import os, runpy, sys, time
marker = sys.argv.pop(1)
real_fsync = os.fsync
def held_fsync(fd):
    if os.readlink(f"/proc/self/fd/{fd}").endswith(".part"):
        open(marker, "w").close()
        time.sleep(120)
    real_fsync(fd)
os.fsync = held_fsync
runpy.run_module("skndcg", run_name="__main__", alter_sys=True)
"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_per_query_leaves_no_partial_file(tmp_path, sig, code):
    path = tmp_path / "p.csv"
    cols = _big_predictions(path, 1_000)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "pq.csv"
    target.write_text("the previous version\n")
    marker = tmp_path / "writing"
    held = ("-c", _HOLD_PART_WRITE, str(marker))
    proc = subprocess.Popen(
        _cmd(path, *cols, "--metrics", "ndcg", "--per-query", target, launcher=held),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    # The per-query rows are written and the temporary file is still there.
    assert [p.suffix for p in out.iterdir() if p.name != "pq.csv"] == [".part"]
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert b"Traceback" not in err
    assert [p.name for p in out.iterdir()] == ["pq.csv"]
    assert target.read_text() == "the previous version\n"


def test_device_copy_is_capped_and_cleaned(trec, tmp_path):
    run, _ = trec
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = _score(
        run, "--qrels", "/dev/zero", "--pipe-limit-mb", 1, TMPDIR=str(tmp), timeout=60
    )
    _one_line_error(proc, "/dev/zero", "1 MiB", "--pipe-limit-mb")
    assert list(tmp.iterdir()) == []


def test_sigterm_while_copying_a_device_cleans_up(trec, tmp_path):
    run, _ = trec
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        _cmd(run, "--qrels", "/dev/zero"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(TMPDIR=str(tmp)),
    )
    deadline = time.monotonic() + 120
    while not any(tmp.rglob("qrels-*")):
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert list(tmp.iterdir()) == []


def test_fifo_without_writer_times_out(trec, tmp_path):
    run, _ = trec
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    start = time.monotonic()
    proc = _score(run, "--qrels", fifo, "--pipe-timeout", 0.5, timeout=60)
    _one_line_error(proc, "qrels.fifo", "0.5 s", "--pipe-timeout")
    assert time.monotonic() - start < 60


def test_fifo_with_a_writer_is_read(trec, tmp_path):
    run, _ = trec
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        _cmd(run, "--qrels", fifo, "--metrics", "map"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    with open(fifo, "w") as fh:  # blocks until the command opens it
        fh.write(QRELS)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "1.0000" in out


RUN3 = "".join(f"q{q} Q0 d{d} {d} {4 - d}.0 r\n" for q in (1, 2, 3) for d in (1, 2, 3))
HUMAN3 = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq3 0 d2 1\n"
MODEL3 = "q1 0 d1 1\nq2 0 d3 1\nq2 0 d1 1\nq3 0 d2 2\n"


@pytest.mark.parametrize(
    "flag, text, extra",
    [
        ("--model-qrels", MODEL3, ["--metrics", "map"]),
        ("--popularity", "d1 5\nd2 1\nd3 2\n", ["-m", "arp@2"]),
    ],
)
def test_every_input_file_may_be_a_pipe(tmp_path, flag, text, extra):
    # As a run and its qrels are, --model-qrels and --popularity are copied
    # from a pipe before they are read: the same output as from a file.
    run, qrels, plain = tmp_path / "run", tmp_path / "qrels", tmp_path / "plain"
    run.write_text(RUN3)
    qrels.write_text(HUMAN3)
    plain.write_text(text)
    expected = _score(run, "--qrels", qrels, flag, plain, *extra)
    assert expected.returncode == 0, expected.stderr
    fifo = tmp_path / "input.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        _cmd(run, "--qrels", qrels, flag, fifo, *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    _write_when_opened(fifo, text, proc)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out == expected.stdout


def _write_when_opened(fifo, text, proc):
    """Write ``text`` into ``fifo`` once ``proc`` opens it for reading; fail,
    rather than wait for ever, when ``proc`` ends without opening it."""
    deadline = time.monotonic() + 120
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO: no reader
            break
        except OSError:
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline
            time.sleep(0.01)
    os.set_blocking(fd, True)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)


def test_stdin_feeds_one_input_only(trec):
    # The qrels, read second from the same stdin, were the run's text.
    proc = subprocess.run(
        _cmd("-", "--qrels", "-"), input=RUN, capture_output=True, text=True,
        timeout=120, env=_env(),
    )  # fmt: skip
    _one_line_error(proc, "'-' (standard input) is given for RUN and --qrels")


def test_a_trec_run_without_qrels_asks_for_them(trec):
    run, _ = trec
    proc = _score(run)
    _one_line_error(proc, f"{run} looks like a TREC run", "--qrels QRELS")
    assert "its columns are" not in proc.stderr
