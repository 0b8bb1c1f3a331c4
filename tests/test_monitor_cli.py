"""skndcg monitor: output equals metric_over_time, exit codes for alerting."""

import json

import numpy as np
import pandas as pd
import pytest

from skndcg.cli import main
from skndcg.evaluation import metric_over_time


def _log(drop_last):
    rng = np.random.default_rng(0)
    n = 3000
    qid = np.repeat(np.arange(n), 4)
    y = rng.integers(0, 2, qid.size)
    s = y + rng.normal(0, 1, qid.size)
    hour = np.arange(n) // 1000
    if drop_last:
        s = np.where(np.repeat(hour == 2, 4), rng.normal(size=qid.size), s)
    t = pd.Timestamp("2024-06-01 08:00") + pd.to_timedelta(hour[qid] * 60 + 7, "min")
    df = pd.DataFrame({"q": qid, "label": y, "score": s, "ts": t})
    return df.sample(frac=1.0, random_state=1)  # rows out of time order


@pytest.mark.parametrize("drop_last", [False, True])
def test_exit_code_and_json(tmp_path, capsys, drop_last):
    df = _log(drop_last)
    path = tmp_path / "log.csv"
    df.to_csv(path, index=False)
    argv = [
        "monitor", str(path), "--time", "ts", "--qid", "q", "--freq", "1h",
        "--metrics", "mrr", "ndcg@5", "--format", "json",
    ]  # fmt: skip
    code = main(argv)
    out, err = capsys.readouterr()
    want = metric_over_time(
        df["label"], df["score"], df["q"], df["ts"], freq="1h",
        metrics=["mrr", "ndcg@5"],
    )  # fmt: skip
    got = pd.DataFrame(json.loads(out))
    np.testing.assert_allclose(got["value"], want["value"])
    assert got["alert"].tolist() == want["alert"].tolist()
    assert code == (1 if drop_last else 0)
    assert want["alert"].any() == drop_last
    assert ("alert: mrr" in err) == drop_last


def test_parquet_table_and_alert_on_last(tmp_path, capsys):
    df = _log(True)
    # An extra clean hour after the drop: only an earlier window alerts.
    extra = (
        _log(False)
        .query("ts == ts.max()")
        .assign(q=lambda d: d.q + 10_000, ts=lambda d: d.ts + pd.Timedelta("1h"))
    )
    path = tmp_path / "log.parquet"
    pd.concat([df, extra]).to_parquet(path)
    base = ["monitor", str(path), "--time", "ts", "--qid", "q", "--freq", "1h"]
    assert main([*base, "--metrics", "mrr"]) == 1
    out = capsys.readouterr().out
    assert "window" in out and "2024-06-01 10:00:00" in out
    assert main([*base, "--metrics", "mrr", "--alert-on", "last"]) == 0


def test_usage_errors(tmp_path, capsys):
    path = tmp_path / "log.tsv"
    _log(False).to_csv(path, sep="\t", index=False)
    assert main(["monitor", str(path), "--time", "when", "--qid", "q"]) == 2
    assert "no column(s) ['when']" in capsys.readouterr().err
    assert main(["monitor", str(tmp_path / "nope.csv"), "--time", "ts"]) == 2
    assert "no such file" in capsys.readouterr().err
    code = main(["monitor", str(path), "--time", "ts", "--qid", "q", "--freq", "MS"])
    assert code == 2 and "not a fixed window" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["monitor", str(path), "--time", "ts", "--threshold", "2"])
    assert exc.value.code == 2


def test_baseline_flag_reaches_metric_over_time(tmp_path, capsys):
    # Two degraded hours in a row: the stable baseline flags both, the previous
    # window only the first.
    df = _log(True)
    more = df[df["ts"] == df["ts"].max()].assign(
        q=lambda d: d.q + 10_000, ts=lambda d: d.ts + pd.Timedelta("1h")
    )
    path = tmp_path / "log.csv"
    pd.concat([df, more]).to_csv(path, index=False)
    base = ["monitor", str(path), "--time", "ts", "--qid", "q", "--freq", "1h",
            "--metrics", "mrr", "--format", "json"]  # fmt: skip
    flags = {}
    for choice in ("trailing", "previous"):
        assert main([*base, "--baseline", choice]) == 1
        flags[choice] = pd.DataFrame(json.loads(capsys.readouterr().out))["alert"]
    assert flags["trailing"].tolist() == [False, False, True, True]
    assert flags["previous"].tolist() == [False, False, True, False]
    with pytest.raises(SystemExit):
        main([*base, "--baseline", "yesterday"])


