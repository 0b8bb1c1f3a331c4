"""``skndcg score`` on a small TREC run without the compiled kernels.

A run of a few megabytes is scored in less time than numba takes to load, so
for the common case (trec_eval's rules; the measures MAP, NDCG, NDCG@k, P@k,
R@k, reciprocal rank, the counts and the rest of trec_eval's ``official`` set:
gm_map, R-precision, bpref and iprec_at_recall) the command line reads the
two files and scores them with numpy alone. Everything is computed as the engine
computes it (the same discount table, each sum added in rank order, the means
with the same ``numpy.sum`` over the queries in the same order), so the output
is the same to the last bit; ``tests/test_cli_small.py`` checks that on random
runs against the compiled path.

The path is taken only when it is sure to agree. Anything it does not read
exactly as the full readers do (compressed files, comments, blank lines, CR
line ends, non-ASCII bytes, fields apart by more than one space or tab, scores
that are not finite numbers, duplicated documents, other field counts) and
every option it does not implement returns ``None``, and the full path runs:
it also gives every error message.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np

from ._summary import Summary

#: Runs larger than this go to the compiled path; SKNDCG_SMALL_BYTES sets
#: another limit (0 turns this path off).
SMALL_BYTES = 16 << 20

_MEASURE = re.compile(
    r"(map|gm_map|rprec|bpref|mrr|ndcg)|(ndcg|p|r)@([1-9][0-9]{0,6})"
    r"|(iprec)(?:\(recall=([0-9.]{1,12})\))?"
)
_COUNTS = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret")
_LABEL = re.compile(rb"(?:-?[0-9]{1,9}\n)*")


def _limit():
    text = os.environ.get("SKNDCG_SMALL_BYTES")
    if text is None:
        return SMALL_BYTES
    return int(text) if text.isdigit() else -1


def eligible(args, lines) -> bool:
    """Whether the command and its measures are ones this path computes."""
    if args.qrels is None or args.convention not in (None, "trec_eval"):
        return False
    if args.per_query is not None or args.ci or args.query_eval or args.strict:
        return False
    if args.judged_only or args.depth is not None or args.num_docs is not None:
        return False
    for ln in lines:
        if ln.gains:
            return False
        if ln.length is not None:
            continue  # relstring: printed per query only, which is not asked
        if ln.metric is None:
            if ln.trec_name not in _COUNTS:
                return False
        elif not _MEASURE.fullmatch(ln.metric):
            return False
    try:
        size = os.path.getsize(args.input)
    except OSError:
        return False
    return 0 < size < _limit()


def _fields(path, n_fields):
    """The columns (lists of bytes) of a plain text file with ``n_fields``
    fields on every line, separated by one space or tab, or None when the
    file is anything but plain."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if not data.endswith(b"\n") or not data.isascii() or b"\x00" in data:
        return None
    data = data.replace(b"\t", b" ")
    odd = (b"  ", b" \n", b"\n ", b"\n\n", b"\n#", b"\r", b"\x0b", b"\x0c")
    if data.startswith((b" ", b"#")) or any(o in data for o in odd):
        return None
    # Every line holds n_fields - 1 spaces.
    arr = np.frombuffer(data, dtype=np.uint8)
    spaces = np.cumsum(arr == 32)[np.flatnonzero(arr == 10)]
    if (np.diff(spaces, prepend=0) != n_fields - 1).any():
        return None
    tokens = data.split()
    return [tokens[i::n_fields] for i in range(n_fields)]


def _read(args):
    """``(run columns, qrels columns)``, or None."""
    run = _fields(args.input, 6)
    qrels = _fields(args.qrels, 4)
    if run is None or qrels is None:
        return None
    # Scores are read with float(), as the full reader reads every spelling
    # its own decimal parser leaves to Python.
    if not _LABEL.fullmatch(b"\n".join(qrels[3]) + b"\n"):
        return None
    return run, qrels


def _judgments(qrels):
    """``{query: {doc: label}}``, or None when a pair is judged twice."""
    judged: dict = {}
    for q, d, rel in zip(qrels[0], qrels[2], qrels[3], strict=True):
        judged.setdefault(q, {})[d] = int(rel)
    if sum(len(v) for v in judged.values()) != len(qrels[0]):
        return None
    return judged


