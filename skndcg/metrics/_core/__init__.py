"""The engine: validation, grouping, tie rules, ranking, the block and per-query
kernels (compiled, or run as Python for small inputs) and the aggregation."""
