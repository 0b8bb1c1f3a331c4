"""Scoring TREC files end to end, against trec_eval's numbers.

The expected values are worked out by hand below (trec_eval 10.0 semantics:
gains are the judgment values, log2 discount, relevant means judgment >= 1,
ties broken by docno in descending strcmp order) and checked once more against
pytrec_eval, which runs trec_eval's own code.
"""

import math
import random

import numpy as np
import pytest

from skndcg.io import join_run_qrels, read_trec_qrels, read_trec_run
from skndcg.metrics import grouped_ranking_scores, ranking_report

QRELS = """\
q1 0 d1 1
q1 0 d2 2
q1 0 d3 0
q1 0 d9 1
q2 0 d5 1
q3 0 d7 1
q3 0 d8 1
"""
# q1: dX and d1 tie at 2.0; docno descending puts dX ('X' > '1') first.
# q3: d8 and d6 tie at 1.0; d8 first.  q4 is judged nowhere: ignored.
RUN_LINES = [
    "q1 Q0 d3 1 3.0 r",
    "q1 Q0 d1 2 2.0 r",
    "q1 Q0 dX 3 2.0 r",
    "q1 Q0 d2 4 1.0 r",
    "q3 Q0 d6 1 1.0 r",
    "q3 Q0 d8 2 1.0 r",
    "q3 Q0 d7 3 0.5 r",
    "q4 Q0 d1 1 9.0 r",
]
L2, L3, L4, L5 = (math.log2(i) for i in (2, 3, 4, 5))
# q1 ranking: d3 (0), dX (unjudged, 0), d1 (1), d2 (2); relevant: d1, d2, d9.
Q1 = {
    "map": (1 / 3 + 2 / 4) / 3,
    "ndcg": (1 / L4 + 2 / L5) / (2 / L2 + 1 / L3 + 1 / L4),
    "p@10": 2 / 10,
    "r@100": 2 / 3,
    "mrr": 1 / 3,
}
# q3 ranking: d8 (1), d6 (unjudged), d7 (1); relevant: d7, d8.
Q3 = {
    "map": (1 / 1 + 2 / 3) / 2,
    "ndcg": (1 / L2 + 1 / L4) / (1 / L2 + 1 / L3),
    "p@10": 2 / 10,
    "r@100": 1.0,
    "mrr": 1.0,
}
METRICS = list(Q1)
# -M 2: q1 keeps d3, dX (nothing relevant); q3 keeps d8, d6.
Q1_M2 = dict.fromkeys(METRICS, 0.0)
Q3_M2 = {
    "map": 1 / 2,
    "ndcg": 1 / (1 / L2 + 1 / L3),
    "p@10": 0.1,
    "r@100": 0.5,
    "mrr": 1.0,
}


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    run = tmp_path / "run.txt"
    run.write_text("\n".join(RUN_LINES) + "\n")
    return run, qrels


def _scores(run, qrels, *, depth=None, queries=None, convention="trec_eval"):
    data = join_run_qrels(read_trec_run(run), read_trec_qrels(qrels), depth=depth)
    options = {"queries": queries} if queries else {}
    return grouped_ranking_scores(
        data.y_true,
        data.y_score,
        data.qid,
        metrics=METRICS,
        doc_id=data.doc_id,
        nan_score="unretrieved",
        convention=convention,
        **options,
    )


def _approx(got, expected):
    assert got == pytest.approx(expected, abs=1e-12), (got, expected)


def test_default_covers_judged_and_retrieved_queries(files):
    expected = {m: (Q1[m] + Q3[m]) / 2 for m in METRICS}
    _approx(_scores(*files), expected)


def test_all_judged_counts_the_query_with_no_results_as_zero(files):
    expected = {m: (Q1[m] + Q3[m] + 0.0) / 3 for m in METRICS}
    _approx(_scores(*files, queries="judged"), expected)


def test_depth_cut_after_ordering_by_score_then_docno(files):
    expected = {m: (Q1_M2[m] + Q3_M2[m]) / 2 for m in METRICS}
    _approx(_scores(*files, depth=2), expected)


@pytest.mark.parametrize("seed", range(5))
def test_any_line_order_gives_the_same_numbers(files, tmp_path, seed):
    lines = RUN_LINES[:]
    random.Random(seed).shuffle(lines)
    shuffled = tmp_path / f"run{seed}.txt"
    shuffled.write_text("\n".join(lines) + "\n")
    expected = {m: (Q1[m] + Q3[m]) / 2 for m in METRICS}
    _approx(_scores(shuffled, files[1]), expected)


def test_report_counts_retrieved_and_relevant_retrieved(files):
    data = join_run_qrels(read_trec_run(files[0]), read_trec_qrels(files[1]))
    report = ranking_report(
        data.y_true,
        data.y_score,
        data.qid,
        metrics=["map"],
        doc_id=data.doc_id,
        nan_score="unretrieved",
        queries="judged",
        convention="trec_eval",
    ).set_index("qid")
    assert report.loc["q1", "n_retrieved"] == 4
    assert report.loc["q1", "n_relevant_retrieved"] == 2
    assert report.loc["q1", "n_relevant"] == 3
    assert report.loc["q2", "n_retrieved"] == 0
    assert report.loc["q2", "map"] == 0.0


