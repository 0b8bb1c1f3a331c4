"""The public functions of :mod:`skndcg.metrics`: grouped scores, reports,
scorers and the option helpers."""
