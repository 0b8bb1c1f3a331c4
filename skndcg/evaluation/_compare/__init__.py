""":func:`~skndcg.evaluation.compare`: inputs, numbers, segments and results."""
