"""Bad input gets a clear error; good input of every kind is accepted, unmodified."""

import numpy as np
import pandas as pd
import pytest

from skndcg.metrics import (
    grouped_map_score,
    grouped_ndcg_score,
    grouped_precision_score,
    grouped_ranking_scores,
    ranking_report,
)

Y = np.array([3, 2, 0, 1, 0, 2])
S = np.array([0.5, 0.9, 0.1, 0.3, 0.3, 0.8])
Q = np.array([1, 1, 1, 2, 2, 2])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"y_score": S[:5]}, ValueError, "y_score has 5 rows but y_true has 6"),
        ({"qid": Q[:4]}, ValueError, "qid has 4 rows but y_true has 6"),
        (
            {"y_true": [3, np.nan, 0, 1, 0, 2]},
            ValueError,
            r"y_true contains 1 NaN.*row 1",
        ),
        (
            {"y_score": [0.5, 0.9, np.inf, 0.3, 0.3, 0.8]},
            ValueError,
            r"y_score contains 1 NaN or infinite.*row 2",
        ),
        ({"qid": [1, 1, None, 2, 2, 2]}, ValueError, r"qid has 1 missing.*row 2"),
        ({"qid": [1.0, 1.0, 1.0, np.nan, 2.0, 2.0]}, ValueError, "qid has 1 missing"),
        (
            {"y_true": [3, -1, 0, 1, 0, 2], "gain": "exponential"},
            ValueError,
            "negative labels.*gain='exponential'",
        ),
        (
            {"y_true": [3, 2000, 0, 1, 0, 2], "gain": "exponential"},
            ValueError,
            "overflows float64",
        ),
        ({"k": 0}, ValueError, "k must be >= 1, got 0"),
        ({"k": 2.5}, TypeError, r"k must be an int >= 1 or None, got 2.5"),
        ({"k": True}, TypeError, "k must be an int >= 1 or None, got True"),
        ({"k": []}, ValueError, "k is an empty sequence"),
        ({"k": [1, 0]}, ValueError, "k must be >= 1, got 0"),
        (
            {"discount": [1.0, 0.5]},
            ValueError,
            "discount has 2 weights but k needs at least 3",
        ),
        ({"discount": [1.0, -0.5, 0.2]}, ValueError, "finite and >= 0"),
        ({"discount": "log10"}, ValueError, "discount='log10' is not valid"),
        ({"discount": lambda r: np.ones(2)}, ValueError, "one weight per rank"),
        ({"gain": "square"}, ValueError, "gain='square' is not valid"),
        ({"ties": "random"}, ValueError, "ties='random' is not valid"),
        ({"empty": "nan"}, ValueError, "empty='nan' is not valid"),
        ({"convention": "spark"}, ValueError, "convention='spark' is not a known"),
        (
            {"convention": "lightgbm", "ties": "average"},
            ValueError,
            "ties='average' conflicts with convention='lightgbm'",
        ),
        (
            {"convention": "sklearn", "empty": "skip"},
            ValueError,
            "empty='skip' conflicts with convention='sklearn'",
        ),
        (
            {"convention": "xgboost", "empty": "skip"},
            ValueError,
            "empty='skip' is not available with convention='xgboost'",
        ),
        (
            {"convention": "sklearn", "y_true": [3, -2, 0, 1, 0, 2]},
            ValueError,
            "negative labels.*convention='sklearn'",
        ),
        (
            {"convention": "lightgbm", "y_true": [3, 31, 0, 1, 0, 2]},
            ValueError,
            r"integers in \[0, 30\]",
        ),
        (
            {"convention": "lightgbm", "y_true": [3, 1.5, 0, 1, 0, 2]},
            ValueError,
            "integer labels with convention='lightgbm'",
        ),
        ({"y_true": np.ones((6, 1))}, ValueError, "y_true must be 1-D"),
        ({"y_score": S.reshape(2, 3)}, ValueError, r"y_score must be 1-D.*\(2, 3\)"),
        ({"y_true": [], "y_score": [], "qid": []}, ValueError, "y_true is empty"),
        (
            {"y_true": ["a", "b", "c", "d", "e", "f"]},
            TypeError,
            "y_true must be numeric",
        ),
        (
            {"sample_weight": [1, 1, 2, 1, 1, 1]},
            ValueError,
            "sample_weight varies within query 1",
        ),
        ({"sample_weight": [1, 1, 1, -1, -1, -1]}, ValueError, "finite and >= 0"),
        (
            {"sample_weight": [1, 1, 1, np.nan, np.nan, np.nan]},
            ValueError,
            "sample_weight contains 3 NaN",
        ),
        ({"sample_weight": [1, 1]}, ValueError, "sample_weight has 2 rows"),
        ({"sample_weight": {1: 1.0}}, ValueError, "lacks a weight for query 2"),
        ({"sample_weight": [0, 0, 0, 0, 0, 0]}, ValueError, "sums to zero"),
    ],
)
def test_bad_input_raises_clear_error(kwargs, error, match):
    args = {"y_true": Y, "y_score": S, "qid": Q, "k": 3, **kwargs}
    with pytest.raises(error, match=match):
        grouped_ndcg_score(
            args.pop("y_true"), args.pop("y_score"), args.pop("qid"), **args
        )


