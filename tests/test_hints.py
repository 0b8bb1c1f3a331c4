"""Error messages say what to do where they are printed."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, cross_val_score

from skndcg.cli import main
from skndcg.io import join_run_qrels, read_trec_qrels, read_trec_run
from skndcg.metrics import grouped_ndcg_score, make_ranking_scorer
from skndcg.ranker import QueryRanker


def test_dataframe_labels_must_be_1d():
    with pytest.raises(ValueError, match=r"y_true must be 1-D .*shape \(3, 1\)"):
        grouped_ndcg_score(pd.DataFrame({"y": [1, 0, 2]}), [0.1, 0.2, 0.3], [1, 1, 1])
    with pytest.raises(ValueError, match=r"y_score must be 1-D"):
        grouped_ndcg_score([1, 0, 2], pd.DataFrame({"s": [0.1, 0.2, 0.3]}), [1, 1, 1])


def test_joined_run_without_nan_score_suggests_unretrieved(tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\n")
    qrels.write_text("q1 0 d1 1\nq1 0 d9 2\n")
    joined = join_run_qrels(read_trec_run(run), read_trec_qrels(qrels))
    with pytest.raises(ValueError, match=r'pass nan_score="unretrieved"'):
        grouped_ndcg_score(joined.y_true, joined.y_score, joined.qid)
    score = grouped_ndcg_score(
        joined.y_true, joined.y_score, joined.qid, nan_score="unretrieved"
    )
    # d1 (gain 1) at rank 1; the ideal order puts d9 (gain 2) first.
    assert score == pytest.approx(1 / (2 + 1 / np.log2(3)))
    # Infinity is not what join_run_qrels produces: no such hint.
    with pytest.raises(ValueError) as info:
        grouped_ndcg_score([1, 0], [np.inf, 1.0], [1, 1])
    assert "nan_score" not in str(info.value)


def test_one_metric_list_scorer_in_cross_val_score_says_how():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(12), 5)
    X = pd.DataFrame({"qid": qid, "f": rng.random(qid.size)})
    y = rng.integers(0, 3, qid.size)
    scorer = make_ranking_scorer(["ndcg@10"])
    with pytest.raises(ValueError, match=r"make_ranking_scorer\('ndcg@10'\)"):
        cross_val_score(
            QueryRanker(Ridge()),
            X,
            y,
            groups=qid,
            cv=GroupKFold(3),
            scoring=scorer,
            error_score="raise",
        )
    # It is still a plain dict for everything else.
    out = scorer(QueryRanker(Ridge()).fit(X, y), X, y)
    assert isinstance(out, dict) and list(out) == ["ndcg@10"]
    assert repr(out) == repr(dict(out))
    assert isinstance(
        make_ranking_scorer("ndcg@10")(QueryRanker(Ridge()).fit(X, y), X, y), float
    )


def test_cli_negative_labels_hint_is_a_command_line_one(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("q,y,s\na,-1,0.9\na,1,0.5\n")
    cols = ["--qid", "q", "--label", "y", "--score", "s"]
    assert main(["score", str(path), *cols]) == 2
    err = capsys.readouterr().err
    assert "callable" not in err and "--convention trec_eval" in err
    assert main(["score", str(path), *cols, "--convention", "trec_eval"]) == 0
