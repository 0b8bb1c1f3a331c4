"""Evaluation protocols, the ways per-query values are produced: every user
ranked against the full catalogue (plan, score sources, compiled top-k, blocks,
Dask), sampled candidates and their corrections, and out-of-fold reports."""