def test_empty_error_names_the_query():
    with pytest.raises(ValueError, match="query 'b' has no relevant item"):
        grouped_ndcg_score([1, 0, 0], [1, 2, 3], ["a", "b", "b"], empty="error")


def test_unknown_metric_lists_valid_forms():
    with pytest.raises(ValueError, match=r"unknown metric 'ndgc@10'.*\"ndcg@10\""):
        grouped_ranking_scores(Y, S, Q, ["ndgc@10"])
    with pytest.raises(ValueError, match="duplicate"):
        grouped_ranking_scores(Y, S, Q, ["mrr", "mrr"])
    with pytest.raises(TypeError, match="metric names must be strings"):
        grouped_ranking_scores(Y, S, Q, [10])


def test_binary_options_are_checked():
    with pytest.raises(ValueError, match="denominator='all' is not valid for average"):
        grouped_map_score(Y, S, Q, denominator="all")
    with pytest.raises(ValueError, match="denominator='n' is not valid for precision"):
        grouped_precision_score(Y, S, Q, denominator="n")
    with pytest.raises(ValueError, match="rel_threshold must be a finite number"):
        grouped_map_score(Y, S, Q, rel_threshold=np.nan)


@pytest.mark.parametrize(
    "name",
    ["dcg", "hit_rate", "map", "mrr", "ndcg", "precision", "recall", "report"],
)
def test_the_all_skipped_warning_names_the_callers_line(name):
    # Each public function warns at the line that called it, not inside the
    # library; ranking_report warns for the metrics asked, not its extra columns.
    import inspect
    import warnings

    import skndcg.metrics as sm

    args = [0, 0, 0], [1, 2, 3], [1, 1, 2]
    call, kwargs = getattr(sm, f"grouped_{name}_score", None), {}
    if name == "report":
        call, kwargs = sm.ranking_report, dict(metrics="ndcg@3", return_means=True)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        call(*args, **kwargs)
    assert [(w.filename, w.lineno) for w in got] == [(__file__, line)]
    assert "every query was skipped" in str(got[0].message)


def test_all_queries_skipped_warns_and_returns_nan():
    from sklearn.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        assert np.isnan(grouped_ndcg_score([0, 0, 0], [1, 2, 3], [1, 1, 2]))
    # torchmetrics scores 0 in that case.
    assert (
        grouped_ndcg_score(
            [0, 0, 0], [1, 2, 3], [1, 1, 2], convention="torchmetrics", empty="skip"
        )
        == 0.0
    )


def test_inputs_are_never_modified():
    y = np.array([3.0, 2, 0, 1, 0, 2])
    s = np.array([0.5, 0.9, 0.1, 0.3, 0.3, 0.8], dtype=np.float32)
    q = np.array([2, 1, 2, 1, 2, 1])  # interleaved: takes the scatter path
    w = np.array([1.0, 2, 1, 2, 1, 2])
    copies = [a.copy() for a in (y, s, q, w)]
    for a in (y, s, q, w):
        a.flags.writeable = False  # any write attempt would raise
    grouped_ranking_scores(y, s, q, ["ndcg@2", "map", "mrr"], sample_weight=w)
    ranking_report(y, s, q, metrics=["ndcg@2", "p@1"], convention="trec_eval")
    grouped_ndcg_score(y, s, q, convention="ranx")
    for a, c in zip((y, s, q, w), copies, strict=True):
        np.testing.assert_array_equal(a, c)


