"""Every measure skndcg shares with trec_eval, against pytrec_eval-terrier (trec_eval
9.0.8's code) and ir_measures, on random runs with score ties (some only in
float32), unjudged and unretrieved documents, graded judgments from -2 to 4,
judged queries with nothing relevant, and relevance levels 1 and 2.

pytrec_eval compares scores in float32 and computes iprec_at_recall's cut-off as
9.0.8 did; ``convention="pytrec_eval"`` follows the first, and the iprec levels
where 9.0.8's and 10.0's cut-offs differ are left out (test_trec_measures.py
checks 10.0's rule by hand).
"""

import math

import numpy as np
import pandas as pd
import pytest

from skndcg.cli import main
from skndcg.io import join_run_qrels
from skndcg.metrics import grouped_ranking_scores, ranking_report
from skndcg.metrics._catalogue._trec_names import translate

pytestmark = pytest.mark.peers
pytrec_eval = pytest.importorskip("pytrec_eval")

SHARED = (
    "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    "recall", "ndcg", "ndcg_cut", "map_cut", "success", "gm_bpref", "set_P",
    "set_recall", "set_map", "set_relative_P", "set_F", "Rprec_mult", "11pt_avg",
    "relative_P", "num_nonrel_judged_ret", "binG", "utility", "G",
    "ndcg_rel", "Rndcg", "infAP",
)  # fmt: skip
COUNTS = ("num_ret", "num_rel", "num_rel_ret")


