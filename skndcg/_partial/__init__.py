"""Means of the grouped metrics from per-query reports computed piece by piece.

The Dask, Spark and streaming front ends score each piece of the data (a
partition, a group of queries, a batch of rows) with the in-memory
:func:`skndcg.metrics.ranking_report`, reduce each report to a few sums here, and
add the sums up; the final means then equal what the in-memory functions return.
"""
