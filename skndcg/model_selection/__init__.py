"""skndcg.model_selection."""
