"""The demo command line: a quick run end to end, real-file input, bad input."""

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from skndcg.cli import main
from skndcg.datasets import make_movielens_like

BASELINES = [
    "random (expected)",
    "random (one draw)",
    "popularity",
    "popularity (30 days)",
    "item mean",
]
RANKER = "LGBMRanker (tuned)"
MODELS = [*BASELINES, RANKER]
COLUMNS = ["model", "split", "metric", "value", "low", "high"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "out"
    capture = pytest.MonkeyPatch()
    import io

    buffer = io.StringIO()
    capture.setattr(sys, "stdout", buffer)
    try:
        code = main(["demo", "--quick", "--out", str(out), "--candidates", "both"])
    finally:
        capture.undo()
    return code, buffer.getvalue(), out


def test_quick_demo_prints_tables_and_writes_files(quick_run):
    code, text, out = quick_run
    assert code == 0
    lines = text.splitlines()
    for step in ("data:", "candidates:", "hold-out:", "grid search:", "wrote"):
        assert any(step in line for line in lines), step
    # One table per sampling mode, each naming the mode, N and the hold-out.
    titles = [ln for ln in lines if " negatives, N = 50: hold-out of " in ln]
    assert [t.split()[0] for t in titles] == ["uniform", "popularity"]
    headers = [ln for ln in lines if ln.startswith("model") and "CV mean" in ln]
    assert len(headers) == 2
    per_item = [ln for ln in lines if ln.startswith("model") and "ndcg@10 bv" in ln]
    assert len(per_item) == 2
    assert all("95% CI (queries)" in h and "95% CI (users)" in h for h in headers)
    for name in MODELS:
        row = re.compile(re.escape(name) + r" +\d")
        # Once in each mode's main table and once in its per-item table.
        assert sum(bool(row.match(line)) for line in lines) == 4, name
    assert text.count("headline: LGBMRanker (tuned) against ") == 2
    assert "dropped as positives" in text and "of the span is held out" in text
    for name in (
        "results.csv",
        "results.md",
        "ndcg_at_k_uniform.png",
        "ndcg_at_k_popularity.png",
        "cv_folds.png",
    ):
        assert (out / name).stat().st_size > 0, name
    md = (out / "results.md").read_text()
    assert "| LGBMRanker (tuned)" in md and "## popularity negatives" in md
    # Each mode also reads its hold-out one rated item at a time, raw and
    # corrected for sampling, with the order of models each estimate implies.
    assert text.count("hold-out per item (each rated item ranked among") == 2
    for estimate in ("raw", "adjusted", "bv", "full"):
        assert text.count(f"ndcg@10 {estimate}: ") == 2, estimate
        assert f"ndcg@10 {estimate}: " in md


def test_quick_demo_reports_users_without_a_past_apart(quick_run):
    _, text, out = quick_run
    seg = re.compile(
        r"^users with(out)? a past \((\d+) queries\): LGBMRanker \(tuned\) - "
        r"(.+?): ndcg@10 [+-]\d\.\d{3}, (\[.+?\]|no interval \(too few "
        r"queries\)), Holm-adjusted p [=<] \d\.\d{3} \(.*resample.*\)$"
    )
    found = [m for m in map(seg.match, text.splitlines()) if m]
    assert {m.group(1) for m in found} == {None, "out"}
    assert "users without a past (" in (out / "results.md").read_text()


def test_quick_demo_results(quick_run):
    _, text, out = quick_run
    res = pd.read_csv(out / "results.csv")
    assert list(res.columns[:6]) == COLUMNS
    assert {"negatives", "n_negatives", "user_low", "user_high"} <= set(res.columns)
    assert set(res["negatives"]) == {"uniform", "popularity"}
    assert set(res["n_negatives"]) == {50}
    diffs = [f"{RANKER} - {b}" for b in BASELINES]
    assert set(res["model"]) == {*MODELS, *diffs}
    assert set(res["split"]) == {
        "fold 0",
        "fold 1",
        "CV mean",
        "hold-out",
        "hold-out per item",
    }
    key = ["model", "split", "metric", "negatives", "estimate"]
    assert not res.duplicated(key).any()
    hold = res[res["split"] == "hold-out"]
    assert set(hold["model"]) == {*MODELS, *diffs}
    assert (hold["low"] <= hold["value"]).all() and (
        hold["value"] <= hold["high"]
    ).all()
    assert (hold["user_low"] <= hold["value"]).all()
    assert hold.loc[hold["model"].isin(diffs), "p_adjusted"].between(0, 1).all()
    assert hold.loc[~hold["model"].isin(diffs), "p_value"].isna().all()
    for mode, rows in res.groupby("negatives"):
        h = rows[(rows["split"] == "hold-out") & (rows["metric"] == "ndcg@10")]
        h = h.set_index("model")
        ranker, rand = h.loc[RANKER], h.loc["random (expected)"]
        assert ranker["value"] > rand["high"], mode  # beats random clearly
        # A paired difference is the difference of the two means.
        for b in BASELINES:
            assert h.loc[f"{RANKER} - {b}", "value"] == pytest.approx(
                ranker["value"] - h.loc[b, "value"]
            )
        # The headline baseline is the best baseline by CV mean: chosen before
        # the hold-out is looked at.
        cv = rows[(rows["split"] == "CV mean") & (rows["metric"] == "ndcg@10")]
        best = cv[cv["model"].isin(BASELINES)].set_index("model")["value"].idxmax()
        assert f"{mode} negatives" in text
        assert f"against {best}, the strongest baseline" in text
        # The printed table shows the numbers of the file.
        r = ranker
        cell = (
            f"{r['value']:.3f}    [{r['low']:.3f}, {r['high']:.3f}]  "
            f"[{r['user_low']:.3f}, {r['user_high']:.3f}]"
        )
        assert cell in text, cell
    # The per-item rows: raw, adjusted, bv and the full-catalogue number they
    # estimate, for every model and mode.
    per_item = res[res["split"] == "hold-out per item"]
    assert set(res.loc[res["split"] != "hold-out per item", "estimate"]) == {"raw"}
    assert set(per_item["estimate"]) == {"raw", "adjusted", "bv", "full"}
    assert set(per_item["model"]) == set(MODELS)
    assert set(per_item["metric"]) == {"ndcg@10", "recall@10"}
    assert len(per_item) == 2 * len(MODELS) * 2 * 4
    assert not per_item.duplicated(["model", "metric", "negatives", "estimate"]).any()
    wide = per_item.pivot_table(
        index=["negatives", "model", "metric"], columns="estimate", values="value"
    )
    # Against 50 sampled negatives an item looks far better placed than against
    # thousands: the raw number is above both corrections for every model.
    assert (wide["raw"] > wide["adjusted"]).all()
    assert (wide["raw"] > wide["bv"]).all()
    assert (wide["raw"] > wide["full"]).all()
    # The baselines do not depend on the sampling mode against the whole
    # catalogue: the same queries, the same full ranking.
    full = wide["full"].unstack("negatives")
    base = full.index.get_level_values("model") != RANKER
    np.testing.assert_array_equal(
        full.loc[base, "uniform"], full.loc[base, "popularity"]
    )
    # Random ordering's exact expectation does not depend on the sampling mode
    # of the negatives when their number is the same; its draw does.
    e = hold[(hold["model"] == "random (expected)")].pivot(
        index="metric", columns="negatives", values="value"
    )
    np.testing.assert_allclose(e["uniform"], e["popularity"])


def _movielens_folder(folder):
    """Small generated ratings written as a MovieLens release (ml-latest)."""
    ratings = make_movielens_like(150, 1500, 15_000, random_state=2)
    folder.mkdir()
    ratings.rename(columns={"user_id": "userId", "item_id": "movieId"}).drop(
        columns="genres"
    ).to_csv(folder / "ratings.csv", index=False)
    movies = ratings.groupby("item_id")["genres"].first().reset_index()
    movies.insert(1, "title", "Movie (1999)")
    movies.rename(columns={"item_id": "movieId"}).to_csv(
        folder / "movies.csv", index=False
    )
    return folder


def test_demo_on_movielens_files(tmp_path, capsys):
    folder = _movielens_folder(tmp_path / "ml")
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
        (
            ["--negatives", "zipf"],
            "argument --candidates/--negatives: invalid choice: 'zipf'",
        ),
        (["--candidates", "all"], "invalid choice: 'all'"),
        (["--n-negatives", "0"], "expected a positive integer, got '0'"),
        (["--min-history", "-2"], "expected a non-negative integer, got '-2'"),
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
    assert "the ratings span less than one month boundary" in _error_line(capsys)
    small = tmp_path / "small"
    small.mkdir()
    make_movielens_like(20, 200, 600, random_state=0).drop(columns="genres").rename(
        columns={"user_id": "userId", "item_id": "movieId"}
    ).to_csv(small / "ratings.csv", index=False)
    assert main(["demo", "--data", str(small)]) == 2
    assert "the demo needs at least 40 of each" in _error_line(capsys)


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


def test_one_mode_other_n_and_history(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["demo", "--quick", "--out", str(out), "--candidates", "uniform"]
    argv += ["--n-negatives", "10", "--min-history", "2"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.count("uniform negatives, N = 10: hold-out of") == 1
    assert "popularity negatives" not in text
    assert "0 queries are users without a past" in text
    res = pd.read_csv(out / "results.csv")
    assert set(res["negatives"]) == {"uniform"} and set(res["n_negatives"]) == {10}
    assert (out / "ndcg_at_k_uniform.png").is_file()
    assert not (out / "ndcg_at_k_popularity.png").exists()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"negatives": "zipf"}, "--candidates must be 'full', 'uniform', 'popularity'"),
        ({"n_negatives": 0}, "--n-negatives must be an integer >= 1, got 0"),
        ({"min_history": "2"}, "--min-history must be an integer >= 0, got '2'"),
        ({"protocol": "kfold"}, "--protocol must be one of global-time, leave-last-n"),
    ],
)
def test_run_demo_checks_its_options(tmp_path, kwargs, match):
    from skndcg.demo import run_demo

    with pytest.raises(ValueError, match=match):
        run_demo(out=tmp_path / "out", **kwargs)


