"""trec_eval's options and output for ``skndcg score``: its flags' letters, and
its lines, names, order and number formats for ``--format trec``."""

import argparse

import numpy as np

from ..utils._number_text import number_text
from ._errors import integer


def parse_metric(name):
    """The registry's reading of a metric name (imported when first needed:
    ``skndcg --version`` and ``--help`` load no kernels)."""
    from ..metrics.registry import parse

    return parse(name)


def _rel_level(text):
    try:
        value = int(number_text(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer relevance level >= 1, got {text!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"the relevance level must be >= 1, got {text!r}: a retrieved document "
            "nobody judged reads as 0, so a level below 1 would call it relevant"
        )
    return value


def with_num_docs(lines_, n_docs):
    """``lines_`` with ``n_docs`` given to every utility line (trec_eval -N)."""
    for ln in lines_:
        spec = None if ln.metric is None else parse_metric(ln.metric)
        if spec is not None and spec.measure == "utility":
            params = {**dict(spec.params), "n_docs": float(n_docs)}
            given = ", ".join(f"{k}={v:g}" for k, v in params.items())
            ln.metric = ln.label = f"utility({given})"
    return lines_


def check_num_docs(n_docs, report, names_of):
    """-N must cover every query's judged and retrieved documents."""
    sizes = np.asarray(report["n_items"])
    if sizes.size and n_docs < sizes.max():
        g = int(sizes.argmax())
        raise ValueError(
            f"-N {n_docs} is fewer documents than query {names_of(g)!r} alone "
            f"judges or retrieves ({int(sizes[g])}); -N is the number of documents "
            "in the collection"
        )


def add_arguments(score):
    """trec_eval's flags of ``skndcg score``."""
    score.add_argument(
        "-m",
        "--measure",
        metavar="MEASURE",
        action="append",
        default=[],
        help="trec_eval -m: a measure or family with its parameters (P.5,10, "
        "ndcg_cut.10, recip_rank, map) or a nickname (official, all_trec), or "
        "any name --metrics takes (ndcg@10, mrr, nDCG@10); repeatable; --format "
        "trec then prints these lines only, in trec_eval's order",
    )
    score.add_argument(
        "-q",
        "--query-eval",
        action="store_true",
        help="trec_eval -q: with --format trec, print every query's lines before "
        "the summary",
    )
    score.add_argument(
        "-n",
        "--no-summary",
        action="store_true",
        help="trec_eval -n: with --format trec, print no 'all' lines (with -q, "
        "only every query's lines)",
    )
    score.add_argument(
        "-l",
        "--rel-level",
        metavar="N",
        type=_rel_level,
        help="trec_eval -l: the smallest judgment that counts as relevant for "
        "every binary measure (default 1)",
    )
    score.add_argument(
        "-N",
        "--num-docs",
        metavar="N",
        type=integer(
            what="the number of documents in the collection, a positive integer"
        ),
        help="trec_eval -N: the number of documents in the collection, read by "
        "utility's nonrel_missed coefficient",
    )
    score.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="trec_eval -J: drop the retrieved documents without a judgment (or "
        "with a negative one) before scoring, after --depth",
    )


def check_format_flags(args, usage_error):
    """-q and -n shape trec_eval's lines: refused with another ``--format``
    rather than ignored, with what gives the same there."""
    if args.format == "trec":
        return
    if args.query_eval:
        raise usage_error(
            f"-q (trec_eval's per-query lines) needs --format trec; with --format "
            f"{args.format}, --per-query OUT.csv writes one row per query "
            "(--per-query - to standard output)"
        )
    if args.no_summary:
        raise usage_error(
            f"-n (no 'all' lines) needs --format trec; --format {args.format} "
            "prints the means only, so -n would leave nothing: for per-query "
            "values alone, give --per-query OUT.csv (--per-query - to standard "
            "output)"
        )


class Line:
    """One measure of the output: what is computed, and how trec_eval names it."""

    def __init__(self, label, metric, trec_name, order, shown=None, gains=(),
                 length=None, levels=()):  # fmt: skip
        self.label = label  # column of the report and key of the means
        self.metric = metric  # skndcg metric name, or None for a count or text
        self.trec_name = trec_name
        self.order = order
        self.shown = label if shown is None else shown  # name in tables
        self.gains = gains  # ndcg's custom gains: scored in a call of their own
        self.length = length  # relstring's number of documents, or None
        self.levels = levels  # 11pt_avg's recall levels: a call of their own
        self.own_call = bool(gains or levels)  # scored apart from the others


def lines(args, usage_error):
    """The measures asked for, as :class:`Line` objects, in the order given
    (``-m`` first, then ``--metrics``), and the relevance level (``-l``, or the
    one a name such as ``P(rel=2)@5`` sets); stderr names the families of a
    nickname that skndcg does not compute."""
    from ..metrics import trec_dialect as T

    level = args.rel_level
    try:
        trec, own = _split_measures(T, args.measure)
        found, missing = T.resolve(trec)
        out = [_line(m) for m in found]
        if args.measure and not args.metrics_given:
            metrics = own
        else:
            metrics = list(dict.fromkeys([*own, *args.metrics]))
        for i, name in enumerate(metrics):
            if (
                name in T.COUNTS
                or name in T.NICKNAMES
                or ("." in name and name.partition(".")[0] in T.TABLE_ORDER)
            ):
                found, absent = T.expand(name)
                missing += [m for m in absent if m not in missing]
                out += [_line(m, by_trec_name=True) for m in found]
                continue
            stripped, rel = T.split_rel(name)
            if rel is not None:
                level = _level(level, rel, name, usage_error)
                name = stripped
            spec = parse_metric(name)
            trec = T.to_trec(spec)
            trec_name, order = trec if trec else (spec.name, (len(T.TABLE_ORDER), i))
            out.append(Line(name, spec.name, trec_name, order))
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    if missing:
        from ._language import note

        note("not computed yet, left out of the output: " + ", ".join(missing))
    unique = {}
    for line in out:
        key = line.trec_name if line.own_call else (line.metric or line.trec_name)
        unique.setdefault(key, line)
    if not unique:
        raise usage_error("no measure to compute")
    return list(unique.values()), level


def _split_measures(T, given):
    """``-m``'s arguments as ``(trec_eval's names, the registry's names)``: a
    name only the registry knows (``ndcg@10``, ``mrr``) is scored as
    ``--metrics`` scores it, or refused with the registry's reason (``ndcg@0``);
    a name neither knows stays with trec_eval's, whose message names both."""
    from ..metrics import registry

    trec, own = [], []
    for name in given:
        try:
            T.resolve([name])
        except ValueError as not_trec:
            try:
                registry.parse(name)
            except ValueError as exc:
                if "unknown measure" in str(not_trec) and "unknown" not in str(exc):
                    raise  # the registry's name, with a wrong parameter: ndcg@0
            else:
                own.append(name)
                continue
        trec.append(name)
    return trec, own


def _line(m, by_trec_name=False):
    """The :class:`Line` of a ``TrecMeasure``, labelled by its metric name, or by
    its trec_eval name when scored apart or when ``by_trec_name``."""
    metric = None if m.metric is None else parse_metric(m.metric).name
    own = bool(m.gains or m.levels) or by_trec_name
    label = m.trec_name if own else (metric or m.trec_name)
    return Line(label, metric, m.trec_name, m.order, m.trec_name, m.gains,
                m.length, m.levels)  # fmt: skip


def report(data, plain, gained, options):
    """The per-query columns (a dict of arrays) and the means of the metrics
    ``plain`` and of the lines ``gained`` (each a call of its own) over
    ``data``, the engine's ``(y_true, y_score, qid)``."""
    from ..metrics.trec_dialect import gain_function

    report, means = _report_of(*data, metrics=plain, **options)
    for ln in gained:
        if ln.levels:
            report[ln.label], means[ln.label] = _level_average(data, ln, options)
            continue
        extra, extra_means = _report_of(
            *data, metrics=[ln.metric], gain=gain_function(ln.gains), **options
        )
        report[ln.label], means[ln.label] = extra[ln.metric], extra_means[ln.metric]
    return report, means


def _report_of(*data, **options):
    from ..metrics._shared import report_with_means

    return report_with_means(*data, frame=False, **options)


def _level_average(data, line, options):
    """Per-query values and mean of an ``11pt_avg`` line with recall levels:
    iprec at each level, summed in the order given and divided (trec_eval's)."""
    names = [f"iprec(recall={v!r})" for v in line.levels]
    extra, extra_means = _report_of(*data, metrics=names, **options)
    total = sum((np.asarray(extra[name], dtype=np.float64) for name in names), 0.0)
    mean = sum(extra_means[name] for name in names) / len(names)
    return total / len(names), mean


def _level(level, rel, name, usage_error):
    """The relevance level of a call after ``name`` asks for ``rel``."""
    if not float(rel).is_integer() or rel < 1:
        raise usage_error(f"{name}: rel={rel:g} must be an integer >= 1")
    if level is not None and level != int(rel):
        raise usage_error(
            f"{name} asks for relevance level {int(rel)} but another metric or -l "
            f"gives {level}; one call has one level"
        )
    return int(rel)


def counts(table):
    """Per-query ``num_ret``, ``num_rel`` and ``num_rel_ret`` of the table."""
    if "n_retrieved" in table:
        ret, rel_ret = "n_retrieved", "n_relevant_retrieved"
    else:
        ret, rel_ret = "n_items", "n_relevant"
    columns = {"num_ret": ret, "num_rel": "n_relevant", "num_rel_ret": rel_ret}
    return {k: np.asarray(table[c], dtype=np.int64) for k, c in columns.items()}


def render(lines_, table, means, tag, *, per_query, num_rel=None, summary=True):
    """trec_eval's output for ``lines_``. ``table`` maps the report's columns
    (``qid``, the counts and each line's label) to arrays over the queries
    that count; ``num_rel`` is the summary of num_rel when it is not the sum
    of the rows; ``summary=False`` leaves out the ``all`` lines (-n)."""
    from ..metrics import trec_dialect as T

    ordered = sorted(lines_, key=lambda ln: ln.order)
    tally = counts(table)
    out = []
    if per_query:
        for g, q in enumerate(np.asarray(table["qid"]).tolist()):
            for ln in ordered:
                if ln.length is not None:
                    out.append(f"{ln.trec_name:<22}\t{q}\t'{table[ln.label][g]}'")
                    continue
                if ln.metric is None:
                    if ln.trec_name in tally:
                        out.append(_row(ln.trec_name, q, int(tally[ln.trec_name][g])))
                    continue
                if parse_metric(ln.metric).definition.aggregate is not None:
                    continue  # gm_map, gm_bpref: trec_eval prints the summary only
                value = table[ln.label][g]
                if ln.trec_name in T.SUMMED:
                    value = round(float(value))
                out.append(_row(ln.trec_name, q, value))
    for ln in ordered if summary else ():
        if ln.length is not None:
            continue  # relstring: per query only, as trec_eval prints it
        if ln.trec_name == "runid":
            if tag is not None:
                out.append(f"{'runid':<22}\tall\t{tag}")
        elif ln.trec_name == "num_q":
            out.append(_row("num_q", "all", len(table["qid"])))
        elif ln.trec_name == "num_rel" and num_rel is not None:
            out.append(_row("num_rel", "all", int(num_rel)))
        elif ln.metric is None:
            out.append(_row(ln.trec_name, "all", int(tally[ln.trec_name].sum())))
        elif ln.trec_name in T.SUMMED:
            total = round(float(np.sum(table[ln.label])))
            out.append(_row(ln.trec_name, "all", total))
        else:
            out.append(_row(ln.trec_name, "all", _summary(ln, table, means)))
    return "\n".join(out)


def relstrings(qid, y_true, y_score, doc_order, n_queries, length):
    """trec_eval's relstring of each query (by code): one character per
    retrieved document, best first, for the first ``length``: its judgment
    0 to 9, ``>`` above 9, ``-`` not judged (NaN), ``.`` judged negative (in
    the pool, not judged) and ``<`` any other label. The rows are ranked
    trec_eval's way: score descending, then document id descending
    (``y_score`` at the precision of the convention)."""
    retrieved = np.flatnonzero(~np.isnan(y_score))
    q = qid[retrieved]
    d = np.zeros_like(q) if doc_order is None else doc_order[retrieved]
    # The order --depth cuts by (skndcg.io), which is the engine's under
    # trec_eval's rule: tests/test_trec_rbp_relstring.py reads P@k back.
    order = np.lexsort((-d, -y_score[retrieved], q))
    ranked_q = q[order]
    rank = np.arange(order.size) - np.searchsorted(ranked_q, ranked_q)
    top = order[rank < length]  # still sorted by query, best first
    q = q[top]
    y = np.asarray(y_true, dtype=np.float64)[retrieved][top]
    chars = np.full(y.shape, "<", dtype="U1")
    digit = (y == np.floor(y)) & (y >= 0) & (y <= 9)
    chars[digit] = np.array(list("0123456789"))[y[digit].astype(np.int64)]
    chars[y > 9] = ">"
    chars[np.isnan(y)] = "-"
    chars[y < 0] = "."
    out = np.full(n_queries, "", dtype=object)
    bounds = np.searchsorted(q, np.arange(n_queries + 1))
    for g in np.flatnonzero(np.diff(bounds)):
        out[g] = "".join(chars[bounds[g] : bounds[g + 1]])
    return out


def render_means(lines_, means, n_queries):
    """trec_eval's ``all`` lines from streamed means (no per-query values: no
    counts, and the run tag is not kept)."""
    out = []
    for ln in sorted(lines_, key=lambda ln: ln.order):
        if ln.trec_name == "num_q":
            out.append(_row("num_q", "all", int(n_queries)))
        elif ln.metric is not None:
            out.append(_row(ln.trec_name, "all", means[ln.label]))
    return "\n".join(out)


def _summary(ln, table, means):
    """The ``all`` value as trec_eval adds it up: the per-query values summed
    one after the other in query order, then divided (the last bit of a mean
    can differ with the order of the additions, and with it the fourth
    decimal)."""
    v = np.asarray(table[ln.label], dtype=np.float64)
    if v.size == 0 or np.isnan(v).any():
        return means[ln.label]  # a query skipped: the engine's mean
    agg = parse_metric(ln.metric).definition.aggregate
    if agg is None:
        return sum(v.tolist()) / v.size
    return float(agg.back(sum(np.asarray(agg.term(v)).tolist()) / v.size))


def _row(name, qid, value):
    if isinstance(value, (int, np.integer)):
        return f"{name:<22}\t{qid}\t{int(value)}"
    value = float(value)
    text = "nan" if value != value else f"{value:6.4f}"
    return f"{name:<22}\t{qid}\t{text}"
