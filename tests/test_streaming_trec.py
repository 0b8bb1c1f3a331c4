"""score_trec_run: a TREC run streamed query by query equals the in-memory scores."""

import gzip

import numpy as np
import pytest

from skndcg.io import join_run_qrels, read_trec_qrels, read_trec_run
from skndcg.metrics import grouped_ranking_scores
from skndcg.streaming import score_trec_run

METRICS = ["map", "ndcg", "ndcg@10", "p@5", "r@20", "mrr"]


def _files(tmp_path, seed=0, n_queries=25, sort=True):
    rng = np.random.default_rng(seed)
    run_lines, qrels_lines = [], []
    for q in rng.permutation(n_queries) if not sort else range(n_queries):
        docs = [f"d{j}" for j in rng.permutation(60)[: rng.integers(1, 40)]]
        scores = np.round(rng.random(len(docs)), 1)  # ties, broken by docno
        if rng.random() < 0.85:  # some judged queries are never answered
            for d, s in zip(docs, scores, strict=True):
                run_lines.append(f"q{q:03d} Q0 {d} 0 {s} tag")
        judged = rng.permutation(70)[: rng.integers(1, 30)]
        for j in judged:
            qrels_lines.append(f"q{q:03d} 0 d{j} {rng.integers(-1, 3)}")
    run_lines.append("q999 Q0 dx 0 1.0 tag")  # a query without judgments
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(run_lines) + "\n")
    qrels.write_text("\n".join(qrels_lines) + "\n")
    return run, qrels


def _in_memory(run, qrels, all_judged=False, depth=None, convention="trec_eval"):
    data = join_run_qrels(read_trec_run(run), read_trec_qrels(qrels), depth=depth)
    return grouped_ranking_scores(
        data.y_true, data.y_score, data.qid, METRICS, doc_id=data.doc_id,
        nan_score="unretrieved", queries="judged" if all_judged else "retrieved",
        convention=convention,
    )  # fmt: skip


@pytest.mark.parametrize("batch_lines", [1, 7, 1 << 20])
@pytest.mark.parametrize("all_judged", [False, True])
@pytest.mark.parametrize("depth", [None, 5])
def test_equals_the_in_memory_scores(tmp_path, batch_lines, all_judged, depth):
    run, qrels = _files(tmp_path)
    want = _in_memory(run, qrels, all_judged, depth)
    got = score_trec_run(
        run, qrels, METRICS, all_judged=all_judged, depth=depth,
        batch_lines=batch_lines,
    )  # fmt: skip
    assert list(got) == METRICS
    for name in METRICS:
        assert got[name] == pytest.approx(want[name], abs=1e-12), name


def test_other_conventions_and_gzip(tmp_path):
    run, qrels = _files(tmp_path, seed=3)
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    for convention in ["pytrec_eval", None]:
        want = _in_memory(run, qrels, convention=convention)
        got = score_trec_run(packed, qrels, METRICS, convention=convention)
        assert got == pytest.approx(want, abs=1e-12)


def test_agrees_with_pytrec_eval(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = _files(tmp_path, seed=5)
    judged, answered = {}, {}
    for line in qrels.read_text().split("\n")[:-1]:
        q, _, d, r = line.split()
        judged.setdefault(q, {})[d] = int(r)
    for line in run.read_text().split("\n")[:-1]:
        q, _, d, _, s, _ = line.split()
        answered.setdefault(q, {})[d] = float(s)
    per_query = pytrec_eval.RelevanceEvaluator(
        judged, {"map", "ndcg", "recip_rank"}
    ).evaluate(answered)
    got = score_trec_run(run, qrels, ["map", "ndcg", "mrr"], batch_lines=11)
    for measure, name in [("map", "map"), ("ndcg", "ndcg"), ("recip_rank", "mrr")]:
        want = np.mean([v[measure] for v in per_query.values()])
        assert got[name] == pytest.approx(want, abs=1e-12), name


def test_a_run_not_grouped_by_query_points_to_dask(tmp_path):
    run, qrels = _files(tmp_path, seed=1)
    lines = run.read_text().split("\n")[:-1]
    lines.append(lines[0])  # the first query comes back at the end
    lines[0] = lines[0].replace(" d", " dz")
    run.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        ValueError, match=r"run\.txt: rows are not grouped.*skndcg\.dask"
    ):
        score_trec_run(run, qrels, METRICS, batch_lines=10)


def test_bad_files_name_the_file_and_line(tmp_path):
    run, qrels = _files(tmp_path, seed=2)
    lines = run.read_text().split("\n")
    lines[3] = lines[3].rsplit(" ", 2)[0] + " high tag"
    run.write_text("\n".join(lines))
    with pytest.raises(ValueError, match=r"run\.txt, line 4: the score 'high'"):
        score_trec_run(run, qrels, METRICS)
    with pytest.raises(FileNotFoundError, match=r"missing\.txt' does not exist"):
        score_trec_run(tmp_path / "missing.txt", qrels, METRICS)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match=r"empty\.txt is empty"):
        score_trec_run(empty, qrels, METRICS)
    with pytest.raises(ValueError, match="batch_lines must be >= 1"):
        score_trec_run(run, qrels, METRICS, batch_lines=0)
    with pytest.raises(TypeError, match="'doc_id' is set by score_trec_run"):
        score_trec_run(run, qrels, METRICS, doc_id=[1])


UNJUDGED_METRICS = ["bpref", "infap", "unj@5", "nonrel_judged", "map"]


@pytest.mark.parametrize("batch_lines", [1, 1 << 20])
@pytest.mark.parametrize("depth", [None, 5])
def test_unjudged_documents_as_the_command_line_reads_them(
    tmp_path, capsys, batch_lines, depth
):
    # Documents nobody judged and negative judgments ("in the pool, not
    # judged") reach bpref, infAP and unj as in skndcg score.
    from skndcg.cli import main

    run, qrels = _files(tmp_path, seed=5)
    got = score_trec_run(run, qrels, UNJUDGED_METRICS, depth=depth,
                         batch_lines=batch_lines)  # fmt: skip
    data = join_run_qrels(read_trec_run(run), read_trec_qrels(qrels), depth=depth,
                          unjudged="pool")  # fmt: skip
    want = grouped_ranking_scores(
        data.y_true, data.y_score, data.qid, UNJUDGED_METRICS, doc_id=data.doc_id,
        nan_score="unretrieved", nan_label="unjudged", convention="trec_eval",
    )  # fmt: skip
    assert got == pytest.approx(want, abs=1e-12)
    argv = ["score", str(run), "--qrels", str(qrels), "--format", "csv",
            "--metrics", *UNJUDGED_METRICS]  # fmt: skip
    if depth is not None:
        argv += ["-M", str(depth)]
    assert main(argv) == 0
    rows = capsys.readouterr().out.strip().splitlines()[1:]
    shown = {r.split(",")[0]: float(r.split(",")[1]) for r in rows}
    assert shown == pytest.approx(got, abs=1e-12)
    # Read as judged not relevant, the unjudged documents give another bpref.
    zero = join_run_qrels(read_trec_run(run), read_trec_qrels(qrels), depth=depth)
    other = grouped_ranking_scores(
        zero.y_true, zero.y_score, zero.qid, ["bpref"], doc_id=zero.doc_id,
        nan_score="unretrieved", convention="trec_eval",
    )  # fmt: skip
    assert other["bpref"] != pytest.approx(got["bpref"])
