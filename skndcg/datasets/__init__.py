"""skndcg.datasets."""
