"""skndcg.plotting."""
