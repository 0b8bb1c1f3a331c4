"""What ``skndcg score`` reads: the inputs through io's one door, the engine
options the command line implies, and the streamed scoring of a large file."""

import numpy as np

from ._errors import UsageError


def opened(args, stream=False):
    """The inputs through io's one door (:func:`skndcg.io.open_input`): a
    :class:`~skndcg.io.CodedRanking` for the engine or, with ``stream`` (only
    the means are asked for), a :class:`~skndcg.io.Chunked` for
    :func:`score_chunked`."""
    from ..io import open_input

    items = args.item_counts is not None  # (the docnos are the items)
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
        return open_input(
            args.input, args.qrels, depth=args.depth, by_docno=convention.doc_ties,
            unjudged=unjudged, judged_only=args.judged_only,
            all_judged=args.all_judged, stream=stream, items=items,
        )  # fmt: skip
    args = default_columns(args)
    try:
        return open_input(
            args.input, qid=args.qid, label=args.label, score=args.score,
            doc=args.doc, depth=args.depth, stream=stream, items=items,
        )  # fmt: skip
    except ValueError as exc:
        fields = _fields(args.input)
        if "no column" in str(exc) and len(fields) == 6 and fields[3].isdigit():
            raise UsageError(
                f"{args.input} looks like a TREC run (6 fields a line, as "
                f"{' '.join(fields)!r}): give its judgments with --qrels QRELS"
            ) from None
        if args.defaulted and "no column" in str(exc):
            raise UsageError(f"{exc} {columns_hint(args.defaulted)}") from None
        raise


def score_chunked(chunked, args, metrics):
    """Means and query count of a :class:`~skndcg.io.Chunked` file, scored a
    batch at a time by :mod:`skndcg.streaming`."""
    from .. import streaming

    if chunked.qrels is not None:
        means, counts = streaming.score_trec_run(
            chunked.path, chunked.qrels, metrics,
            convention=args.convention or "trec_eval", all_judged=args.all_judged,
            depth=chunked.depth, popularity=args.item_counts, return_counts=True,
        )  # fmt: skip
    else:
        convention = convention_of(args, trec=False)
        options = {"convention": convention, "nan_score": "unretrieved"}
        if args.all_judged:
            options["queries"] = "judged"
        # The document column is read whenever it is named: a document listed
        # twice in a query is refused, as the in-memory read refuses it.
        means, counts = streaming.score_parquet(
            chunked.path, metrics, qid_col=chunked.qid, label_col=chunked.label,
            score_col=chunked.score, doc_col=chunked.doc, return_counts=True,
            item_col=None if args.item_counts is None else chunked.doc,
            popularity=args.item_counts, **options,
        )  # fmt: skip
    return means, counts[metrics[0]]


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
    or none when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for _, text in zip(range(100), fh, strict=False):
                if text.strip() and not text.lstrip().startswith("#"):
                    return text.split()
    except (OSError, TypeError):
        return []
    return []


def with_swapped_hint(message, args):
    """``message``, with a sentence added when the run and the qrels look
    swapped (the run has a qrels' 4 fields a line, the qrels a run's 6)."""
    qrels = getattr(args, "qrels", None)
    if qrels is None or args.input is None:
        return message
    if len(_fields(args.input)) == 4 and len(_fields(qrels)) == 6:
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


def engine_options(args, coded):
    """The keywords of the metric functions that the command line implies for
    the rows ``coded``, after refusing a run of which no query is judged in
    ``--qrels`` (the ids of the two files differ, unless ``-c`` scores them)."""
    if args.qrels is not None and not args.all_judged and np.isnan(coded.y_score).all():
        raise UsageError(
            f"no query of {args.input} has judgments in {args.qrels}; do the "
            "query ids of the two files match?"
        )
    convention = convention_of(args, trec=args.qrels is not None)
    options = {"convention": convention}
    if args.unjudged_used:
        options["nan_label"] = "unjudged"
    if np.isnan(coded.y_score).any():
        options["nan_score"] = "unretrieved"
    if args.all_judged or args.judged_only:
        # With -J every query left was answered by the run (see join_trec_files).
        options["queries"] = "judged"
    if args.rel_level is not None:
        options["rel_threshold"] = float(args.rel_level)
    if args.item_counts is not None:
        # The per-user beyond-accuracy measures: each row's docno is its item.
        items = np.concatenate([np.asarray(d, dtype=object) for d in coded.docs])
        options["side"] = {"item_id": items, "popularity": args.item_counts}
    if get_convention(convention).doc_ties:
        if coded.presorted:
            # Each query's rows already are in descending doc order, the
            # unretrieved ones last: keeping tied rows in row order is
            # ordering them by docno, and the engine has nothing to reorder.
            options["convention"] = get_convention(convention).presorted()
        elif coded.doc_order is not None:
            options["doc_id"] = coded.doc_order
    return options
