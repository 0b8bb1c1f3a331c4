"""The demo command line: a quick run end to end, real-file input, bad input."""

import subprocess
import sys

import pandas as pd
import pytest

from skndcg.cli import main
from skndcg.datasets import make_movielens_like

MODELS = [
    "random",
    "most popular to date",
    "item mean rating to date",
    "LGBMRanker (tuned)",
]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "out"
    capture = pytest.MonkeyPatch()
    import io

    buffer = io.StringIO()
    capture.setattr(sys, "stdout", buffer)
    try:
        code = main(["demo", "--quick", "--out", str(out)])
    finally:
        capture.undo()
    return code, buffer.getvalue(), out


def test_quick_demo_prints_table_and_writes_files(quick_run):
    code, text, out = quick_run
    assert code == 0
    lines = text.splitlines()
    for step in ("data:", "task:", "hold-out:", "grid search done: best", "wrote"):
        assert any(step in line for line in lines), step
    header = next(line for line in lines if line.startswith("model"))
    assert "fold 0" in header and "fold 1" in header and "CV mean" in header
    for name in MODELS:
        assert any(line.startswith(name + " ") for line in lines), name
    assert "chosen parameters: {'num_leaves':" in text
    for name in ("results.csv", "results.md", "ndcg_at_k.png", "cv_folds.png"):
        assert (out / name).stat().st_size > 0, name
    md = (out / "results.md").read_text()
    assert "| LGBMRanker (tuned)" in md and "Chosen parameters" in md


def test_quick_demo_results(quick_run):
    _, text, out = quick_run
    res = pd.read_csv(out / "results.csv")
    assert set(res["model"]) == set(MODELS)
    assert set(res["split"]) == {"fold 0", "fold 1", "CV mean", "hold-out"}
    hold = res[(res["split"] == "hold-out") & (res["metric"] == "ndcg@10")]
    hold = hold.set_index("model")
    ranker, rand = hold.loc["LGBMRanker (tuned)"], hold.loc["random"]
    assert ranker["value"] > rand["high"]  # beats random beyond its interval
    assert ranker["low"] < ranker["value"] < ranker["high"]
    # The printed table shows the numbers of the file.
    row = next(line for line in text.splitlines() if line.startswith("LGBMRanker"))
    assert f"{ranker['value']:.3f} [{ranker['low']:.3f}, {ranker['high']:.3f}]" in row
    assert "LGBMRanker (tuned) - random: ndcg@10 +" in text


def test_demo_on_movielens_files(tmp_path, capsys):
    ratings = make_movielens_like(150, 1500, 15_000, random_state=2)
    folder = tmp_path / "ml"
    folder.mkdir()
    ratings.rename(columns={"user_id": "userId", "item_id": "movieId"}).drop(
        columns="genres"
    ).to_csv(folder / "ratings.csv", index=False)
    movies = ratings.groupby("item_id")["genres"].first().reset_index()
    movies.insert(1, "title", "Movie")
    movies.rename(columns={"item_id": "movieId"}).to_csv(
        folder / "movies.csv", index=False
    )
    out = tmp_path / "out"
    assert main(["demo", "--quick", "--data", str(folder), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"MovieLens files at {folder}: 15,000 ratings" in text
    assert (out / "results.csv").is_file()


def _error_line(capsys):
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--seed", "-1"], "argument --seed: expected a non-negative integer"),
        (["--max-ratings", "many"], "expected a non-negative integer, got 'many'"),
        (["--data", "a", "--fetch", "ml-100k"], "not allowed with argument"),
        (["--quick", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_options_exit_2(capsys, argv, match):
    with pytest.raises(SystemExit) as exc:
        main(["demo", *argv])
    assert exc.value.code == 2
    assert match in _error_line(capsys)


def test_bad_data_exit_2(tmp_path, capsys):
    missing = tmp_path / "nowhere"
    assert main(["demo", "--data", str(missing)]) == 2
    assert _error_line(capsys) == (
        f"skndcg demo: error: MovieLens path {missing} does not exist."
    )
    junk = tmp_path / "ratings.txt"
    junk.write_text("hello world\n")
    assert main(["demo", "--data", str(junk)]) == 2
    assert "unknown MovieLens format for file" in _error_line(capsys)
    corrupt = tmp_path / "ratings.csv"
    corrupt.write_text("userId,movieId,rating,timestamp\n1,2,oops,4\n")
    assert main(["demo", "--data", str(corrupt)]) == 2
    assert str(corrupt) in _error_line(capsys)
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    (tiny / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,2,4.0,5\n")
    assert main(["demo", "--data", str(tiny)]) == 2
    assert "the data make only 0 queries" in _error_line(capsys)


def test_bad_fetch_and_out_exit_2(tmp_path, capsys):
    assert main(["demo", "--fetch", "ml-5k"]) == 2
    assert "'ml-5k' is not a known MovieLens release" in _error_line(capsys)
    a_file = tmp_path / "taken"
    a_file.write_text("")
    assert main(["demo", "--quick", "--out", str(a_file)]) == 2
    assert "is not a directory" in _error_line(capsys)


def test_python_dash_m_reports_cleanly(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "skndcg", "demo", "--data", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("skndcg demo: error: MovieLens path")
    assert "Traceback" not in proc.stderr