def _queries(run, judged):
    """Per query of the run: its labels and documents in trec_eval's order
    (score descending, then docno descending; None for a query without
    judgments), or None on a duplicated document or a score that is not
    finite."""
    try:
        scores = np.array(list(map(float, run[4])))
    except ValueError:
        return None
    if not np.isfinite(scores).all():
        return None
    qids, docs = run[0], run[2]
    _, q_code = np.unique(np.array(qids), return_inverse=True)
    _, d_rank = np.unique(np.array(docs), return_inverse=True)
    pair = q_code.astype(np.int64) * (int(d_rank.max()) + 1) + d_rank
    if np.unique(pair).shape[0] != pair.shape[0]:
        return None  # a document listed twice for a query
    order = np.lexsort((-d_rank, -scores, q_code))
    bounds = np.flatnonzero(np.diff(q_code[order])) + 1
    out = {}
    for rows in np.split(order, bounds):
        q = qids[rows[0]]
        own = judged.get(q)
        if own is None:
            out[q] = None  # no judgments: trec_eval drops the query
            continue
        ranked = [docs[i] for i in rows.tolist()]
        labels = np.array([own.get(d, np.nan) for d in ranked], dtype=np.float64)
        out[q] = (labels, ranked)
    return out


def _parse(metric):
    """``(kind, k or the recall level)`` of a measure this path computes."""
    found = _MEASURE.fullmatch(metric)
    if found.group(4):
        return "iprec", float(found.group(5) or 0.0)
    k = None if found.group(3) is None else int(found.group(3))
    return found.group(1) or found.group(2), k


def _per_query(kind, param, labels, judged, level):
    """R-precision, bpref and interpolated precision of one query, as the
    engine's per-query kernels compute them (every sum in rank order).
    ``labels`` are the retrieved documents' judgments, NaN where the qrels
    have none; ``judged`` every judgment of the query."""
    n = labels.shape[0]
    n_rel = float((judged >= level).sum())
    rel = labels >= level
    if n == 0:
        return 0.0
    if kind == "iprec":
        # The best precision at or below the rank of the cut-th relevant
        # document (the first one for a cut of 0).
        hits = np.cumsum(rel)
        found = int(hits[-1])
        cut = math.floor(param * n_rel + 0.5)
        if cut > found:
            return 0.0
        if found == 0:
            return found / n
        best = np.maximum.accumulate((hits / np.arange(1.0, n + 1.0))[::-1])[::-1]
        return float(best[np.flatnonzero(rel)[max(cut, 1) - 1]])
    if n_rel == 0.0:
        return 0.0
    if kind == "rprec":
        r = int(n_rel)
        return int(rel[: min(r, n)].sum()) / r
    # bpref: documents nobody judged, or judged negative (in the pool, not
    # judged), are passed over; m bounds the judged non-relevant ones above.
    m = min(n_rel, float(((judged >= 0) & (judged < level)).sum()))
    shown = labels[labels >= 0]
    good = shown >= level
    if not good.any():
        return 0.0
    above = np.cumsum(~good)[good].astype(np.float64)
    if m > 0.0:
        terms = np.where(above > 0.0, 1.0 - np.minimum(above, m) / m, 1.0)
    else:
        terms = np.ones(above.shape)
    return float(np.cumsum(terms)[-1]) / n_rel


def _values(kind, k, labels, judged_labels, rel_level, disc):
    """One measure of one query, as the engine's kernels compute it."""
    mr = labels.shape[0]
    if kind == "ndcg":
        # The ideal order of the query's rows: its judged gains, best first
        # (its unjudged rows add gains of 0 at the end).
        kj = mr if k is None else min(k, mr)
        gains = np.maximum(labels, 0.0)
        ideal_gains = -np.sort(-np.maximum(judged_labels, 0.0))
        ki = ideal_gains.shape[0] if k is None else min(k, ideal_gains.shape[0])
        ideal = float(np.cumsum(ideal_gains[:ki] * disc[:ki])[-1]) if ki else 0.0
        dcg = float(np.cumsum(gains[:kj] * disc[:kj])[-1]) if kj else 0.0
        return dcg / ideal if ideal > 0.0 else 0.0
    n_rel = int((judged_labels >= rel_level).sum())
    rel = labels >= rel_level
    if mr == 0:
        return 0.0
    if kind == "p":
        return float(rel[: min(k, mr)].sum()) / k
    if kind == "r":
        return float(rel[: min(k, mr)].sum()) / n_rel if n_rel else 0.0
    if kind == "mrr":
        first = np.flatnonzero(rel)
        return 1.0 / (first[0] + 1.0) if first.size else 0.0
    if n_rel == 0:
        return 0.0
    pos = np.flatnonzero(rel)
    terms = (np.arange(pos.size) + 1.0) / (pos + 1.0)
    return float(np.cumsum(terms)[-1]) / n_rel if pos.size else 0.0