def collection(seed, n_queries=14):
    """(qrels, run) dicts as pytrec_eval takes them."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q:02d}"
        pool = [f"d{i}" for i in rng.permutation(60)[:30]]
        judged = pool[: int(rng.integers(3, 25))]
        labels = rng.integers(-2, 5, len(judged))
        if q == 0:
            labels = np.minimum(labels, 0)  # judged, nothing relevant
        qrels[qid] = {d: int(v) for d, v in zip(judged, labels, strict=True)}
        retrieved = list(rng.permutation(pool)[: int(rng.integers(1, 25))])
        retrieved += [f"u{q}x{i}" for i in range(int(rng.integers(0, 4)))]
        scores = rng.integers(0, 6, len(retrieved)) / 2.0  # ties
        if len(retrieved) > 2:
            # Distinct in float64, tied in float32.
            scores[1], scores[2] = 7.0 + 1e-9, 7.0
        run[qid] = {d: float(v) for d, v in zip(retrieved, scores, strict=True)}
    return qrels, run


def frames(qrels, run):
    run_df = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        columns=["qid", "doc_id", "score"],
    )
    qrels_df = pd.DataFrame(
        [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
        columns=["qid", "doc_id", "relevance"],
    )
    return run_df, qrels_df


def iprec_cut_agrees(level, n_rel):
    """Whether 10.0's lround and 9.0.8's int(x + 0.9) give the same cut-off."""
    x = level * n_rel
    return math.floor(x + 0.5) == int(x + 0.9) or (
        min(math.floor(x + 0.5), int(x + 0.9)) == 0
        and max(math.floor(x + 0.5), int(x + 0.9)) == 1
    )


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("level", [1, 2])
def test_every_shared_measure_per_query(seed, level):
    qrels, run = collection(seed)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(SHARED), relevance_level=level
    )
    theirs = evaluator.evaluate(run)
    # "pool": negative judgments stay "in the pool, not judged" (infAP).
    data = join_run_qrels(*frames(qrels, run), unjudged="pool")
    names = sorted(next(iter(theirs.values())))
    metrics = [translate(n) for n in names]
    report = ranking_report(
        data.y_true, data.y_score, data.qid, metrics=metrics,
        convention="pytrec_eval", rel_threshold=level, doc_id=data.doc_id,
        nan_score="unretrieved", nan_label="unjudged",
    )  # fmt: skip
    report = report.set_index("qid")
    checked = 0
    for qid, values in theirs.items():
        n_rel = sum(1 for v in qrels[qid].values() if v >= level)
        for name, metric in zip(names, metrics, strict=True):
            got = report.loc[qid, metric]
            want = values[name]
            if name in ("gm_map", "gm_bpref"):
                got = math.log(max(got, 1e-5))  # pytrec_eval's per-query value
            level_of = float(name.rpartition("_")[2]) if "iprec" in name else 0.0
            if "iprec" in name and not iprec_cut_agrees(level_of, n_rel):
                continue
            if name == "11pt_avg" and not all(
                iprec_cut_agrees(j / 10, n_rel) for j in range(11)
            ):
                continue
            assert got == pytest.approx(want, abs=1e-12), (qid, name)
            checked += 1
    assert checked > 0.9 * len(theirs) * len(names)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("level", [1, 2])
def test_summaries_and_gm_map(seed, level):
    qrels, run = collection(seed)
    measures = {"map", "gm_map", "gm_bpref", "ndcg_cut_10", "P_5", "bpref", "set_F"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level)
    theirs = evaluator.evaluate(run)
    # "pool": negative judgments stay "in the pool, not judged" (infAP).
    data = join_run_qrels(*frames(qrels, run), unjudged="pool")
    for name in sorted(measures):
        values = [v[name] for v in theirs.values()]
        want = pytrec_eval.compute_aggregated_measure(name, values)
        metric = translate(name) or name
        got = grouped_ranking_scores(
            data.y_true, data.y_score, data.qid, [metric],
            convention="pytrec_eval", rel_threshold=level, doc_id=data.doc_id,
            nan_score="unretrieved", nan_label="unjudged",
        )[metric]  # fmt: skip
        assert got == pytest.approx(want, abs=1e-12), name


def write(tmp_path, qrels, run):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(
        "".join(
            f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()
        )
    )
    lines = []
    for q, docs in run.items():
        for rank, (d, s) in enumerate(docs.items()):
            lines.append(f"{q} Q0 {d} {rank} {s!r} tagA\n")
    run_path.write_text("".join(lines))
    return str(run_path), str(qrels_path)


def parse(out):
    return {
        (row[0].strip(), row[1]): row[2]
        for row in (line.split("\t") for line in out.splitlines())
    }


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(
    "flags, level, judged_only",
    [([], 1, False), (["-l", "2"], 2, False), (["-J"], 1, True),
     (["-J", "-l", "2"], 2, True)],
)  # fmt: skip
def test_command_line_lines_against_pytrec_eval(
    tmp_path, capsys, seed, flags, level, judged_only
):
    qrels, run = collection(seed)
    run_path, qrels_path = write(tmp_path, qrels, run)
    wanted = ("num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref",
              "recip_rank", "P", "ndcg", "ndcg_cut", "success", "infAP")  # fmt: skip
    argv = ["score", run_path, "--qrels", qrels_path, "--format", "trec", "-q",
            "--convention", "pytrec_eval", *flags]  # fmt: skip
    for m in wanted:
        argv += ["-m", m]
    assert main(argv) == 0
    ours = parse(capsys.readouterr().out)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(wanted), relevance_level=level, judged_docs_only_flag=judged_only
    )
    theirs = evaluator.evaluate(run)
    for qid, values in theirs.items():
        for name, value in values.items():
            text = ours[(name, qid)]
            if name in COUNTS:
                assert text == str(int(value)), (qid, name)
            else:
                assert float(text) == pytest.approx(value, abs=5.1e-5), (qid, name)
    for name in COUNTS:
        total = sum(int(v[name]) for v in theirs.values())
        assert ours[(name, "all")] == str(total)
    assert ours[("map", "all")] == (
        f"{np.mean([v['map'] for v in theirs.values()]):6.4f}"
    )


def test_float32_only_ties_follow_trec_eval_10():
    """trec_eval 10.0 reads scores as double: "a" at 7.0 + 1e-9 ranks above "b"
    at 7.0; pytrec_eval (float32) sees a tie and puts the larger docno first."""
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 7.0 + 1e-9, "b": 7.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    data = join_run_qrels(*frames(qrels, run))
    kw = dict(doc_id=data.doc_id, nan_score="unretrieved")
    as_9 = grouped_ranking_scores(data.y_true, data.y_score, data.qid, ["mrr"],
                                  convention="pytrec_eval", **kw)  # fmt: skip
    as_10 = grouped_ranking_scores(data.y_true, data.y_score, data.qid, ["mrr"],
                                   convention="trec_eval", **kw)  # fmt: skip
    assert as_9["mrr"] == theirs["q"]["recip_rank"] == 0.5  # tie: "b" first
    assert as_10["mrr"] == 1.0


IR_MEASURES = [
    ("nDCG@10", {}),
    ("nDCG", {}),
    ("P@5", {}),
    ("P(rel=2)@5", {"rel_threshold": 2}),
    ("AP", {}),
    ("RR", {}),
    ("R@100", {}),
    ("Rprec", {}),
    ("Bpref", {}),
    ("Judged@10", {}),
    ("IPrec@0.5", {}),
    ("Success@5", {}),
    ("SetP", {}),
    ("SetR", {}),
    ("SetF", {}),
    ("SetAP", {}),
]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("name, options", IR_MEASURES, ids=[n for n, _ in IR_MEASURES])
def test_ir_measures_names(seed, name, options):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection(seed)
    if name.startswith("Judged"):
        # ir_measures counts a negative judgment as judged, trec_eval (and
        # join_run_qrels) as "in the pool, not judged": no negatives here; and
        # distinct scores, since its tie order is its own.
        qrels = {q: {d: max(v, 0) for d, v in ds.items()} for q, ds in qrels.items()}
        run = {q: {d: float(-i) for i, d in enumerate(ds)} for q, ds in run.items()}
    measure = ir_measures.parse_measure(name)
    want = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    data = join_run_qrels(*frames(qrels, run), unjudged="nan")
    ours = name.replace("(rel=2)", "")
    got = grouped_ranking_scores(
        data.y_true, data.y_score, data.qid, [ours], convention="pytrec_eval",
        doc_id=data.doc_id, nan_score="unretrieved", nan_label="unjudged",
        **options,
    )[ours]  # fmt: skip
    assert got == pytest.approx(want, abs=1e-12)
