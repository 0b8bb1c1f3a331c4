"""Files are written whole or not at all, and never through a link out of the folder."""

import sys

import pytest

from skndcg.cli import main
from skndcg.utils._atomic import atomic_write, safe_target


def test_failed_write_keeps_the_previous_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("previous\n")
    with pytest.raises(RuntimeError, match="midway"), atomic_write(target) as fh:
        fh.write("half of the new ")
        raise RuntimeError("midway")
    assert target.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]
    with atomic_write(target, "wb") as fh:
        fh.write(b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_links_out_of_the_folder_are_refused(tmp_path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    victim = elsewhere / "victim.txt"
    victim.write_text("keep")
    (out / "a.csv").symlink_to(victim)
    refused = r"symbolic link to .*victim\.txt.*outside"
    with pytest.raises(ValueError, match=refused), atomic_write(out / "a.csv") as fh:
        fh.write("overwrite")
    assert victim.read_text() == "keep"
    # A link to a file in a sub-folder of the output folder is followed.
    (out / "sub").mkdir()
    (out / "b.csv").symlink_to(out / "sub" / "b.csv")
    assert safe_target(out / "b.csv") == (out / "sub" / "b.csv").resolve()
    with atomic_write(out / "b.csv") as fh:
        fh.write("through")
    assert (out / "sub" / "b.csv").read_text() == "through"
    assert safe_target(out / "plain.csv") == out / "plain.csv"


def test_demo_refuses_a_link_out_of_its_folder_before_working(tmp_path, capsys):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    victim = elsewhere / "precious.csv"
    victim.write_text("keep")
    (out / "results.csv").symlink_to(victim)
    assert main(["demo", "--quick", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "symbolic link" in err[0] and "precious.csv" in err[0]
    assert "grid search" not in captured.out
    assert victim.read_text() == "keep"


def test_demo_without_lightgbm_says_how_to_install_from_a_checkout(monkeypatch):
    from skndcg.demo._models import build_search

    monkeypatch.setitem(sys.modules, "lightgbm", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[lightgbm\]'"):
        build_search(3, [0, 1], quick=True, random_state=0)


def test_trec_runs_are_written_whole(tmp_path):
    from skndcg.io import read_trec_run, write_trec_run
    from skndcg.io._text import write_lines

    for name in ("run.txt", "run.txt.gz"):
        path = tmp_path / name
        write_trec_run(path, ["q1", "q1"], ["d1", "d2"], [0.5, 0.7], tag="t")
        assert read_trec_run(path)["doc_id"].tolist() == ["d2", "d1"]

        def lines():
            yield "q1 Q0 d9 1 1.0 t\n"
            raise RuntimeError("cut")

        with pytest.raises(RuntimeError, match="cut"):
            write_lines(path, lines())
        assert read_trec_run(path)["doc_id"].tolist() == ["d2", "d1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.txt", "run.txt.gz"]


def test_a_device_is_written_in_place():
    with atomic_write("/dev/null") as fh:
        fh.write("gone")
