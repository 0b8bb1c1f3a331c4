"""What ``skndcg score`` reads: the inputs aligned for the engine, the engine
options the command line implies, and the streamed path for large files."""

from __future__ import annotations

import os

import numpy as np

from ._errors import UsageError


def load(args):
    """The inputs aligned for the engine: a :class:`~skndcg.io.CodedRanking`
    (its ``tag`` the run's, ``presorted`` whether each query's rows already
    come in descending doc order), and the empty score cells of a predictions
    file (for the summary)."""
    from ..io import join_trec_files, read_predictions

    columns = {"qid": args.qid, "label": args.label, "score": args.score}
    if args.qrels is not None:
        given = [f"--{k}" for k, v in {**columns, "doc": args.doc}.items() if v]
        if given:
            raise UsageError(f"{', '.join(given)} apply to predictions, not --qrels")
        # With ties broken by document id, the rows come in descending docno
        # order where the files allow it, and ties keep row order (see
        # engine_options): no doc order is needed then. Measures that tell
        # unjudged documents apart (bpref, infAP) and -J read them as such.
        convention = get_convention(convention_of(args, trec=True))
        unjudged = "zero"
        if args.judged_only or args.unjudged_used:
            unjudged = convention.labels.unjudged_rule()
        coded = join_trec_files(
            args.input, args.qrels, depth=args.depth, by_docno=convention.doc_ties,
            unjudged=unjudged, judged_only=args.judged_only,
            all_judged=args.all_judged,
        )  # fmt: skip
        return coded, 0
    args = default_columns(args)
    defaulted = args.defaulted
    try:
        data = read_predictions(
            args.input, qid=args.qid, label=args.label, score=args.score,
            doc=args.doc,
        )  # fmt: skip
    except ValueError as exc:
        if defaulted and "no column" in str(exc):
            raise UsageError(f"{exc} {columns_hint(defaulted)}") from None
        raise
    return data.coded(depth=args.depth), int(np.isnan(data.y_score).sum())


#: The columns of a predictions file (``skndcg score``) or a log (``skndcg
#: monitor``) that no flag names are read under these names.
DEFAULT_COLUMNS = {"qid": "qid", "label": "label", "score": "score"}


def default_columns(args):
    """The request with each of ``qid``, ``label`` and ``score`` not set given
    its default name, those flags added to ``defaulted`` (for the messages)."""
    missing = [attr for attr in DEFAULT_COLUMNS if getattr(args, attr) is None]
    if not missing:
        return args
    return args.but(
        **{attr: DEFAULT_COLUMNS[attr] for attr in missing},
        defaulted=(*args.defaulted, *(f"--{attr}" for attr in missing)),
    )


def columns_hint(defaulted):
    """What to say when a defaulted column is not in the file."""
    names = [DEFAULT_COLUMNS[f[2:]] for f in defaulted]
    return (
        f"Without {_listed(defaulted, 'or')}, the column"
        f"{'s' if len(names) > 1 else ''} {_listed(names, 'and')} "
        f"{'are' if len(names) > 1 else 'is'} read; name the file's own with "
        f"{_listed([f + ' COL' for f in defaulted], 'and')}."
    )


def _listed(items, word):
    return (
        items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"
    )


def _fields(path):
    """Fields of the first line of ``path`` that is not blank nor a comment,
    or None when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for _, text in zip(range(100), fh, strict=False):
                if text.strip() and not text.lstrip().startswith("#"):
                    return len(text.split())
    except (OSError, TypeError):
        return None
    return None


def with_swapped_hint(message, args):
    """``message``, with a sentence added when the run and the qrels look
    swapped (the run has a qrels' 4 fields a line, the qrels a run's 6)."""
    qrels = getattr(args, "qrels", None)
    if qrels is None or args.input is None:
        return message
    if _fields(args.input) == 4 and _fields(qrels) == 6:
        return (
            f"{message.rstrip('. ')}. {args.input} looks like qrels (4 fields a "
            f"line) and {qrels} like a run (6): were the two swapped? skndcg "
            "score and skndcg compare take the run(s) first and the qrels "
            "after --qrels; skndcg trec_eval, as trec_eval, the qrels first, "
            "then the run."
        )
    return message


def get_convention(convention):
    """The Convention object of a preset name (metrics loaded on first use)."""
    from .. import metrics

    return metrics.get_convention(convention)


def convention_of(args, trec):
    """The preset name used: the one given (in any spelling the library
    accepts), else trec_eval's for a TREC run."""
    from ..metrics import TREC_RUN_CONVENTION

    name = args.convention or (TREC_RUN_CONVENTION if trec else None)
    return None if name is None else get_convention(name).name


