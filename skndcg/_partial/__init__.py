"""Means of the grouped metrics from pieces scored one by one (Dask, Spark,
streamed files): each piece's sums, added up, give the in-memory means."""