def test_grid_search_prints_progress_per_candidate_and_fold(quick_run):
    _, text, _ = quick_run
    for mode in ("uniform", "popularity"):
        lines = [
            ln for ln in text.splitlines() if f"[{mode}, N=50] grid search: c" in ln
        ]
        places = [re.search(r"candidate (\d/\d) .*fold (\d/\d)", ln) for ln in lines]
        assert [m.groups() for m in places] == [
            ("1/2", "1/2"),
            ("1/2", "2/2"),
            ("2/2", "1/2"),
            ("2/2", "2/2"),
        ], lines
        assert all(
            re.search(r"num_leaves=\d+\), fold .*ndcg@10 0\.\d{3}$", ln) for ln in lines
        )


FULL_MODELS = [
    "random (expected)",
    "popularity",
    "popularity (7 days)",
    "popularity (30 days)",
    "popularity (time-decayed)",
    "item kNN",
    "stage: item kNN + recent popularity",
    RANKER,
]


def test_default_run_is_the_full_catalogue_under_a_per_user_protocol(tmp_path, capsys):
    out = tmp_path / "out"
    folder = _movielens_folder(tmp_path / "ml")  # small data: a fast test
    argv = ["demo", "--quick", "--data", str(folder), "--out", str(out)]
    assert main([*argv, "--protocol", "leave-last-n"]) == 0
    text = capsys.readouterr().out
    assert "hold-out: each user's last query (month)" in text
    title = re.search(
        r"^full catalogue: hold-out of ([\d,]+) queries \(([\d,]+) users\), "
        r"--protocol leave-last-n$",
        text,
        re.MULTILINE,
    )
    assert title, text
    assert title.group(1) == title.group(2)  # leave-last-one: a query per user
    # Tuned on the full-catalogue ranking of every fold, per fold and candidate.
    assert re.search(
        r"candidate 1/2 \(num_leaves=7\), fold 1/2: stage_ndcg@10 0\.", text
    )
    ceiling = re.search(r"recall@100 (0\.\d{3}) of the hold-out's rated items", text)
    assert ceiling, text
    res = pd.read_csv(out / "results.csv")
    assert set(res["negatives"]) == {"full"}
    assert set(res["estimate"]) == {"full"}
    assert set(res["model"]) >= set(FULL_MODELS)
    # Every number says which protocol produced it.
    by_model = res.groupby("model")["protocol"].unique()
    assert list(by_model[RANKER]) == [
        "full catalogue: the stage's top 100 reranked, the rest below"
    ]
    assert list(by_model["popularity"]) == [
        "full catalogue: every eligible item ranked"
    ]
    assert {"fold 0", "fold 1", "CV mean", "hold-out"} == set(res["split"])
    hold = res[(res["split"] == "hold-out") & (res["metric"] == "ndcg@10")]
    h = hold.set_index("model")
    assert h.loc[RANKER, "value"] > h.loc["random (expected)", "user_high"]
    for b in FULL_MODELS[:-1]:
        assert h.loc[f"{RANKER} - {b}", "value"] == pytest.approx(
            h.loc[RANKER, "value"] - h.loc[b, "value"]
        )
    # The table and the file agree on the ranker's hold-out number.
    assert f"{h.loc[RANKER, 'value']:.3f}" in text
    assert (out / "ndcg_at_k_full.png").is_file()
    assert "headline: LGBMRanker (tuned) against " in text


def test_bad_protocol_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--protocol", "random-split"])
    assert exc.value.code == 2
    assert "invalid choice: 'random-split'" in _error_line(capsys)


def test_sampled_mode_skips_the_full_catalogue_beyond_its_budget(
    tmp_path, capsys, monkeypatch
):
    from skndcg.demo import _full

    monkeypatch.setattr(_full, "AFFORDABLE_PAIRS", 1000)
    out = tmp_path / "out"
    folder = _movielens_folder(tmp_path / "ml")
    argv = ["demo", "--quick", "--data", str(folder), "--out", str(out)]
    assert main([*argv, "--candidates", "uniform"]) == 0
    text = capsys.readouterr().out
    assert re.search(
        r"\[uniform, N=50\] full catalogue skipped: [\d,]+ \(query, item\) pairs "
        r"per model, more than 1,000 \(--candidates full ranks the catalogue\)",
        text,
    )
    assert "ndcg@10 full" not in text and "recall@10 full" not in text
    res = pd.read_csv(out / "results.csv")
    assert "full" not in set(res["estimate"])
    assert {"raw", "adjusted", "bv"} <= set(res["estimate"])
