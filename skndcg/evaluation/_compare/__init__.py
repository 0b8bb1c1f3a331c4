""":func:`~skndcg.evaluation.compare`: several rankers on the same queries, the
per-query inputs it aligns, the numbers behind it, segments and their rules, and
its results (:class:`~skndcg.evaluation.Comparison`,
:class:`~skndcg.evaluation.SegmentedComparison`)."""
