"""Grouped ranking metrics on a Spark DataFrame.

Rows are grouped by a hash of the query id (so each group holds whole queries),
each group is scored with ``applyInPandas`` by the in-memory
:func:`skndcg.metrics.ranking_report`, and the means are put together on the
driver from per-query values and weights, exactly as in memory.

Needs the ``spark`` extra (pyspark, pyarrow): ``pip install 'skndcg[spark]'``.
"""

import math

from .._partial._driver import columns_of, finish, setup_of, sum_columns
from .._partial._pieces import (
    check_columns,
    check_frame,
    check_numeric,
    door_module,
    report_template,
)
from ._frame import BUCKET, ORDER, make_scorer, sample_rows, spark_type


def _prepare(args):
    sql = door_module("spark", "pyspark.sql", "pyspark (with pyarrow)")
    from pyspark.sql import functions as F

    sdf, cols, n_groups = args["sdf"], columns_of(args), args["n_groups"]
    check_frame(sdf, sql.DataFrame, "sdf", "pyspark.sql.DataFrame")
    spec = setup_of(args, "sdf")
    check_columns(sdf.columns, cols, "sdf")
    types = {field.name: field.dataType for field in sdf.schema.fields}
    numeric = (sql.types.NumericType, sql.types.BooleanType)
    decimal_type = sql.types.DecimalType

    def text_type(col):
        return None if isinstance(types[col], numeric) else types[col].simpleString()

    check_numeric(cols, text_type, "sdf")
    if n_groups is None:
        n_groups = int(sdf.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    if isinstance(n_groups, bool) or not isinstance(n_groups, int) or n_groups < 1:
        raise ValueError(f"n_groups must be an int >= 1 or None, got {n_groups!r}.")
    if spec.needs_label_max:
        # ERR's default g_max: the largest label, NaN (which Spark orders
        # above every number) counted apart.
        y = F.col(cols["label_col"]).cast("double")
        missing = y.isNull() | F.isnan(y)
        top, n_missing = sdf.agg(
            F.max(F.when(~missing, y)), F.count(F.when(missing, 1))
        ).first()
        found = [] if top is None else [top]
        spec.know_label_max(found + [math.nan] * bool(n_missing))
    used = list(dict.fromkeys(c for c in cols.values() if c is not None))
    # A decimal column reaches pandas as Decimal objects: read as doubles.
    values = {cols[k] for k in ("label_col", "score_col", "sample_weight_col")}
    decimal = [c for c in used if c in values and isinstance(types[c], decimal_type)]
    sdf = sdf.select(*used).withColumns({c: F.col(c).cast("double") for c in decimal})
    sample = sample_rows(sdf.limit(0).toPandas())
    template = report_template(sample, spec.names, **spec.columns)
    grouped = (
        sdf.withColumn(ORDER, F.monotonically_increasing_id())
        .withColumn(BUCKET, F.pmod(F.xxhash64(cols["qid_col"]), F.lit(n_groups)))
        .groupBy(BUCKET)
    )
    return grouped, template, spec


def grouped_ranking_scores(
    sdf,
    metrics,
    *,
    qid_col,
    label_col,
    score_col,
    doc_col=None,
    sample_weight_col=None,
    sample_weight=None,
    item_col=None,
    popularity=None,
    n_groups=None,
    **options,
):
    """Means of several ranking metrics over the queries of a Spark DataFrame.

    Equal (to rounding, far below 1e-12) to
    :func:`skndcg.metrics.grouped_ranking_scores` on the same rows
    collected in memory in their DataFrame order.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per (query, candidate), in any order and partitioning.
    metrics : str or sequence of str
        Metric names, as in :func:`skndcg.metrics.grouped_ranking_scores`.
    qid_col, label_col, score_col : str
        Columns holding the query ids, the relevance labels and the scores.
    doc_col : str, default=None
        Column of document ids, passed on as ``doc_id``.
    sample_weight_col : str, default=None
        Column of per-row query weights, constant within a query.
    sample_weight : dict or pandas.Series, default=None
        Query weights as a mapping from query id to weight.
    item_col : str, default=None
        Column of item ids, passed on as ``item_id``: read by the per-user
        beyond-accuracy measures (``"novelty@10"``, ``"arp@10"``,
        ``"aplt@10"``, ``"aclt@10"``, ``"long_tail_recall@10"``,
        ``"serendipity@10"``), which need ``popularity`` too.
    popularity : dict or array-like, default=None
        The items' training popularity, as in
        :func:`skndcg.metrics.grouped_ranking_scores` (a dict of counts by
        item, or the training log's item ids). It is sent whole with every
        group, so each query reads the same table as in memory.
    n_groups : int, default=None
        Rows are grouped by a hash of the query id into this many groups, each
        scored in one call (so each must fit in an executor's memory). ``None``:
        ``spark.sql.shuffle.partitions``.
    **options
        Every other keyword of :func:`skndcg.metrics.grouped_ranking_scores`.

    Returns
    -------
    scores : dict
        Metric name (as given) to its mean over queries.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> from skndcg.spark import grouped_ranking_scores
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> sdf = spark.createDataFrame(  # doctest: +SKIP
    ...     [(1, 1, 0.9), (1, 0, 0.8), (1, 2, 0.7),
    ...      (2, 0, 0.6), (2, 1, 0.5), (2, 1, 0.4)], ["qid", "label", "score"])
    >>> scores = grouped_ranking_scores(  # doctest: +SKIP
    ...     sdf, ["ndcg@2", "mrr"], qid_col="qid", label_col="label",
    ...     score_col="score")
    >>> {name: round(value, 4) for name, value in scores.items()}  # doctest: +SKIP
    {'ndcg@2': 0.3835, 'mrr': 0.75}
    >>> rows = spark.createDataFrame(  # doctest: +SKIP
    ...     [(1, 1, 0.9, "a"), (1, 0, 0.8, "b"), (1, 2, 0.7, "c"),
    ...      (2, 0, 0.6, "a"), (2, 1, 0.5, "d"), (2, 1, 0.4, "b")],
    ...     ["qid", "label", "score", "item"])
    >>> grouped_ranking_scores(  # doctest: +SKIP
    ...     rows, ["novelty@2", "arp@2"], qid_col="qid", label_col="label",
    ...     score_col="score", item_col="item",
    ...     popularity={"a": 4, "b": 2, "c": 1, "d": 1})
    {'novelty@2': 1.75, 'arp@2': 2.75}
    """
    grouped, template, spec = _prepare(locals())
    schema = ", ".join(f"`{c}` double" for c in sum_columns(spec.names))
    score = make_scorer("sums", spec)
    parts = grouped.applyInPandas(score, schema=schema).toPandas().to_numpy()
    message = "sdf has no rows; at least one row is required."
    return finish(parts, spec, message)[0]


def ranking_report(
    sdf,
    *,
    metrics=("ndcg@10",),
    qid_col,
    label_col,
    score_col,
    doc_col=None,
    sample_weight_col=None,
    sample_weight=None,
    item_col=None,
    popularity=None,
    n_groups=None,
    **options,
):
    """One row per query, as a Spark DataFrame (computed when an action runs).

    The columns of :func:`skndcg.metrics.ranking_report`, in no particular row
    order.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per (query, candidate).
    metrics : str or sequence of str, default=("ndcg@10",)
        Metric names, as in :func:`skndcg.metrics.ranking_report`.
    qid_col, label_col, score_col, doc_col, sample_weight_col, sample_weight
        As in :func:`grouped_ranking_scores`.
    item_col, popularity : default=None
        As in :func:`grouped_ranking_scores`.
    n_groups : int, default=None
        As in :func:`grouped_ranking_scores`.
    **options
        Every other keyword of :func:`skndcg.metrics.ranking_report`.

    Returns
    -------
    report : pyspark.sql.DataFrame
        The per-query report.

    Examples
    --------
    >>> from skndcg.spark import ranking_report
    >>> report = ranking_report(sdf, metrics="ndcg@3", qid_col="qid",  # doctest: +SKIP
    ...                         label_col="label", score_col="score")
    >>> report.toPandas().sort_values("qid")  # doctest: +SKIP
    """
    grouped, template, spec = _prepare(locals())
    score = make_scorer("report", spec)
    schema = ", ".join(f"`{c}` {spark_type(t)}" for c, t in template.dtypes.items())
    return grouped.applyInPandas(score, schema=schema)


__all__ = ["grouped_ranking_scores", "ranking_report"]