def test_hand_values_agree_with_pytrec_eval(files):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {}, {}
    for line in QRELS.splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    for line in RUN_LINES:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    names = {
        "map": "map",
        "ndcg": "ndcg",
        "p@10": "P_10",
        "r@100": "recall_100",
        "mrr": "recip_rank",
    }
    got = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
    assert sorted(got) == ["q1", "q3"]
    for m, name in names.items():
        assert got["q1"][name] == pytest.approx(Q1[m], abs=1e-12)
        assert got["q3"][name] == pytest.approx(Q3[m], abs=1e-12)


# ------------------------------------------------------------------ random runs

PEER_NAMES = {
    "map": "map",
    "ndcg": "ndcg",
    "ndcg@10": "ndcg_cut_10",
    "p@5": "P_5",
    "r@20": "recall_20",
    "mrr": "recip_rank",
}


def _random_case(rng, tmp_path):
    """Random run and graded qrels with relevant documents the run misses.

    Scores are multiples of 1/8 drawn from a small range: exact in float32 and
    in double alike, so the two precisions agree, and often tied, so the docno
    order matters.
    """
    qrels_lines, run_lines, qrels, run = [], [], {}, {}
    for q in range(12):
        qid = f"t{q}"
        docs = [f"doc{rng.integers(0, 60):02d}{c}" for c in "abcdefghijklmnopqrstu"]
        docs = list(dict.fromkeys(docs))
        judged = rng.choice(len(docs), size=min(len(docs), 10), replace=False)
        for i in judged:
            rel = int(rng.choice([-1, 0, 0, 1, 2, 3]))
            qrels.setdefault(qid, {})[docs[i]] = rel
            qrels_lines.append(f"{qid} 0 {docs[i]} {rel}")
        if q % 5 == 4:
            continue  # judged, no results
        retrieved = rng.choice(
            len(docs), size=rng.integers(1, len(docs)), replace=False
        )
        for i in retrieved:
            score = float(rng.integers(-8, 8)) / 8
            run.setdefault(qid, {})[docs[i]] = score
            run_lines.append(f"{qid} Q0 {docs[i]} 0 {score!r} r")
    run_lines.append("extra Q0 docx 0 1.0 r")  # judged nowhere
    run.setdefault("extra", {})["docx"] = 1.0
    rng.shuffle(run_lines)
    (tmp_path / "q.txt").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(run_lines) + "\n")
    return tmp_path / "r.txt", tmp_path / "q.txt", run, qrels


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval"])
def test_random_runs_agree_with_pytrec_eval(tmp_path, seed, convention):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    run_path, qrels_path, run, qrels = _random_case(rng, tmp_path)
    peer = pytrec_eval.RelevanceEvaluator(qrels, set(PEER_NAMES.values()))
    per_query = peer.evaluate(run)
    data = join_run_qrels(read_trec_run(run_path), read_trec_qrels(qrels_path))
    metrics = list(PEER_NAMES)
    report = ranking_report(
        data.y_true,
        data.y_score,
        data.qid,
        metrics=metrics,
        doc_id=data.doc_id,
        nan_score="unretrieved",
        queries="judged",
        convention=convention,
    ).set_index("qid")
    for qid in qrels:
        for m, name in PEER_NAMES.items():
            expected = per_query[qid][name] if qid in per_query else 0.0
            assert report.loc[qid, m] == pytest.approx(expected, abs=1e-12), (qid, m)
    for queries, covered in (("retrieved", list(per_query)), ("judged", list(qrels))):
        means = grouped_ranking_scores(
            data.y_true,
            data.y_score,
            data.qid,
            metrics=metrics,
            doc_id=data.doc_id,
            nan_score="unretrieved",
            queries=queries,
            convention=convention,
        )
        for m, name in PEER_NAMES.items():
            values = [per_query.get(q, {}).get(name, 0.0) for q in covered]
            assert means[m] == pytest.approx(np.mean(values), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_random_case_has_what_the_agreement_test_needs(tmp_path, seed):
    # The engine-free half of the agreement test: the join carries every judged
    # document the run missed (relevant ones among them), and ties.
    run_path, qrels_path, run, qrels = _random_case(
        np.random.default_rng(seed), tmp_path
    )
    data = join_run_qrels(read_trec_run(run_path), read_trec_qrels(qrels_path))
    missed = {(q, d) for q in qrels for d in qrels[q] if d not in run.get(q, {})}
    frame = data.to_frame()
    nan_rows = frame[frame["y_score"].isna()]
    assert set(zip(nan_rows["qid"], nan_rows["doc_id"], strict=True)) == missed
    assert (nan_rows["y_true"] > 0).any()
    assert "extra" not in set(frame["qid"])
    retrieved = frame[frame["y_score"].notna()]
    assert retrieved.duplicated(["qid", "y_score"]).any()
    for q, d, y in zip(
        retrieved["qid"], retrieved["doc_id"], retrieved["y_true"], strict=True
    ):
        assert y == max(qrels[q].get(d, 0), 0)


def _brute(data):
    """trec_eval's measures from joined rows, written out plainly per query."""
    frame = data.to_frame()
    out = {}
    for qid, rows in frame.groupby("qid"):
        ret = rows[rows["y_score"].notna()]
        ranked = sorted(
            zip(ret["y_score"], ret["doc_id"], ret["y_true"], strict=True),
            reverse=True,
        )
        gains = [int(g) for _, _, g in ranked]
        n_rel = int((rows["y_true"] >= 1).sum())
        ideal = sorted(rows["y_true"].astype(int), reverse=True)

        def dcg(g, k=None):
            g = g[:k] if k else g
            return sum(x / math.log2(i + 2) for i, x in enumerate(g))

        hits = [i for i, g in enumerate(gains) if g >= 1]
        idcg, idcg10 = dcg(ideal), dcg(ideal, 10)
        out[qid] = {
            "map": sum((j + 1) / (i + 1) for j, i in enumerate(hits)) / n_rel
            if n_rel
            else 0.0,
            "ndcg": dcg(gains) / idcg if idcg else 0.0,
            "ndcg@10": dcg(gains, 10) / idcg10 if idcg10 else 0.0,
            "p@5": sum(g >= 1 for g in gains[:5]) / 5,
            "r@20": sum(g >= 1 for g in gains[:20]) / n_rel if n_rel else 0.0,
            "mrr": 1 / (hits[0] + 1) if hits else 0.0,
        }
    return out


@pytest.mark.parametrize("depth", [None, 3])
@pytest.mark.parametrize("seed", range(6))
def test_joined_rows_hold_what_pytrec_eval_scores(tmp_path, seed, depth):
    # Engine-free: a plain per-query computation on the joined rows gives
    # pytrec_eval's values, so the join keeps every judged document, labels and
    # cuts like trec_eval (the depth cut is applied to pytrec_eval's input by
    # hand: best scores first, ties by docno descending).
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run_path, qrels_path, run, qrels = _random_case(
        np.random.default_rng(seed), tmp_path
    )
    if depth is not None:
        best = {
            q: sorted(docs.items(), key=lambda ds: (ds[1], ds[0]), reverse=True)
            for q, docs in run.items()
        }
        run = {q: dict(pairs[:depth]) for q, pairs in best.items()}
    peer = pytrec_eval.RelevanceEvaluator(qrels, set(PEER_NAMES.values()))
    per_query = peer.evaluate(run)
    data = join_run_qrels(
        read_trec_run(run_path), read_trec_qrels(qrels_path), depth=depth
    )
    mine = _brute(data)
    assert set(mine) == set(qrels)
    for qid in qrels:
        for m, name in PEER_NAMES.items():
            expected = per_query[qid][name] if qid in per_query else 0.0
            assert mine[qid][m] == pytest.approx(expected, abs=1e-12), (qid, m)


def test_float32_ties_follow_the_precision_of_the_convention(tmp_path):
    # dA outscores dB as doubles; as float32 they tie and docno order (dB > dA)
    # puts dB first. trec_eval 10.0 reads doubles, pytrec_eval float32.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {"q": {"dA": 0.1000000002, "dB": 0.1000000001}}
    qrels = {"q": {"dA": 1}}
    peer = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert peer["q"]["map"] == 0.5  # dB first: float32 tie broken by docno
    (tmp_path / "r.txt").write_text(
        "q Q0 dA 1 0.1000000002 r\nq Q0 dB 2 0.1000000001 r\n"
    )
    (tmp_path / "q.txt").write_text("q 0 dA 1\n")
    data = join_run_qrels(
        read_trec_run(tmp_path / "r.txt"), read_trec_qrels(tmp_path / "q.txt")
    )
    from skndcg.io._join import join_codes

    coded = join_codes(
        read_trec_run(tmp_path / "r.txt"), read_trec_qrels(tmp_path / "q.txt")
    )
    keys = dict(zip(data.doc_id, coded.doc_order, strict=True))
    assert keys["dB"] > keys["dA"]  # docno order kept for the float32 tie
    assert data.y_score[0] > data.y_score[1]  # and the doubles kept apart


@pytest.mark.parametrize(
    ("convention", "expected"), [("trec_eval", 1.0), ("pytrec_eval", 0.5)]
)
def test_float32_ties_in_the_presets(tmp_path, convention, expected):
    (tmp_path / "r.txt").write_text(
        "q Q0 dA 1 0.1000000002 r\nq Q0 dB 2 0.1000000001 r\n"
    )
    (tmp_path / "q.txt").write_text("q 0 dA 1\n")
    data = join_run_qrels(
        read_trec_run(tmp_path / "r.txt"), read_trec_qrels(tmp_path / "q.txt")
    )
    got = grouped_ranking_scores(
        data.y_true,
        data.y_score,
        data.qid,
        metrics=["map"],
        doc_id=data.doc_id,
        nan_score="unretrieved",
        convention=convention,
    )
    assert got["map"] == expected