def test_bad_rows_are_named_by_file_and_line(tmp_path, capsys):
    # A text score was reported as the first, numeric, one ('0.55' (str) at row
    # 0); a NaN as "every the scores value must be finite", with no line.
    df = _log(False).head(40).reset_index(drop=True)
    cases = {
        "text": (df.astype({"score": object}), "score", "high"),
        "nan": (df.copy(), "score", np.nan),
        "nolabel": (df.copy(), "label", np.nan),
    }
    want = {
        "text": "text.csv, line 7: score column 'score' holds 'high', which is not "
        "a number.",
        "nan": "nan.csv, line 7: score column 'score' is empty; every row needs one.",
        "nolabel": "nolabel.csv, line 7: label column 'label' is empty; every row "
        "needs one.",
    }
    for name, (frame, col, value) in cases.items():
        frame.loc[5, col] = value
        path = tmp_path / f"{name}.csv"
        frame.to_csv(path, index=False)
        assert main(["monitor", str(path), "--time", "ts", "--qid", "q"]) == 2
        assert want[name] in capsys.readouterr().err
    path = tmp_path / "empty.csv"
    df.head(0).to_csv(path, index=False)
    assert main(["monitor", str(path), "--time", "ts", "--qid", "q"]) == 2
    assert "empty.csv has a header but no rows." in capsys.readouterr().err


def test_unreadable_time_gives_no_advice_on_options_we_lack(tmp_path, capsys):
    # pandas' "passing `format='ISO8601'`" read as --format ISO8601, the
    # output format's flag.
    df = _log(False).head(40).reset_index(drop=True).astype({"ts": object})
    df.loc[5, "ts"] = "yesterday"
    path = tmp_path / "log.csv"
    df.to_csv(path, index=False)
    assert main(["monitor", str(path), "--time", "ts", "--qid", "q"]) == 2
    err = capsys.readouterr().err
    assert "time column 'ts' must hold datetimes" in err and '"yesterday"' in err
    assert "--format" not in err and "You might want" not in err


def _dated(tmp_path, times):
    rows = ["qid,label,score,ts"]
    for q, t in enumerate(times):
        rows += [f"{q},1,0.9,{t}", f"{q},0,0.1,{t}"]
    path = tmp_path / "log.csv"
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_day_month_dates_need_their_order(tmp_path, capsys):
    # 02/01/2024 ... 02/12/2024 were read month first: twelve days of February.
    path = _dated(tmp_path, [f"02/{m:02d}/2024" for m in range(1, 13)])
    base = ["monitor", path, "--time", "ts", "--freq", "1D", "--metrics", "mrr",
            "--empty-windows", "keep", "--format", "json"]  # fmt: skip
    assert main(base) == 2
    err = capsys.readouterr().err
    assert f"{path}: time column 'ts' holds dates whose day and month" in err
    assert "'02/01/2024'" in err and "--time-format" in err and "ISO 8601" in err
    assert main([*base, "--time-format", "%d/%m/%Y"]) == 0
    windows = pd.DataFrame(json.loads(capsys.readouterr().out))["window"]
    first, last = pd.to_datetime(windows).iloc[[0, -1]]
    assert (first, last) == (pd.Timestamp("2024-01-02"), pd.Timestamp("2024-12-02"))


def test_time_unit_with_strings_is_refused(tmp_path, capsys):
    path = _dated(tmp_path, ["2024-01-02", "2024-01-03"])
    argv = ["monitor", path, "--time", "ts", "--freq", "1D", "--time-unit", "s"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{path}: --time-unit s reads numbers, but time column 'ts' holds" in err
    assert "'2024-01-02'" in err


def test_a_missing_time_column_is_one_sentence_then_no_hint_on_other_flags(
    tmp_path, capsys
):
    path = _dated(tmp_path, ["2024-01-02", "2024-01-03"])
    assert main(["monitor", path, "--time", "when"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("no column(s) ['when']; the file has ['qid', 'label', "
                        "'score', 'ts'].")  # fmt: skip
    assert "Without" not in err


def test_stdin_is_refused_by_name(capsys):
    assert main(["monitor", "-", "--time", "ts"]) == 2
    err = capsys.readouterr().err
    assert "skndcg monitor does not read standard input ('-')" in err
    assert "no such file" not in err