def score(args, lines):
    """``(means, table, summary, tag, num_rel)`` of the run, or None when the
    full path must score it (see the module)."""
    if not eligible(args, lines):
        return None
    files = _read(args)
    if files is None:
        return None
    run, qrels = files
    judged = _judgments(qrels)
    if judged is None:
        return None
    ranked = _queries(run, judged)
    if ranked is None or all(v is None for v in ranked.values()):
        return None
    level = 1 if args.rel_level is None else int(args.rel_level)
    names = sorted(set(judged) | set(ranked))
    # The queries that count: judged ones the run answers (all judged with -c).
    counted = [q for q in names if q in judged and (args.all_judged or ranked.get(q))]
    longest = max(len(judged[q]) + len(_docs(ranked, q)) for q in counted)
    disc = 1.0 / np.log2(np.arange(2, longest + 2, dtype=np.float64))
    metrics = [ln for ln in lines if ln.metric is not None]
    kinds = {}
    for ln in metrics:
        kind, param = _parse(ln.metric)
        # gm_map's per-query value is AP, added up as MAP's; its summary differs.
        kinds[ln.label] = ("map" if kind == "gm_map" else kind, param)
    table = {ln.label: np.empty(len(counted)) for ln in metrics}
    n_items, n_rel, n_ret, n_rel_ret = np.zeros((4, len(counted)), np.int64)
    unretrieved = 0
    for g, q in enumerate(counted):
        own = judged[q]
        judgments, docs = ranked.get(q) or (np.empty(0), [])
        labels = np.nan_to_num(judgments, nan=0.0)  # nobody judged: 0
        retrieved = set(docs)
        missed = [rel for d, rel in own.items() if d not in retrieved]
        all_labels = np.array([*labels.tolist(), *missed], dtype=np.float64)
        judged_labels = np.array(list(own.values()), dtype=np.float64)
        n_items[g] = all_labels.shape[0]
        n_rel[g] = int((judged_labels >= level).sum())
        n_ret[g] = labels.shape[0]
        n_rel_ret[g] = int((labels >= level).sum())
        for ln in metrics:
            kind, param = kinds[ln.label]
            if kind in ("rprec", "bpref", "iprec"):
                value = _per_query(kind, param, judgments, judged_labels, level)
            else:
                value = _values(kind, param, labels, judged_labels, level, disc)
            table[ln.label][g] = value
    for q in names:
        if q in judged:
            docs = set(_docs(ranked, q))
            unretrieved += sum(d not in docs for d in judged[q])
    means = {ln.label: _mean(ln.metric, table[ln.label]) for ln in metrics}
    table.update(
        qid=np.array([_text(q) for q in counted], dtype=object),
        n_items=n_items, n_relevant=n_rel, n_retrieved=n_ret,
        n_relevant_retrieved=n_rel_ret,
    )  # fmt: skip
    without = [q for q in names if q in judged and not ranked.get(q)]
    summary = Summary(
        queries_scored=len(counted),
        run_queries_unjudged=sum(v is None for v in ranked.values()),
        judged_queries_without_results=len(without),
        unretrieved_judged_rows=unretrieved,
        all_judged=bool(args.all_judged),
        trec_eval_stops_at=_text(without[0]) if without else "",
    )
    num_rel = None
    if args.all_judged:
        num_rel = sum(rel > 0 for own in judged.values() for rel in own.values())
    return means, table, summary, _text(run[5][-1]), num_rel


def _mean(metric, values):
    """The mean over queries as the engine adds it up, through the measure's
    own summary where it has one (gm_map's geometric mean)."""
    from ._trec import parse_metric

    agg = parse_metric(metric).definition.aggregate
    if agg is None:
        return float(np.sum(values) / float(values.shape[0]))
    terms = np.asarray(agg.term(values), dtype=np.float64)
    return float(agg.back(float(np.sum(terms) / float(values.shape[0]))))


def _docs(ranked, q):
    """The documents the run ranks for query ``q`` (none when it has none)."""
    found = ranked.get(q)
    return [] if found is None else found[1]


def try_score(args, lines):
    """:func:`score`, or None also when it fails: the full path then scores
    the files (and reports what is wrong with them)."""
    try:
        return score(args, lines)
    except (ArithmeticError, LookupError, TypeError, ValueError, MemoryError):
        return None


def _text(b):
    return b.decode("ascii")
