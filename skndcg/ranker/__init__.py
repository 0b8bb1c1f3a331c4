"""skndcg.ranker."""