def engine_options(args, y_score, doc_order, trec, presorted=False):
    """The keywords of the metric functions that the command line implies."""
    convention = convention_of(args, trec)
    options = {"convention": convention}
    if getattr(args, "unjudged_used", False):
        options["nan_label"] = "unjudged"
    # The engine options are passed only where they matter.
    if np.isnan(y_score).any():
        options["nan_score"] = "unretrieved"
    if args.all_judged or args.judged_only:
        # With -J every query left was answered by the run (see join_trec_files).
        options["queries"] = "judged"
    if args.rel_level is not None:
        options["rel_threshold"] = float(args.rel_level)
    if get_convention(convention).doc_ties:
        if presorted:
            # Each query's rows already are in descending doc order, the
            # unretrieved ones last: keeping tied rows in row order is
            # ordering them by docno, and the engine has nothing to reorder.
            options["convention"] = get_convention(convention).presorted()
        elif doc_order is not None:
            options["doc_id"] = doc_order
    return options


# Parquet files with more rows than this are streamed in row groups when only the
# means are asked for (no --per-query, --ci or --depth). The environment variable
# SKNDCG_STREAM_ROWS sets another threshold (0 streams every Parquet file).
STREAM_ROWS = 20_000_000


# TREC runs larger than this are scored query by query, in bounded memory, when
# only the means are asked for. SKNDCG_STREAM_BYTES sets another threshold (0
# streams every run).
STREAM_BYTES = 1 << 30


def _threshold_from_env(name, default):
    """The streaming threshold ``default``, or the one set in the environment."""
    text = os.environ.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise UsageError(
            f"the environment variable {name} must be a number >= 0, got {text!r}"
        )
    return value


def _streamed_trec(args, metrics):
    """Means and query count of a large TREC run read in batches, or None."""
    if args.per_query or args.ci:
        return None
    try:
        size = os.path.getsize(args.input)
    except OSError:
        return None  # the in-memory reader reports the problem
    if size < _threshold_from_env("SKNDCG_STREAM_BYTES", STREAM_BYTES):
        return None
    from ..streaming import score_trec_run

    means, counts = score_trec_run(
        args.input, args.qrels, metrics, convention=args.convention or "trec_eval",
        all_judged=args.all_judged, depth=args.depth, return_counts=True,
    )  # fmt: skip
    return means, counts[metrics[0]]


def streamed(args, metrics):
    """Means and query count of a large Parquet file read in batches, or None."""
    if args.strict:
        return None  # --strict counts what the summary says, in memory
    trec_eval_flags = (args.judged_only, args.query_eval, args.rel_level, args.num_docs)
    if args.unjudged_used or any(f not in (None, False) for f in trec_eval_flags):
        return None  # trec_eval's options and lines: in memory
    if args.qrels is not None:
        return _streamed_trec(args, metrics)
    if args.per_query or args.ci or args.depth is not None:
        return None
    from ..io import is_parquet

    if not is_parquet(args.input):
        return None
    if None in (args.qid, args.label, args.score):
        return None
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return None
    try:
        n_rows = pq.ParquetFile(args.input).metadata.num_rows
    except (OSError, ValueError):
        return None  # the in-memory reader reports the problem
    if n_rows < _threshold_from_env("SKNDCG_STREAM_ROWS", STREAM_ROWS):
        return None
    from ..streaming import score_parquet

    convention = convention_of(args, trec=False)
    options = {"convention": convention, "nan_score": "unretrieved"}
    if args.all_judged:
        options["queries"] = "judged"
    # The document column is read whenever it is named: a document listed
    # twice in a query is refused, as the in-memory read refuses it.
    doc = args.doc
    try:
        means, counts = score_parquet(
            args.input, metrics, qid_col=args.qid, label_col=args.label,
            score_col=args.score, doc_col=doc, return_counts=True, **options,
        )  # fmt: skip
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    return means, counts[metrics[0]]
