"""What the names mean: the measure registry, the metric-name grammar,
user-defined measures and trec_eval's dialect of names."""