def test_accepts_lists_pandas_polars_and_any_qid_dtype():
    want = grouped_ndcg_score(Y, S, Q, k=2)
    pl = pytest.importorskip("polars")
    tuple_ids = np.empty(6, dtype=object)
    tuple_ids[:] = [(1, "a")] * 3 + [(2, "b")] * 3
    inputs = [
        (list(Y), list(S), list(Q)),
        (pd.Series(Y), pd.Series(S), pd.Series(Q)),
        (pl.Series(Y), pl.Series(S), pl.Series(Q)),
        (Y.astype(bool), S, Q),
        (Y.astype(np.int8), S.astype(np.float32), Q.astype(np.uint16)),
        (Y, S, Q.astype(str)),
        (Y, S, pd.Series(Q).astype("category")),
        (Y, S, pd.Categorical(["u", "u", "u", "v", "v", "v"])),
        (Y, S, pd.to_datetime(Q, unit="D").to_numpy()),
        (Y, S, Q.astype(float)),
        (Y, S, tuple_ids),
        (Y, S, pl.Series(Q.astype(str)).cast(pl.Categorical)),
    ]
    for i, (y, s, q) in enumerate(inputs):
        y_ref = Y.astype(bool).astype(int) if i == 3 else Y
        expected = want if i != 3 else grouped_ndcg_score(y_ref, S, Q, k=2)
        assert grouped_ndcg_score(y, s, q, k=2) == pytest.approx(expected, abs=1e-7)


def test_mapping_weights_from_a_pandas_series():
    weights = pd.Series({1: 1.0, 2: 3.0})
    per_row = np.where(Q == 1, 1.0, 3.0)
    assert grouped_ndcg_score(Y, S, Q, sample_weight=weights) == grouped_ndcg_score(
        Y, S, Q, sample_weight=per_row
    )


def test_per_row_weights_in_a_pandas_series_are_refused():
    # A column of per-row weights would be read by its index (0..5) as query
    # ids 1 and 2, silently giving both queries the weights of rows 1 and 2.
    per_row = pd.Series(np.where(Q == 1, 1.0, 3.0))
    with pytest.raises(
        ValueError,
        match=r"sample_weight is a pandas Series with one entry per row "
        r"\(6 rows, 2 queries\).*sample_weight.to_numpy\(\)",
    ):
        grouped_ndcg_score(Y, S, Q, sample_weight=per_row)
    # The array of the same column is scored as per-row weights.
    expected = grouped_ndcg_score(Y, S, Q, sample_weight=per_row.to_numpy())
    assert grouped_ndcg_score(Y, S, Q, sample_weight={1: 1.0, 2: 3.0}) == expected


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        ({1: np.nan, 2: 1.0}, r"has a missing weight for query 1 \(got nan\)"),
        ({1: 1.0, 2: None}, r"has a missing weight for query 2 \(got None\)"),
        (pd.Series({1: 1.0, 2: np.nan}), "has a missing weight for query 2"),
        ({1: 1.0, 2: np.inf}, "must be finite and >= 0, got inf for query 2"),
    ],
)
def test_bad_mapping_weight_names_the_query(weights, match):
    with pytest.raises(ValueError, match=match):
        grouped_ndcg_score(Y, S, Q, sample_weight=weights)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_scores_found_in_every_float_width(dtype, bad):
    from skndcg.metrics import grouped_ndcg_score

    info = np.finfo(dtype)
    # Extremes that are finite must pass: the largest, the smallest subnormal.
    s = np.array([info.max, -info.max, info.smallest_subnormal, 0.0] * 2500, dtype)
    y = np.arange(s.size) % 3
    q = np.arange(s.size) // 10
    assert np.isfinite(grouped_ndcg_score(y, s, q))
    s[7_777] = bad
    with pytest.raises(ValueError, match=r"y_score contains 1 NaN .*first at row 7777"):
        grouped_ndcg_score(y, s, q)
    # A strided view is checked too (the test runs on a contiguous copy of it).
    with pytest.raises(ValueError, match=r"first at row 3888"):
        grouped_ndcg_score(y[1::2], s[1::2], q[1::2])


def test_nonfinite_scores_found_in_extended_precision():
    from skndcg.metrics import grouped_ndcg_score

    s = np.array([0.5, 0.25, 0.75, 0.1], dtype=np.longdouble)
    y, q = np.array([1, 0, 2, 0]), np.array([0, 0, 1, 1])
    assert np.isfinite(grouped_ndcg_score(y, s, q))
    s[2] = np.inf
    with pytest.raises(ValueError, match=r"y_score contains 1 NaN .*first at row 2"):
        grouped_ndcg_score(y, s, q)
