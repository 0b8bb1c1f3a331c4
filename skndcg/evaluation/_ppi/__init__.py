"""Labels from a model corrected by a human sample: the prediction-powered
estimator, its report and comparison, and how far a model's labels can be
trusted."""
