"""skndcg.evaluation."""
