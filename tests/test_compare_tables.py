"""compare()'s Markdown and LaTeX tables show, per comparison, the paired
difference with its interval, the adjusted p-value (``< x`` at the floor of
the resamples), wins/ties/losses and the effect size d_z; JSON too; and
``skndcg compare`` below 10 queries speaks in its own words."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from skndcg.cli import main
from skndcg.evaluation import compare


def _reports(n=40, seed=0, shift=0.1):
    import pandas as pd

    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 1, n)
    qid = np.arange(n)
    return {
        "base": pd.DataFrame({"qid": qid, "m": base}),
        "new": pd.DataFrame({"qid": qid, "m": base + shift + rng.normal(0, 0.1, n)}),
        "same": pd.DataFrame({"qid": qid, "m": base + rng.normal(0, 0.1, n)}),
    }


def test_effect_size_is_cohens_dz():
    reports = _reports()
    cmp = compare(reports, baseline="base", n_resamples=200, random_state=0)
    rows = cmp.to_frame(pairs=True).set_index("model")
    for model in ("new", "same"):
        d = reports[model]["m"].to_numpy() - reports["base"]["m"].to_numpy()
        assert rows.loc[model, "effect_size"] == pytest.approx(
            d.mean() / d.std(ddof=1), rel=1e-12
        )
        # The paired t statistic is d_z * sqrt(n).
        t = stats.ttest_rel(reports[model]["m"], reports["base"]["m"]).statistic
        assert rows.loc[model, "effect_size"] * np.sqrt(d.size) == pytest.approx(t)
    # And the baseline's rows of to_frame() have none.
    frame = cmp.to_frame().set_index("model")
    assert np.isnan(frame.loc["base", "effect_size"])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=3, max_size=20), st.floats(-1, 1))
def test_effect_size_is_scale_free_and_odd(diffs, shift):
    import pandas as pd

    d = np.array(diffs) + shift
    qid = np.arange(d.size)
    a = pd.DataFrame({"qid": qid, "m": np.zeros(d.size)})
    b = pd.DataFrame({"qid": qid, "m": d})
    one = compare({"a": a, "b": b}, baseline="a", test="t", min_queries=0)
    big = compare({"a": a, "b": b.assign(m=3 * d)}, baseline="a", test="t",
                  min_queries=0)  # fmt: skip
    rev = compare({"a": a, "b": b}, baseline="b", test="t", min_queries=0)
    e1, e3, er = (c.to_frame(pairs=True)["effect_size"][0] for c in (one, big, rev))
    if d.std(ddof=1) > 1e-6 * max(1.0, np.abs(d).max()):
        assert e3 == pytest.approx(e1, rel=1e-6) and er == pytest.approx(-e1)
    elif np.ptp(d) == 0:
        assert np.isnan(e1)


def test_markdown_and_latex_show_every_pair():
    cmp = compare(_reports(), baseline="base", n_resamples=500, random_state=0)
    md, tex = cmp.to_markdown(), cmp.to_latex()
    head = "| comparison | metric | difference [95% CI] | p (holm) |"
    assert head + " wins/ties/losses | d_z |" in md
    assert "difference [95\\% CI] & p (holm) & wins/ties/losses & d\\_z" in tex
    for row in cmp.to_frame(pairs=True).itertuples():
        cell = f"{row.diff:+.3f} [{row.diff_low:+.3f}, {row.diff_high:+.3f}]"
        wtl = f"{row.wins}/{row.ties}/{row.losses}"
        assert f"| {row.model} vs base | m | {cell} |" in md
        assert f"| {wtl} | {row.effect_size:.2f} |" in md
        assert f"{row.model} vs base & m & {cell}" in tex
    assert "Cohen's d_z" in md and "Cohen's d\\_z" in tex


def test_p_at_the_resampling_floor_reads_as_below_it():
    reports = _reports(shift=0.5)  # "new" far above: no resample crosses 0
    cmp = compare(reports, baseline="base", n_resamples=199, random_state=0)
    rows = cmp.to_frame(pairs=True).set_index("model")
    floor = 2 / 200
    assert rows.loc["new", "p_value"] == pytest.approx(floor)
    md = cmp.to_markdown()
    shown = f"{rows.loc['new', 'p_adjusted']:.3f}"
    assert f"| < {shown} |" in md and f"| {shown} |" not in md
    assert "B = 199 resamples" in md
    assert "$<$ " + shown in cmp.to_latex()
    doc = json.loads(cmp.to_json())
    assert doc["p_floor"] == pytest.approx(floor)
    assert "d_z" in doc["effect_size"]
    assert {r["model"]: r["effect_size"] for r in doc["pair_rows"]}["new"] == (
        pytest.approx(rows.loc["new", "effect_size"])
    )
    # A p-value above the floor, and a test that does not resample: no "<".
    same = f"{rows.loc['same', 'p_adjusted']:.3f}"
    assert f"| < {same} |" not in md
    t = compare(reports, baseline="base", test="t")
    assert "| < " not in t.to_markdown() and json.loads(t.to_json())["p_floor"] is None


def _write_runs(tmp_path, n_queries):
    rng = np.random.default_rng(0)
    qrels, runs = [], {"a.run": [], "b.run": []}
    for q in range(n_queries):
        for d in range(6):
            qrels.append(f"q{q} 0 d{d} {int(rng.random() < 0.4)}")
            for name, lines in runs.items():
                lines.append(f"q{q} Q0 d{d} {d + 1} {rng.random():.4f} {name}")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    for name, lines in runs.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return [str(tmp_path / n) for n in runs], str(tmp_path / "qrels")


def test_cli_below_ten_queries_speaks_its_own_words(tmp_path):
    runs, qrels = _write_runs(tmp_path, 5)
    argv = [sys.executable, "-m", "skndcg", "compare", *runs, "--qrels", qrels,
            "-m", "map", "--n-resamples", "200"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    err = done.stderr
    assert err.startswith("skndcg compare: map: only 5 queries")
    assert "--min-queries 10" in err and "--min-queries 0" in err
    for leak in ("min_queries", "Warning", "sys.exit", ".py:", "warnings.warn"):
        assert leak not in err
    # The flag the advice names exists and does what it says.
    done = subprocess.run([*argv, "--min-queries", "0", "--format", "json"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0 and "only 5 queries" not in done.stderr
    rows = json.loads(done.stdout)["model_rows"]
    assert all(r["low"] is not None for r in rows)


def test_cli_min_queries_refuses_a_negative(capsys, tmp_path):
    runs, qrels = _write_runs(tmp_path, 3)
    with pytest.raises(SystemExit) as exc:
        main(["compare", *runs, "--qrels", qrels, "--min-queries", "-1"])
    assert exc.value.code == 2
    assert "--min-queries" in capsys.readouterr().err


def test_cli_loss_note_at_the_floor(tmp_path):
    runs, qrels = _write_runs(tmp_path, 5)
    argv = [sys.executable, "-m", "skndcg", "compare", *runs, "--qrels", qrels,
            "-m", "map", "--n-resamples", "200", "--min-queries", "0"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    # b.run is below a.run and no resample says otherwise: p below the floor.
    assert "significantly below a.run: b.run map" in done.stderr
    assert "(p<0.00995)" in done.stderr


def test_equal_differences_have_no_effect_size():
    # Three equal differences whose float mean is not exactly their value: the
    # standard deviation is a rounding residue, and d_z is undefined (NaN), not
    # a number near 1e16.
    d = np.full(3, 0.3836363512021296)
    qid = np.arange(3)
    a = pd.DataFrame({"qid": qid, "m": np.zeros(3)})
    b = pd.DataFrame({"qid": qid, "m": d})
    cmp = compare({"a": a, "b": b}, baseline="a", test="t", min_queries=0)
    assert np.isnan(cmp.to_frame(pairs=True)["effect_size"][0])
